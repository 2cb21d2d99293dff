// File: jobs_fuzz.cpp
// Fuzz target: job board listings JSON -> JobPost model -> VCALENDAR (VTODO and VEVENT forms).
#include "sources/jobs_json.hpp"
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
    auto page = parse_jobs_page(json);
    if (!page)
        return 0;
    CalendarMeta meta{"fuzz", "Fuzz", "", std::chrono::minutes(15), "fuzz.example"};
    auto ics = render_jobs(meta, page->posts, JobRenderOptions{std::chrono::days(30), JobsAs::both});
    if (ics && ics->rfind("BEGIN:VCALENDAR\r\n", 0) != 0)
        __builtin_trap();
    return 0;
}
