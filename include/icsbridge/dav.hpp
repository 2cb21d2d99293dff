// File: dav.hpp
// Every feed as a read-only CalDAV collection (RFC 4918, 4791, 6578): each published snapshot cut into one
// resource per UID, a change history behind the sync tokens, and the sans-io core that answers a request
// about what a requester may see. The HTTP route around it lives in src/server/.
#pragma once

#include <icsbridge/body_stream.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/store.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace icsbridge::dav {

/** @brief One calendar object resource: a VCALENDAR holding one UID's components and their VTIMEZONEs. */
struct Item {
    std::string name; ///< 32 hex digits of SHA-256(UID) + ".ics": the same for the same UID, always
    /// The VCALENDAR, lines as in the feed, but ending in LF where the resource has CRLF: so calendar-data
    /// carries it (an XML parser reads every CRLF as LF anyway, XML 1.0 2.11: ~43 bytes an event less on the
    /// wire, nothing less for the client), and body() puts the CRs back for GET
    std::string data;
    std::size_t length = 0; ///< the resource's bytes (body().size())
    std::string etag;       ///< quoted hex of SHA-256(body()) (64 bits): stable across restarts and replicas
    bool todo = false;
    bool crlf = false;                   ///< each LF of data was a CRLF of the resource
    bool plain = false;                  ///< no < & or ]]> in data: calendar-data goes as text, without CDATA
    std::optional<long long> start, end; ///< wall-clock seconds (FeedIndex), for time-range queries

    /** @brief The resource's bytes, as GET sends them. */
    std::string body() const;
};

/** @brief A feed's snapshot as a collection, with its place in the feed's change history. */
struct Collection {
    Collection() = default;
    Collection(Collection&&) = default;
    Collection& operator=(Collection&&) = default;
    Collection(Collection const&) = delete; ///< by_name points into items
    Collection& operator=(Collection const&) = delete;
    ~Collection() = default;

    std::vector<Item> items; ///< in calendar order
    std::unordered_map<std::string_view, std::size_t> by_name;
    std::string snapshot_etag; ///< the snapshot it was cut from
    std::uint64_t epoch = 0;   ///< the history's: a token of another epoch is refused
    std::uint64_t seq = 0;     ///< the publication this collection is in the history

    Item const* find(std::string_view name) const;
    /** @brief The sync token naming this point of the history (a URI). */
    std::string token() const;
};

/** @brief Cuts a rendered calendar into a collection (epoch and seq left 0). */
Collection make_collection(std::string_view body, std::string snapshot_etag);

/** @brief What changed between a token's point and a collection: names still there, and names gone. */
struct Changes {
    std::vector<std::string> changed; ///< present in the collection now (appeared or changed)
    std::vector<std::string> gone;    ///< removed since the token
};

class HistoryFiles; // dav/history_files.hpp: where the history is read back from
class PushRegistry; // dav/push_registry.hpp: WebDAV-Push registrations

/**
 * @brief Per feed, which resource names appeared, changed and went away at each publication, kept for
 * `keep`. One more subscriber of the Publisher; also asked by the HTTP threads, so it is thread-safe.
 * The first collection of a feed starts its history under a fresh random epoch, unless the history kept
 * beside its snapshot (keep_with) reaches that snapshot: then it goes on from there, epoch and all, so a
 * token outlives a restart and works on every replica.
 */
class History {
  public:
    explicit History(std::chrono::seconds keep);
    ~History();
    History(History const&) = delete;
    History& operator=(History const&) = delete;

    /**
     * @brief The collection of `snap` for `feed`. A snapshot seen before gives the collection recorded then
     * (the two newest are remembered); a new one is cut, compared with the feed's latest and recorded as the
     * next publication. Cutting happens outside the lock.
     */
    std::shared_ptr<Collection const>
    collection(std::string const& feed, std::shared_ptr<Snapshot const> const& snap, sys_seconds now);

    /**
     * @brief Cuts `snap` of `feed` before it is published, with its changes from the feed's latest (the
     * Publisher's preparer, off the thread that publishes): collection() and adopt() of that snapshot then
     * only record it. The newest prepared snapshot per feed is held until then.
     */
    void prepare(std::string const& feed, std::shared_ptr<Snapshot const> const& snap);

    /**
     * @brief The changes from `token` to `now` (a collection this history gave for `feed`).
     * errc::usage when the token is not one of this feed's history: malformed, another epoch, trimmed
     * away, or ahead of `now`.
     */
    Result<Changes> since(std::string const& feed, Collection const& now, std::string_view token) const;

    /** @brief Forgets a feed (removed, or redefined) and its kept history: its tokens stop working. */
    void forget(std::string const& feed);

    /**
     * @brief Where a feed's history is read back from when this process has none of it (after a restart)
     * or a snapshot comes with its own (adopt). Set before the first publication; without it the history
     * lives in memory only.
     */
    void keep_with(std::shared_ptr<HistoryFiles const> keeping);

    /**
     * @brief The collection of a snapshot kept elsewhere (a peer replica's row, the copy kept before a
     * restart), whose history is the one kept with it: the feed's history becomes that one when it reaches
     * `snap`; otherwise as collection().
     */
    std::shared_ptr<Collection const>
    adopt(std::string const& feed, std::shared_ptr<Snapshot const> const& snap, sys_seconds now);

    /**
     * @brief The feed's history up to its newest point with the snapshot `etag`, in the form kept beside the
     * snapshot; empty when it has no such point.
     */
    std::string kept_form(std::string const& feed, std::string_view etag) const;

  private:
    struct Feed;
    struct Prepared;
    /** @brief The cut prepare() made of `snap`, taken out; null when there is none. Under mtx_. */
    std::shared_ptr<Prepared> take_prepared_locked(std::string const& feed, Snapshot const* snap);
    /**
     * @brief `cut` recorded as the feed's next publication (its first: a fresh epoch), under mtx_; `pre`
     * gives its changes when they were found against the feed's latest.
     */
    std::shared_ptr<Collection const> place_locked(
        std::string const& feed,
        std::shared_ptr<Snapshot const> const& snap,
        std::shared_ptr<Collection> cut,
        sys_seconds now,
        Prepared const* pre = nullptr
    );

    std::shared_ptr<HistoryFiles const> keeping_;
    std::chrono::seconds keep_;
    mutable std::mutex mtx_;
    std::map<std::string, std::shared_ptr<Feed>, std::less<>> feeds_;        ///< guarded by mtx_
    std::map<std::string, std::shared_ptr<Prepared>, std::less<>> prepared_; ///< guarded by mtx_
};

/** @brief A collection as the requester sees it. */
struct FeedEntry {
    std::string name;
    std::string title;
    std::string color;                            ///< "#RRGGBB" or empty (no calendar-color)
    std::vector<std::string> components;          ///< VEVENT, VTODO: from the config, not the content
    std::shared_ptr<Collection const> collection; ///< null: not fetched yet (an empty collection)
    bool token = false; ///< a token feed, opened by the login (its push registrations are the subscriber's)
};

/**
 * @brief What the requester may see: the visible feeds; feeds the request names but may not see are absent.
 * The public tree is /dav/ (home /dav/feeds/); a subscriber's is /dav/users/NAME/ (home
 * /dav/users/NAME/feeds/: the public feeds and the token feeds their token opens).
 */
struct Tree {
    std::string base; ///< the path public_url carries ("" or "/calendars"), put before every href
    /// The subscriber the request's Basic login proved (their name, and one of their tokens as the password);
    /// empty: anonymous (no login, or one that names no subscriber or whose password opens nothing)
    std::string user;
    /// Whose tree the request's path is in (the NAME of /dav/users/NAME/…); empty: the public tree. Served
    /// only when it is `user`: anything else is challenged.
    std::string owner;
    /// The login's password is a token a reload took away (from the feed the path names, or from every
    /// feed): 410 Gone where a challenge would be, as for the feed's `.ics`, so the app stops polling
    bool revoked = false;
    std::vector<FeedEntry> feeds;
    /// WebDAV-Push (`[dav] push`): the registrations; null when off (no advertisement, and a registration
    /// is refused with push-not-available)
    PushRegistry* push = nullptr;
    bool push_allow_private = false; ///< `[dav] push_allow_private`: tests only
    sys_seconds now{};               ///< a registration's expiry counts from it
    /// The login's password when `user` is set: a registration keeps a salted digest of it and ends when
    /// the feed stops accepting it. Never logged or shown.
    std::string password;
    FeedEntry const* find(std::string_view name) const;
};

/** @brief The parts of an HTTP request the core reads. */
struct Request {
    std::string_view method;
    std::string_view path;  ///< decoded, without query and without `base`
    std::string_view depth; ///< the Depth header; empty when absent (infinity)
    std::string_view body;
    std::optional<std::string_view> if_none_match;
    bool body_too_large = false;
};

struct Response {
    unsigned status = 200;
    std::vector<std::pair<std::string_view, std::string>> headers;
    std::string body;
    /// Set instead of body for a listing of many items: made a part at a time as it is sent
    std::shared_ptr<BodyStream> stream;
};

/** @brief The largest request body read (vdirsyncer's multiget of 10,000 hrefs fits). */
inline constexpr std::size_t max_body = std::size_t{2} * 1024 * 1024;
/** @brief The largest WebDAV-Push registration body read (a real one is under 1 KB). */
inline constexpr std::size_t max_push_register_body = std::size_t{16} * 1024;

/** @brief Whether a request for `path` (decoded, without base) with `method` is the CalDAV tree's. */
bool owns(std::string_view method, std::string_view path);

/**
 * @brief A feed's collection as a person types it into a CalDAV app: `public_url` + /dav/feeds/FEED/, or for
 * a subscriber's login + /dav/users/USER/feeds/FEED/ (USER: a name from `tokens`, or "subscriber" for a
 * single `token`); with `feed` empty, the principal itself (/dav/ or /dav/users/USER/).
 */
std::string address(std::string_view public_url, std::string_view feed, std::string_view user = {});

/** @brief What a request path names, for the route to cut the tree by: whose tree, which feed. */
struct PathNames {
    std::string_view owner; ///< the NAME of /dav/users/NAME/…; empty: the public tree (or not a tree path)
    std::string_view feed;  ///< the FEED of …/feeds/FEED/…; empty: the principal or the home
    bool home = false;      ///< …/feeds/ itself, which lists every feed the requester may see
};
PathNames names_in(std::string_view path);

/**
 * @brief Answers one request: PROPFIND, REPORT (calendar-multiget, calendar-query, sync-collection), GET,
 * HEAD, OPTIONS; a write is 403 need-privileges; a feed not in `tree`, or a subscriber's tree the login
 * does not open, 401 with a Basic challenge (410 when `tree.revoked`). Pure: no I/O, no clock.
 */
Response answer(Request const& req, Tree const& tree, History const& history);

} // namespace icsbridge::dav
