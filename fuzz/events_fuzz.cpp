// File: events_fuzz.cpp
// Fuzz target: events API page JSON -> Event model -> VCALENDAR, as a refresh would run it.
#include "sources/events_json.hpp"
#include <icsbridge/ical.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    icsbridge::init_libical();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
    using namespace icsbridge;
    std::string_view json(reinterpret_cast<char const*>(data), size);
    auto page = parse_events_page(json);
    if (!page)
        return 0;
    CalendarMeta meta{"fuzz", "Fuzz", "", std::chrono::minutes(15), "fuzz.example"};
    for (auto policy : {CancelledPolicy::status, CancelledPolicy::drop}) {
        EventRenderOptions opts{std::chrono::hours(1), policy};
        auto ics = render_events(meta, page->events, opts);
        // A calendar we render must always be a calendar, whatever the upstream sent.
        if (ics && ics->rfind("BEGIN:VCALENDAR\r\n", 0) != 0)
            __builtin_trap();
    }
    return 0;
}
