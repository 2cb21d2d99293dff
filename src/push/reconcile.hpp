// File: reconcile.hpp
// One reconcile of one target: find its calendar, list our resources (cheaply, from the sync token), plan
// the writes that make them equal the feeds' items, and make them, max_concurrency at a time, recording
// each in the target's state as it lands, so a process killed at any moment resumes without a duplicate.
#pragma once

#include "push/calendar_api.hpp"
#include "push/shared_items.hpp"
#include "push/state.hpp"
#include "push/target_items.hpp"
#include <icsbridge/persistence.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace icsbridge::push {

/** @brief The state file of `target` under `storage_dir`. */
Persistence<KeptState> state_file(std::string const& storage_dir, std::string const& target);

/** @brief What one reconcile did (or, in a dry run, would do). */
struct Outcome {
    std::size_t created = 0, updated = 0, deleted = 0, unchanged = 0;
    std::size_t requests = 0;
    std::size_t conflicts = 0;        ///< 412 answers after which the item was read again and written
    std::size_t items = 0;            ///< our items in the calendar afterwards
    std::size_t skipped_todos = 0;    ///< job posts the calendar cannot take
    std::vector<std::string> refused; ///< items the server would not take, one reason each
    std::vector<Op> planned;          ///< a dry run's writes
    std::size_t writes_planned = 0;   ///< the writes the plan asked for
    bool created_calendar = false;
};

struct ReconcileOptions {
    /// Whose items these are: the target's name, or a connection's "connection-ID" (plan.hpp, writer_tag)
    std::string writer;
    bool dry_run = false;
    std::chrono::sys_days today{};
    /// Called after each write lands (with the counts so far): progress for the queue gauges.
    std::function<void(Outcome const&)> on_write;
    /// Asked once the calendar is found, before anything is written: an error (another writer of this
    /// process writes into that calendar) ends the reconcile there.
    std::function<Result<void>(std::string const& calendar)> claim;
    /// Asked before each write: true ends the reconcile there (the process or the target is stopping);
    /// what landed is recorded, the rest is done next time.
    std::function<bool()> cancelled;
    /// The items shaped for every writer of these feeds (the push thread's); null: shaped for this run
    SharedItems* shared = nullptr;
};

/**
 * @brief Makes our items in `target`'s calendar equal `feeds`' items. An error when the target cannot be
 * worked with (unreachable, 401, 403, not a calendar, quota, throttled too long): what landed before it
 * is recorded all the same. Items the server refuses one by one are listed in Outcome::refused.
 */
boost::asio::awaitable<Result<Outcome>> reconcile(
    CalendarApi& api,
    std::vector<FeedCalendar> const& feeds,
    Persistence<KeptState> const& keeping,
    ReconcileOptions const& options
);

} // namespace icsbridge::push
