// File: convert.cpp (bench)
// The baseline `deploy/bench-export.sh` measures `icsbridge export` against: the smallest program a
// self-hoster would write instead — read pages of /v3/users/me/events/ saved as JSON files, parse them,
// build one VEVENT per event with libical, serialize, print the calendar. It reads from files, not over
// HTTP, so it is a lower bound that pays nothing for the network; and it does nothing else (no retries, no
// HTML-to-text, no VTIMEZONE truncation, no folding fixes, no paging logic).
//
//   icsbridge-bench-convert PAGE.json... > OUTPUT.ics
//
// Deliberately not linked with icsbridge_core, so its start-up pays only for Boost.JSON and libical.
#include <boost/json.hpp>

#include <libical/ical.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

namespace json = boost::json;

namespace {

[[noreturn]] void die(std::string const& why) {
    std::fprintf(stderr, "icsbridge-bench-convert: %s\n", why.c_str());
    std::exit(1);
}

std::string read_file(char const* path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        die(std::string("cannot read ") + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string str(json::value const* v) {
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::string at(json::object const& o, char const* a, char const* b = nullptr) {
    json::value const* v = o.if_contains(a);
    if (b)
        v = v && v->is_object() ? v->get_object().if_contains(b) : nullptr;
    return str(v);
}

/** "2027-01-01T09:00:00" (or with Z) -> icaltimetype; zone null means floating (TZID given separately). */
icaltimetype time_of(std::string const& s, bool utc) {
    icaltimetype t = icaltime_null_time();
    if (std::sscanf(
            s.c_str(),
            "%d-%d-%dT%d:%d:%d",
            &t.year,
            &t.month,
            &t.day,
            &t.hour,
            &t.minute,
            &t.second
        ) != 6)
        return icaltime_null_time();
    if (utc)
        t.zone = icaltimezone_get_utc_timezone();
    return t;
}

icalproperty* zoned(icalproperty* p, json::object const& o, char const* key, std::set<std::string>& zones) {
    std::string const tz = at(o, key, "timezone");
    icalproperty_set_value(p, icalvalue_new_datetime(time_of(at(o, key, "local"), false)));
    icalproperty_add_parameter(p, icalparameter_new_tzid(tz.c_str()));
    zones.insert(tz);
    return p;
}

void add_event(
    icalcomponent* cal, json::object const& e, std::string const& host, std::set<std::string>& zones
) {
    icalcomponent* ev = icalcomponent_new(ICAL_VEVENT_COMPONENT);
    std::string const uid = "event-" + at(e, "id") + "@" + host;
    icalcomponent_add_property(ev, icalproperty_new_uid(uid.c_str()));
    icalcomponent_add_property(ev, icalproperty_new_dtstamp(time_of(at(e, "changed"), true)));
    icalcomponent_add_property(ev, zoned(icalproperty_new(ICAL_DTSTART_PROPERTY), e, "start", zones));
    icalcomponent_add_property(ev, zoned(icalproperty_new(ICAL_DTEND_PROPERTY), e, "end", zones));
    icalcomponent_add_property(ev, icalproperty_new_summary(at(e, "name", "text").c_str()));
    if (auto d = at(e, "description", "text"); !d.empty())
        icalcomponent_add_property(ev, icalproperty_new_description(d.c_str()));
    icalcomponent_add_property(ev, icalproperty_new_url(at(e, "url").c_str()));
    if (auto const* v = e.if_contains("venue"); v && v->is_object()) {
        std::string const loc =
            at(v->get_object(), "name") + ", " + at(v->get_object(), "address", "localized_address_display");
        icalcomponent_add_property(ev, icalproperty_new_location(loc.c_str()));
    }
    bool const cancelled = at(e, "status") == "canceled";
    icalcomponent_add_property(
        ev,
        icalproperty_new_status(cancelled ? ICAL_STATUS_CANCELLED : ICAL_STATUS_CONFIRMED)
    );
    icalcomponent_add_component(cal, ev);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2)
        die("usage: icsbridge-bench-convert PAGE.json... > OUTPUT.ics");
    std::string const host = "127.0.0.1";

    icalcomponent* cal = icalcomponent_new(ICAL_VCALENDAR_COMPONENT);
    icalcomponent_add_property(cal, icalproperty_new_version("2.0"));
    icalcomponent_add_property(cal, icalproperty_new_prodid("-//icsbridge//bench-convert//EN"));
    icalcomponent_add_property(cal, icalproperty_new_method(ICAL_METHOD_PUBLISH));
    std::set<std::string> zones;
    for (int i = 1; i < argc; ++i) {
        json::value const doc = json::parse(read_file(argv[i]));
        for (auto const& e : doc.as_object().at("events").as_array())
            add_event(cal, e.as_object(), host, zones);
    }
    // One VTIMEZONE per zone used, as the system tzdata describes it (UTC has none).
    for (auto const& name : zones)
        if (icaltimezone* z = icaltimezone_get_builtin_timezone(name.c_str()))
            if (icalcomponent* vtz = icaltimezone_get_component(z))
                icalcomponent_add_component(cal, icalcomponent_new_clone(vtz));

    char* text = icalcomponent_as_ical_string_r(cal);
    if (std::fputs(text, stdout) < 0 || std::fflush(stdout) != 0)
        die("cannot write the calendar");
    std::free(text);
    icalcomponent_free(cal);
    return 0;
}
