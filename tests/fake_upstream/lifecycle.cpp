// File: lifecycle.cpp
// The lifecycle events of the fake upstream (see lifecycle.hpp), in their venue's own zone: the first
// event's San Francisco venue, so America/Los_Angeles, with `local` right on either side of a DST change.
#include "fake_upstream/lifecycle.hpp"

#include <cstdio>

namespace icsbridge::test::fake {

namespace json = boost::json;
using namespace std::chrono;

std::string format_utc(sys_seconds t, bool with_z) {
    auto days = floor<std::chrono::days>(t);
    year_month_day ymd{days};
    hh_mm_ss hms{t - days};
    char buf[96]; // room for any value the compiler can prove, so -Wformat-truncation stays quiet
    std::snprintf(
        buf,
        sizeof buf,
        "%04d-%02u-%02uT%02ld:%02ld:%02ld%s",
        static_cast<int>(ymd.year()),
        static_cast<unsigned>(ymd.month()),
        static_cast<unsigned>(ymd.day()),
        static_cast<long>(hms.hours().count()),
        static_cast<long>(hms.minutes().count()),
        static_cast<long>(hms.seconds().count()),
        with_z ? "Z" : ""
    );
    return buf;
}

json::object dt_tz(sys_seconds utc, char const* zone, minutes offset) {
    return json::object{
        {"timezone", zone},
        {"local", format_utc(utc + offset, false)},
        {"utc", format_utc(utc, true)},
    };
}

std::string lifecycle_text() {
    return "First paragraph, with commas; semicolons and a back\\slash.\n"
           "\n"
           "\tIndented line after a blank one.\n"
           "Columns:\tA\tB\n"
           "\n"
           "\n"
           "Two blank lines above. Unicode: Gr\u00fc\u00dfe \u2014 \u6771\u4eac \U0001F3B5";
}

namespace {

/** US Pacific time: -7h from the second Sunday of March, 10:00 UTC, to the first of November, 09:00 UTC. */
minutes pacific_offset(sys_seconds utc) {
    year const y = year_month_day{floor<days>(utc)}.year();
    sys_seconds const summer = sys_days{y / March / Sunday[2]} + hours(10);
    sys_seconds const winter = sys_days{y / November / Sunday[1]} + hours(9);
    return utc >= summer && utc < winter ? hours(-7) : hours(-8);
}

json::object make_event(
    json::object base,
    std::string const& id,
    std::string const& name,
    std::string const& status,
    sys_seconds start,
    sys_seconds end,
    std::string const& org,
    sys_seconds created
) {
    base["id"] = id;
    base["name"] = json::object{{"text", name}, {"html", name}};
    base["summary"] = name;
    // The venue (the first event's) is in San Francisco: an event there is written in its zone.
    base["start"] = dt_tz(start, "America/Los_Angeles", pacific_offset(start));
    base["end"] = dt_tz(end, "America/Los_Angeles", pacific_offset(end));
    base["status"] = status;
    base["organization_id"] = org;
    base["created"] = format_utc(created, true);
    base["changed"] = format_utc(created + hours(1), true);
    base["published"] = format_utc(created + hours(1), true);
    base["url"] = "https://www.eventbrite.com/e/lifecycle-tickets-" + id;
    base["resource_uri"] = "https://www.eventbriteapi.com/v3/events/" + id + "/";
    base["series_id"] = nullptr;
    base["is_series"] = false;
    base["is_series_parent"] = false;
    base.erase("ticket_classes");
    return base;
}

} // namespace

std::vector<json::object>
lifecycle_events(json::object const& base, std::string const& org, sys_seconds now) {
    // Whole minutes, so two loads in the same minute describe the same events.
    sys_seconds const t = floor<minutes>(now);
    sys_seconds const created = t - days(120);
    std::vector<json::object> out;
    out.push_back(make_event(
        base,
        life::running,
        "Running now: Lifecycle Workshop",
        "started",
        t - hours(1),
        t + hours(2),
        org,
        created
    ));
    out.push_back(make_event(
        base,
        life::ended_10_days,
        "Ended ten days ago: Lifecycle Meetup",
        "completed",
        t - days(10) - hours(2),
        t - days(10),
        org,
        created
    ));
    out.push_back(make_event(
        base,
        life::ended_60_days,
        "Ended sixty days ago: Lifecycle Gala",
        "ended",
        t - days(60) - hours(3),
        t - days(60),
        org,
        created
    ));
    out.push_back(make_event(
        base,
        life::cancelled,
        "Lifecycle Picnic",
        "canceled",
        t + days(3),
        t + days(3) + hours(4),
        org,
        created
    ));
    out.push_back(make_event(
        base,
        life::draft,
        "Draft: Lifecycle Secret Plan",
        "draft",
        t + days(5),
        t + days(5) + hours(1),
        org,
        created
    ));

    auto parent = make_event(
        base,
        life::series_parent,
        "Lifecycle Course (series)",
        "live",
        t + days(1),
        t + days(90),
        org,
        created
    );
    parent["series_id"] = life::series_parent;
    parent["is_series"] = true;
    parent["is_series_parent"] = true;
    out.push_back(std::move(parent));
    for (int k = 0; k < 3; ++k) {
        auto const start = t + days(1 + 7 * k);
        auto ev = make_event(
            base,
            life::series_dates[k],
            "Lifecycle Course, week " + std::to_string(k + 1),
            "live",
            start,
            start + hours(2),
            org,
            created
        );
        ev["series_id"] = life::series_parent;
        ev["is_series"] = true;
        out.push_back(std::move(ev));
    }

    auto text = make_event(
        base,
        life::exact_text,
        "Exact text: Lifecycle Reading",
        "live",
        t + days(2),
        t + days(2) + hours(1),
        org,
        created
    );
    text["description"] = json::object{
        {"text", lifecycle_text()},
        {"html",
         "<p>First paragraph, with commas; semicolons and a back\\slash.</p>"
         "<p onclick=\"alert(1)\">\tIndented line after a blank one.<script>alert('x')</script></p>"
         "<p>Columns:\tA\tB<br><br>Two blank lines above. <a href=\"javascript:alert(2)\">bad link</a> "
         "<a href=\"https://example.com/more?a=1&amp;b=2\" style=\"color:red\">good link</a>"
         "<iframe src=\"https://evil.example/\"></iframe></p>"}};
    out.push_back(std::move(text));
    return out;
}

} // namespace icsbridge::test::fake
