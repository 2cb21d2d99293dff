// File: shared_items.cpp
// shape_items() and writer_items(): the shared part of a target's items and each writer's names and hashes
// over it. SharedItems: the copies, keyed by what shaped them, checked against the snapshots they came from.
#include "push/shared_items.hpp"

#include "push/calendar_api.hpp"

#include <algorithm>

namespace icsbridge::push {

Result<ShapedItems> shape_items(
    std::vector<FeedCalendar> const& feeds, bool todos, std::chrono::sys_days today, CalendarApi const& api
) {
    auto items = target_items(feeds, todos, today);
    if (!items)
        return items.error();
    auto shaped = api.shape(std::move(items->resources));
    if (!shaped)
        return shaped.error();
    return ShapedItems{std::move(*shaped), items->skipped_todos};
}

auto writer_items(
    ShapedItems const& shared,
    CalendarApi const& api,
    std::string_view writer,
    Known const& known,
    Listing const& listing
) -> std::vector<Resource> {
    std::vector<Resource> out;
    out.reserve(shared.resources.size());
    for (auto const& r : shared.resources)
        out.push_back(Resource{r.uid, {}, {}, {}, r.todo, r.start, r.end});
    name_resources(out, writer, known, listing);
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i].hash = api.hash_for(shared.resources[i], out[i].name);
    return out;
}

namespace {

std::string key_of(std::vector<FeedCalendar> const& feeds, bool todos, CalendarApi const& api) {
    std::string key(api.item_form());
    key += todos ? "\n+todos" : "\n-todos";
    for (auto const& f : feeds)
        key += "\n" + f.feed + "\n" + f.view;
    return key;
}

bool same_snapshots(
    std::vector<std::pair<std::shared_ptr<void const>, char const*>> const& held,
    std::vector<FeedCalendar> const& feeds
) {
    return std::equal(held.begin(), held.end(), feeds.begin(), feeds.end(), [](auto const& h, auto const& f) {
        return h.second == f.body.data();
    });
}

} // namespace

Result<std::shared_ptr<ShapedItems const>> SharedItems::get(
    std::vector<FeedCalendar> const& feeds, bool todos, std::chrono::sys_days today, CalendarApi const& api
) {
    auto const key = key_of(feeds, todos, api);
    if (auto const it = entries_.find(key);
        it != entries_.end() && it->second.today == today && same_snapshots(it->second.bodies, feeds))
        return it->second.items;
    auto shaped = shape_items(feeds, todos, today, api);
    if (!shaped) {
        entries_.erase(key);
        return shaped.error();
    }
    Entry e{{}, {}, today, std::make_shared<ShapedItems const>(std::move(*shaped))};
    for (auto const& f : feeds) {
        e.feeds.push_back(f.feed);
        e.bodies.emplace_back(f.owner, f.body.data());
    }
    auto items = e.items;
    entries_.insert_or_assign(key, std::move(e));
    return items;
}

void SharedItems::forget(std::string const& feed) {
    std::erase_if(entries_, [&feed](auto const& entry) {
        auto const& feeds = entry.second.feeds;
        return std::find(feeds.begin(), feeds.end(), feed) != feeds.end();
    });
}

auto shared_items(
    SharedItems* cache,
    std::vector<FeedCalendar> const& feeds,
    bool todos,
    std::chrono::sys_days today,
    CalendarApi const& api
) -> Result<std::shared_ptr<ShapedItems const>> {
    if (cache)
        return cache->get(feeds, todos, today, api);
    auto shaped = shape_items(feeds, todos, today, api);
    if (!shaped)
        return shaped.error();
    return std::make_shared<ShapedItems const>(std::move(*shaped));
}

} // namespace icsbridge::push
