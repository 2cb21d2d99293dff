// File: merge_select.cpp
// merged_item_kept() and replace_alarms(): read and change one parsed item with libical; the matching
// itself is the feed filter's (pipeline/feed_filter), so a merge filters exactly as a feed does.
#include "ical/merge_select.hpp"

#include "ical/builder.hpp"
#include "model/feed_filter.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::ical {

namespace {

/** The text values of every `kind` property of `c` (libical splits CATEGORIES lists into one each). */
std::vector<std::string_view> texts_of(icalcomponent* c, icalproperty_kind kind) {
    std::vector<std::string_view> out;
    for (icalproperty* p = icalcomponent_get_first_property(c, kind); p != nullptr;
         p = icalcomponent_get_next_property(c, kind)) {
        // icalproperty_get_value_as_string would escape the text again; the value's own string is as
        // the subscriber reads it.
        if (icalvalue* v = icalproperty_get_value(p); v != nullptr)
            if (char const* s = icalvalue_get_text(v); s != nullptr)
                out.emplace_back(s);
    }
    return out;
}

} // namespace

bool merged_item_kept(FeedFilter const& f, icalcomponent* item) {
    if (f.empty())
        return true;
    auto const categories = texts_of(item, ICAL_CATEGORIES_PROPERTY);
    auto texts = texts_of(item, ICAL_SUMMARY_PROPERTY);
    for (auto d : texts_of(item, ICAL_DESCRIPTION_PROPERTY))
        texts.push_back(d);
    // The renderer's own markers: event_location() writes "Online", a remote post gets the "Remote" category.
    auto const locations = texts_of(item, ICAL_LOCATION_PROPERTY);
    bool online = false;
    for (auto l : locations)
        online = online || l == "Online";
    for (auto c : categories)
        online = online || c == "Remote";
    return filter_keeps(f, categories, texts, online);
}

bool replace_alarms(icalcomponent* item, std::chrono::seconds before) {
    // Collected first: removing a component while iterating skips its neighbour.
    std::vector<icalcomponent*> alarms;
    for (icalcomponent* a = icalcomponent_get_first_component(item, ICAL_VALARM_COMPONENT); a != nullptr;
         a = icalcomponent_get_next_component(item, ICAL_VALARM_COMPONENT))
        alarms.push_back(a);
    for (icalcomponent* a : alarms) {
        icalcomponent_remove_component(item, a);
        icalcomponent_free(a);
    }
    // As a feed's alarm: events only (a to-do has no start to remind of), none for a cancelled event.
    if (icalcomponent_isa(item) != ICAL_VEVENT_COMPONENT ||
        icalcomponent_get_status(item) == ICAL_STATUS_CANCELLED)
        return true;
    char const* summary = icalcomponent_get_summary(item);
    ComponentPtr alarm = display_alarm(summary != nullptr && *summary ? summary : "Reminder", before);
    if (!alarm)
        return false;
    icalcomponent_add_component(item, alarm.release());
    return true;
}

} // namespace icsbridge::ical
