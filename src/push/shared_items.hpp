// File: shared_items.hpp
// The feeds' items shaped for one kind of calendar once per publication, and shared read-only by every
// writer (a target, a subscriber's connection) that mirrors the same feeds through the same views: a
// thousand connections of one feed hold one copy. What differs per writer (the names, the hashes of what it
// writes, its mark) is made per reconcile by writer_items() and by the adapter when it builds a request.
#pragma once

#include "push/plan.hpp"
#include "push/target_items.hpp"
#include <icsbridge/error.hpp>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::push {

class CalendarApi;

/** @brief A target's items as its kind of calendar takes them, before any writer's name or mark. */
struct ShapedItems {
    std::vector<Resource> resources; ///< unnamed; bodies and hashes as CalendarApi::shape() made them
    std::size_t skipped_todos = 0;   ///< job posts left out because the calendar takes no VTODO
};

/** @brief target_items(), then `api.shape()`: errors name the feed or the item, not the target. */
Result<ShapedItems> shape_items(
    std::vector<FeedCalendar> const& feeds, bool todos, std::chrono::sys_days today, CalendarApi const& api
);

/**
 * @brief What `writer` wants in the calendar: one Resource per shared item, in the same order, with its
 * name (name_resources(): adopted from `known` while `listing` holds it, else the writer's own) and the hash
 * of what the writer writes (CalendarApi::hash_for). No body: the shared item's is written.
 */
std::vector<Resource> writer_items(
    ShapedItems const& shared,
    CalendarApi const& api,
    std::string_view writer,
    Known const& known,
    Listing const& listing
);

/**
 * @brief The shaped items of the calendars being pushed, one copy per (feeds' snapshots, views, form, job
 * posts taken or not, day): the copy a publication made obsolete is dropped from here when the next one
 * comes (forget), and freed when the last reconcile holding it ends. One thread's (the push thread).
 */
class SharedItems {
  public:
    /** @brief shape_items() for `feeds`, or the copy already made from the same snapshots. */
    Result<std::shared_ptr<ShapedItems const>>
    get(std::vector<FeedCalendar> const& feeds,
        bool todos,
        std::chrono::sys_days today,
        CalendarApi const& api);

    /** @brief `feed` has a new calendar: the copies made from its earlier ones go. */
    void forget(std::string const& feed);

    /** @brief The copies held. */
    std::size_t size() const { return entries_.size(); }

  private:
    struct Entry {
        std::vector<std::string> feeds;
        /// The snapshot bodies it was made from, with their owners: held, so that no later snapshot can have
        /// their address
        std::vector<std::pair<std::shared_ptr<void const>, char const*>> bodies;
        std::chrono::sys_days today{};
        std::shared_ptr<ShapedItems const> items;
    };
    std::map<std::string, Entry> entries_; ///< by form, job posts, and each feed's name and view
};

/** @brief `cache->get()`, or with no cache (`icsbridge push`) shape_items() for this run alone. */
Result<std::shared_ptr<ShapedItems const>> shared_items(
    SharedItems* cache,
    std::vector<FeedCalendar> const& feeds,
    bool todos,
    std::chrono::sys_days today,
    CalendarApi const& api
);

} // namespace icsbridge::push
