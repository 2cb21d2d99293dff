// File: view.hpp
// Subscriber views of a feed (`/feeds/NAME.ics?alarm=…&from=…&to=…&days=…&category=…&detail=busy`):
// the parameters, read and normalised, and the pure function (snapshot index, parameters) -> calendar.
#pragma once

#include "views/feed_index.hpp"
#include <icsbridge/error.hpp>

#include <boost/url/params_view.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::views {

/// Google Calendar drops a subscribed calendar over about 1 MB without a word; its view stays under this.
inline constexpr std::size_t google_view_limit = 900'000;
/// Over this a feed is warned about (`check`, /healthz): Google would drop it.
inline constexpr std::size_t google_drop_size = 1'000'000;
/// What Google's calendar fetcher sends in User-Agent.
inline constexpr std::string_view google_fetcher = "Google-Calendar-Importer";

/** @brief What a subscriber asked for; an empty (default) value is the plain feed. */
struct ViewParams {
    /// alarm=none: no reminders (0s); alarm=DURATION: one reminder this long before each event
    std::optional<std::chrono::seconds> alarm;
    /// Wall-clock dates, inclusive (days=N resolved against today's UTC date)
    std::optional<std::chrono::sys_days> from, to;
    std::vector<std::string> categories; ///< lower-cased, sorted, unique; an item needs one of them
    bool busy = false;                   ///< detail=busy
    bool uses_today = false;             ///< `days` or `for` was given: the view moves at midnight UTC
    /// for=google: no VALARM, no X-ALT-DESC, from today on (unless `from` says otherwise), the farthest
    /// items left out until it is under google_view_limit
    bool google = false;
    /// Not a parameter: the feed's URL (no token), linked from a google view's description when items are
    /// left out. Set by the server.
    std::string full_url;

    bool empty() const { return !alarm && !from && !to && categories.empty() && !busy && !google; }
    /** @brief A canonical text of the parameters: equal views have equal keys, whatever the URL's order. */
    std::string key() const;
};

/**
 * @brief Reads the view parameters of a query; other parameters (token, ones calendar apps add) are
 * ignored. `today` resolves days=N to [today, today + N - 1].
 * @return errc::usage with a one-line message naming the parameter for an invalid or repeated value
 */
Result<ViewParams> parse_view_params(boost::urls::params_view params, std::chrono::sys_days today);

/** @brief A built view: the calendar text and how many items it holds. */
struct ViewText {
    std::string body;
    std::size_t items = 0;
};

/**
 * @brief The view of the calendar `body` (indexed as `index`) for `p`. Pure: same inputs, same bytes.
 * Items are kept when they overlap [from, to] (wall-clock dates), carry one of the categories and,
 * for detail=busy, are not cancelled (a cancelled event makes nobody busy). A google view then leaves out
 * the farthest items (by start) until it fits google_view_limit, and says so in X-WR-CALDESC.
 */
ViewText build_view(std::string_view body, FeedIndex const& index, ViewParams const& p);

/** @brief The view a request gets without view parameters: the google view for Google's fetcher when the
 * feed is too large for Google (`user_agent` names google_fetcher and the body is over google_view_limit).
 */
bool google_wants_smaller(std::string_view user_agent, std::size_t body_size);

/** @brief For `check` and /healthz: what to do about a calendar of `bytes` that Google would drop (over
 * google_drop_size); empty when Google takes it. */
std::string google_size_warning(std::size_t bytes);

} // namespace icsbridge::views
