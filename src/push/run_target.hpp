// File: run_target.hpp
// One run of one push target, for `icsbridge push` and serve's loops alike: the reconcile's options, the
// call, the counts of requests and conflicts it made, and the words for what went wrong. The callers only
// gather the feeds' calendars and show the report (a line on the terminal; the status registry and log).
#pragma once

#include "push/calendar_claims.hpp"
#include "push/reconcile.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace icsbridge::push {

struct RunOptions {
    std::string writer; ///< the target's name, or a connection's "connection-ID"
    bool dry_run = false;
    /// The calendars this process's writers write into (null: none asked): a second writer of one is refused.
    CalendarClaims* claims = nullptr;
    /// Asked before each write: true ends the run there (the process, the target or its lease is going).
    std::function<bool()> cancelled;
    /// Called after each write lands, with the counts so far.
    std::function<void(Outcome const&)> on_write;
    /// The items shaped for every writer of the same feeds (serve's push thread); null: shaped for this run
    SharedItems* shared = nullptr;
};

/** @brief What one run did, and what to tell about it. */
struct Report {
    Result<Outcome> outcome = fail(errc::shutdown, "not run");
    std::size_t requests = 0;  ///< requests made by this run
    std::size_t conflicts = 0; ///< 412 answers this run met
    /// Why the run failed ("" when it did not): the error that ended it, or the items the server refused.
    std::string failure;
    /// Job posts left out because the calendar takes no tasks ("" when none were).
    std::string todos_note;
    bool ok() const { return failure.empty(); }
};

/**
 * @brief Reconciles `api`'s calendar with `feeds` (today's date from the clock), keeping the state through
 * `keeping`; a dry run saves nothing.
 */
boost::asio::awaitable<Report> run_target(
    CalendarApi& api,
    std::vector<FeedCalendar> const& feeds,
    Persistence<KeptState> const& keeping,
    RunOptions const& options
);

} // namespace icsbridge::push
