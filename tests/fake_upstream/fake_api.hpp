// File: fake_api.hpp
// The fake upstream's pure core: its data set (loaded from fixture JSON) and request -> reply for both APIs.
// No sockets here, so the routing is easy to read and to test.
#pragma once

#include "fake_upstream/fake_paging.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace icsbridge::test::fake {

/** @brief Everything the fake serves; immutable once loaded (swapped whole on reload). */
struct UpstreamData {
    std::vector<boost::json::object> events; ///< ordered by start.utc, then id
    std::unordered_map<std::string, std::size_t> event_index;
    boost::json::array organizations;
    boost::json::object ticket_classes; ///< event id -> array of ticket classes
    boost::json::object user;
    std::vector<boost::json::object> listings; ///< newest post_date first, then id
    std::unordered_map<std::string, std::size_t> listing_index;
    std::string last_update;
    boost::json::value categories;
    boost::json::value tags;
    /// Event lists already filtered for a question (see handle_events); the data itself never changes.
    mutable std::mutex lists_mtx;
    mutable std::unordered_map<std::string, std::shared_ptr<std::vector<boost::json::object const*> const>>
        lists;
    /// Each event as served, by expansion set (see render_events).
    mutable std::map<std::pair<boost::json::object const*, std::string>, std::string> serialized;
};

/** @brief Events made up from the fixture's (for benchmarks): how many, and how long their descriptions. */
struct Synthesis {
    int events = 0;            ///< >0: this many events replace the fixture list
    int description_bytes = 0; ///< >0: each has an HTML description of about this size (and its text)
};

/**
 * @brief Reads DIR/events/{events,organizations,ticket_classes,user}.json and DIR/jobs/{listings,categories,
 * tags}.json. With generate.events > 0 the event list is synthesized instead (for benchmarks). With
 * `lifecycle`, the events of lifecycle.hpp (dated around the current time) are added to the first
 * organization.
 * @return nullptr and a message in `error` if a file is missing or malformed.
 */
std::shared_ptr<UpstreamData const>
load_data(std::string const& dir, Synthesis const& generate, std::string& error, bool lifecycle = false);

struct ApiSettings {
    std::string events_token;
    std::string jobs_api_key;
    int events_page_size = 10;
    bool ignore_expand = false;
    std::optional<std::chrono::sys_seconds> now; ///< time_filter's "now"; empty: the real clock
    PagingRules paging;                          ///< page=N accepted or not; the list's moved head
};

struct ApiRequest {
    std::string method;
    std::string path; ///< decoded
    std::vector<std::pair<std::string, std::string>> query;
    std::string authorization;

    /** @brief The first value of query parameter `key`, or nullptr. */
    std::string const* param(std::string_view key) const;
};

struct ApiReply {
    unsigned status = 200;
    std::string body;
    std::string content_type = "application/json";
    std::vector<std::pair<std::string, std::string>> headers;
    bool list_page = false; ///< a page of an events list (counted for ListShift::after_pages)
};

/** @brief Which API a path belongs to; decides the shape of error bodies. */
enum class Api { events, jobs, other };
Api api_of(std::string_view path);

/** @brief Answers one API request (GET/HEAD under /v3/ or /api/). */
ApiReply handle_api(UpstreamData const& data, ApiSettings const& settings, ApiRequest const& req);

/** @brief The body of an injected error status (500, 429) in the API's own error shape. */
std::string error_body(Api api, unsigned status);

} // namespace icsbridge::test::fake
