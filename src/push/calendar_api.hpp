// File: calendar_api.hpp
// What the reconcile engine asks of a kind of calendar (CalDAV, Google Calendar, Microsoft Graph): find the
// calendar, list our items in it cheaply, make one write, read one item's version. The engine owns the
// plan, the concurrency, the state and the rules (the feed wins, foreign items untouched); an adapter
// speaks one API and says what each answer means.
#pragma once

#include "push/caldav_calendar.hpp"
#include "push/state.hpp"
#include "push/target_client.hpp"

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::push {

/** @brief What became of one write. */
struct WriteAnswer {
    enum class Kind {
        done,     ///< written (etag, and the server's id when it chose one)
        gone,     ///< an update or delete found nothing there
        conflict, ///< the item changed (or exists) behind our back: read its version and decide again
        refused,  ///< this item only: the server will not take it (`why`)
        stop,     ///< the target cannot be worked with now (`why`): the reconcile ends
    };
    Kind kind = Kind::done;
    std::string etag;
    std::string id;
    Error why;
};

class CalendarApi {
  public:
    virtual ~CalendarApi() = default;

    /** @brief The keys that say which calendar the config means (server, name or id), as one string. */
    virtual std::string calendar_identity() const = 0;

    /** @brief The target's HTTP side: pacing, retries, counts. */
    virtual TargetClient& client() = 0;

    /** @brief The form shape() gives ("caldav", "google", "graph"): writers of one form share its items. */
    virtual std::string_view item_form() const = 0;

    /**
     * @brief The feed's resources (one VCALENDAR per UID) in the form this API writes: CalDAV keeps them,
     * Google and Graph turn each into an event's JSON (job posts become all-day events), its hash taken of
     * that. Nothing of one writer goes in (no name, no mark): every writer of this form shares the result
     * (shared_items.hpp); write() adds the writer's parts when it builds the request.
     */
    virtual Result<std::vector<Resource>> shape(std::vector<Resource> resources) const = 0;

    /**
     * @brief The hash of what this writer writes for `shared` (an item of shape()) named `name`: the shared
     * hash, unless the request carries the writer's parts (Google's event id and owner property).
     */
    virtual std::string hash_for(Resource const& shared, std::string const& name) const {
        (void)name;
        return shared.hash;
    }

    /** @brief Whether job posts (VTODO) go in at all: a CalDAV collection says; the others convert them. */
    virtual bool takes_todos(TargetState const& state) const { return state.todos; }

    /** @brief The calendar to write into, created when missing unless `create` is false (a dry run). */
    virtual boost::asio::awaitable<Result<Collection>> find_calendar(bool create) = 0;

    /**
     * @brief Our items in `state.collection` (name -> version), in full or since `state.sync_token`. May
     * record ids in `state.ids`. errc::upstream_not_found when the calendar is gone.
     */
    virtual boost::asio::awaitable<Result<ListingUpdate>> list_ours(TargetState& state) = 0;

    /** @brief One create, update or delete; `resource` (a shared item of shape()) is null for a delete. */
    virtual boost::asio::awaitable<Result<WriteAnswer>>
    write(TargetState const& state, Op const& op, Resource const* resource) = 0;

    /** @brief The version of item `name` now; nullopt when it is gone. */
    virtual boost::asio::awaitable<Result<std::optional<std::string>>>
    version_now(TargetState const& state, std::string const& name) = 0;

    /**
     * @brief Deletes the calendar `state.collection` with everything in it: a subscriber's disconnect asked
     * for it, and only a calendar icsbridge created is asked. Already gone counts as done. CalDAV: not
     * offered (errc::usage).
     */
    virtual boost::asio::awaitable<Result<void>> delete_calendar(TargetState const& state);
};

/** @brief DELETE `url` (a calendar of Google's or Graph's): 2xx, 404 and 410 are done, else the refusal. */
boost::asio::awaitable<Result<void>> delete_calendar_at(TargetClient& http, std::string url);

/** @brief How a Google or Microsoft target is authorized (the oauth room's tokens for it). */
using Authorizers = std::function<Authorizer(boost::asio::any_io_executor, TargetConfig const&)>;

/**
 * @brief The adapter for `target`'s type. `oauth` authorizes Google and Microsoft targets (an empty one
 * makes every request fail as "not connected"); CalDAV ignores it.
 */
std::unique_ptr<CalendarApi>
calendar_api(boost::asio::any_io_executor ex, TargetConfig const& target, Logger log, Authorizer oauth);

/** @brief The Google Calendar API v3 adapter. */
std::unique_ptr<CalendarApi>
google_api(boost::asio::any_io_executor ex, TargetConfig const& target, Logger log, Authorizer auth);

/** @brief The Microsoft Graph adapter (/me/calendars). */
std::unique_ptr<CalendarApi>
graph_api(boost::asio::any_io_executor ex, TargetConfig const& target, Logger log, Authorizer auth);

/** @brief The CalDAV adapter (RFC 4791), Basic authorization from the target's username and password. */
std::unique_ptr<CalendarApi>
caldav_api(boost::asio::any_io_executor ex, TargetConfig const& target, Logger log);

} // namespace icsbridge::push
