// File: plan.hpp
// The sans-io heart of pushing: (the feed's items, what we know we wrote, what the calendar lists) ->
// the creates, updates and deletes that make our items in the calendar equal the feed's. No sockets here.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::push {

/** @brief One item the feed wants in the calendar: one VCALENDAR resource per UID. */
struct Resource {
    std::string uid;
    std::string name; ///< resource name in the collection, resource_name(uid, writer) (name_resources)
    std::string body; ///< VCALENDAR with the item's components and the VTIMEZONEs they use
    std::string hash; ///< hex SHA-256 of body: "changed" means "hash differs"
    /// What a CalDAV calendar-query selects on (src/dav/): a VTODO rather than a VEVENT, and the earliest
    /// start and latest end of its components (FeedIndex's wall-clock seconds; absent when none has one).
    bool todo = false;
    std::optional<long long> start, end;
};

/** @brief What we recorded after writing an item (kept per target, on disk). */
struct Written {
    std::string name; ///< resource name
    std::string etag; ///< the server's ETag after our write; empty when it sent none
    std::string hash; ///< Resource::hash of what we wrote
    friend bool operator==(Written const&, Written const&) = default;
};

/** @brief Per target: uid -> what we wrote; and the server's listing of our resources, name -> ETag. */
using Known = std::map<std::string, Written>;
using Listing = std::map<std::string, std::string>;

enum class OpKind { create, update, remove };

/** @brief One write. `etag` is the If-Match precondition of an update or delete ("" = If-None-Match: *). */
struct Op {
    OpKind kind = OpKind::create;
    std::string uid;  ///< empty for a delete of an orphan found only in the listing (lost state)
    std::string name; ///< resource name
    std::string etag;
    std::string hash; ///< of the body to write (create, update)
    friend bool operator==(Op const&, Op const&) = default;
};

struct Plan {
    std::vector<Op> ops;
    std::size_t unchanged = 0;
    std::vector<std::string> forget; ///< uids in Known that are gone from both sides: drop from the state
    std::size_t count(OpKind k) const;
};

/** @brief The prefix of every resource icsbridge creates: what marks ours beside the person's own. */
inline constexpr std::string_view owned_prefix = "icsbridge-";

/** @brief The SHA-256 of `data` in lower-case hex (64 digits). */
std::string hex_sha256(std::string_view data);

/**
 * @brief The mark of one writer (a configured target, by its name; a self-serve connection, by its
 * "connection-ID"): 8 hex digits of SHA-256(writer). A view change keeps the writer, and so its items.
 */
std::string writer_tag(std::string_view writer);

/**
 * @brief "icsbridge-" + writer_tag(writer) + "-" + 32 hex digits of SHA-256(uid) + ".ics": the same name
 * for the same UID and writer, always, and never another writer's.
 */
std::string resource_name(std::string_view uid, std::string_view writer);

/**
 * @brief Whether a resource name (the last path segment) is one icsbridge made: a writer's, or one of an
 * earlier version, "icsbridge-" + 32 hex digits + ".ics", whose writer only its target's state knows.
 */
bool is_owned(std::string_view name);

/** @brief Whether `name` carries `writer`'s mark (an earlier version's names carry none). */
bool written_by(std::string_view name, std::string_view writer);

/**
 * @brief Gives each of `desired` (taken from the feeds, unnamed) its name: the one `known` recorded for
 * its UID while `listing` still holds it (so an item an earlier version wrote is adopted, not written
 * twice), else resource_name(uid, writer).
 */
void name_resources(
    std::vector<Resource>& desired, std::string_view writer, Known const& known, Listing const& listing
);

/**
 * @brief The writes that make `writer`'s resources equal `desired` (named by name_resources). Another
 * writer's resources, and the person's own, are never touched. `listing` holds icsbridge's resources in
 * the calendar (name -> ETag): ours changed or deleted behind our back are rewritten (the feed wins), and
 * ours that the state forgot are adopted by their writer mark, so a lost state never duplicates: an
 * unknown resource of ours the feed wants is updated, one it does not want is deleted.
 */
Plan plan(
    std::vector<Resource> const& desired, Known const& known, Listing const& listing, std::string_view writer
);

/**
 * @brief After a 412 on `op`, the op to try again given the resource's ETag now (nullopt: it is gone):
 * the feed wins, so a create becomes an update of what is there, an update of a deleted item a create;
 * a delete of an item already gone needs nothing (nullopt).
 */
std::optional<Op> after_conflict(Op const& op, std::optional<std::string> const& etag_now);

} // namespace icsbridge::push
