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

/** @brief What a subscriber asked for; an empty (default) value is the plain feed. */
struct ViewParams {
    /// alarm=none: no reminders (0s); alarm=DURATION: one reminder this long before each event
    std::optional<std::chrono::seconds> alarm;
    /// Wall-clock dates, inclusive (days=N resolved against today's UTC date)
    std::optional<std::chrono::sys_days> from, to;
    std::vector<std::string> categories; ///< lower-cased, sorted, unique; an item needs one of them
    bool busy = false;                   ///< detail=busy
    bool uses_today = false;             ///< `days` was given: the view moves at midnight UTC

    bool empty() const { return !alarm && !from && !to && categories.empty() && !busy; }
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
 * for detail=busy, are not cancelled (a cancelled event makes nobody busy).
 */
ViewText build_view(std::string_view body, FeedIndex const& index, ViewParams const& p);

} // namespace icsbridge::views
