// File: convert.cpp (bench)
// The baseline `deploy/bench-export.sh` measures `icsbridge export` against: the smallest program a
// self-hoster would write instead — read pages of /v3/users/me/events/ saved as JSON files, parse them,
// build one VEVENT per event with libical, serialize, print the calendar. It reads from files, not over
// HTTP, so it is a lower bound that pays nothing for the network; and it does nothing else (no retries, no
// HTML-to-text or sanitizing, no VTIMEZONE truncation, no folding fixes, no paging logic). It writes every
// property `export` writes for an organizer's events (X-ALT-DESC with the upstream's HTML as it is, GEO,
// ORGANIZER, CATEGORIES, SEQUENCE, the calendar's names and refresh hints), so the ratio compares the same
// output. Frozen since issue 39: a change here moves the baseline every figure is measured against.
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
#include <map>
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

/** Seconds between two RFC 3339 UTC times ("…Z"), as SEQUENCE (0 when either is missing). */
int seconds_between(std::string const& from, std::string const& to) {
    icaltimetype const a = time_of(from, true), b = time_of(to, true);
    if (icaltime_is_null_time(a) || icaltime_is_null_time(b))
        return 0;
    return static_cast<int>(icaltime_as_timet(b) - icaltime_as_timet(a));
}

std::string const& category_name(std::string const& id) {
    static std::map<std::string, std::string> const names = {
        {"101", "Business & Professional"},
        {"102", "Science & Technology"},
        {"103", "Music"},
        {"104", "Film, Media & Entertainment"},
        {"105", "Performing & Visual Arts"},
        {"106", "Fashion & Beauty"},
        {"107", "Health & Wellness"},
        {"108", "Sports & Fitness"},
        {"109", "Travel & Outdoor"},
        {"110", "Food & Drink"},
        {"111", "Charity & Causes"},
        {"112", "Government & Politics"},
        {"113", "Community & Culture"},
        {"114", "Religion & Spirituality"},
        {"115", "Family & Education"},
        {"116", "Seasonal & Holiday"},
        {"117", "Home & Lifestyle"},
        {"118", "Auto, Boat & Air"},
        {"119", "Hobbies & Special Interest"},
        {"120", "School Activities"},
        {"199", "Other"},
    };
    static std::string const none;
    auto it = names.find(id);
    return it == names.end() ? none : it->second;
}

icalproperty* add_x(icalcomponent* c, char const* name, std::string const& value) {
    icalproperty* p = icalproperty_new_x(value.c_str());
    icalproperty_set_x_name(p, name);
    icalcomponent_add_property(c, p);
    return p;
}

void add_venue(icalcomponent* ev, json::object const& v) {
    std::string const loc = at(v, "name") + ", " + at(v, "address", "localized_address_display");
    icalcomponent_add_property(ev, icalproperty_new_location(loc.c_str()));
    std::string const lat = at(v, "address", "latitude"), lon = at(v, "address", "longitude");
    if (!lat.empty() && !lon.empty())
        icalcomponent_add_property(
            ev,
            icalproperty_new_geo({std::atof(lat.c_str()), std::atof(lon.c_str())})
        );
}

void add_organizer(icalcomponent* ev, json::object const& o) {
    icalproperty* p = icalproperty_new_organizer(at(o, "url").c_str());
    icalproperty_add_parameter(p, icalparameter_new_cn(at(o, "name").c_str()));
    icalcomponent_add_property(ev, p);
}

void add_event(
    icalcomponent* cal, json::object const& e, std::string const& host, std::set<std::string>& zones
) {
    icalcomponent* ev = icalcomponent_new(ICAL_VEVENT_COMPONENT);
    std::string const uid = "event-" + at(e, "id") + "@" + host;
    icalcomponent_add_property(ev, icalproperty_new_uid(uid.c_str()));
    icalcomponent_add_property(ev, icalproperty_new_dtstamp(time_of(at(e, "changed"), true)));
    icalcomponent_add_property(ev, icalproperty_new_created(time_of(at(e, "created"), true)));
    icalcomponent_add_property(ev, icalproperty_new_lastmodified(time_of(at(e, "changed"), true)));
    icalcomponent_add_property(
        ev,
        icalproperty_new_sequence(seconds_between(at(e, "created"), at(e, "changed")))
    );
    icalcomponent_add_property(ev, zoned(icalproperty_new(ICAL_DTSTART_PROPERTY), e, "start", zones));
    icalcomponent_add_property(ev, zoned(icalproperty_new(ICAL_DTEND_PROPERTY), e, "end", zones));
    icalcomponent_add_property(ev, icalproperty_new_summary(at(e, "name", "text").c_str()));
    std::string const url = at(e, "url");
    if (auto d = at(e, "description", "text"); !d.empty())
        icalcomponent_add_property(ev, icalproperty_new_description((d + "\n\n" + url).c_str()));
    if (auto h = at(e, "description", "html"); !h.empty())
        icalproperty_add_parameter(add_x(ev, "X-ALT-DESC", h), icalparameter_new_fmttype("text/html"));
    icalcomponent_add_property(ev, icalproperty_new_url(url.c_str()));
    if (auto const* v = e.if_contains("venue"); v && v->is_object())
        add_venue(ev, v->get_object());
    if (auto const* o = e.if_contains("organizer"); o && o->is_object())
        add_organizer(ev, o->get_object());
    if (auto const& c = category_name(at(e, "category_id")); !c.empty())
        icalcomponent_add_property(ev, icalproperty_new_categories(c.c_str()));
    bool const cancelled = at(e, "status") == "canceled";
    icalcomponent_add_property(
        ev,
        icalproperty_new_status(cancelled ? ICAL_STATUS_CANCELLED : ICAL_STATUS_CONFIRMED)
    );
    icalcomponent_add_property(ev, icalproperty_new_transp(ICAL_TRANSP_OPAQUE));
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
    icalcomponent_add_property(cal, icalproperty_new_calscale("GREGORIAN"));
    icalcomponent_add_property(cal, icalproperty_new_method(ICAL_METHOD_PUBLISH));
    icalcomponent_add_property(cal, icalproperty_new_name("bench"));
    add_x(cal, "X-WR-CALNAME", "bench");
    add_x(cal, "X-WR-CALDESC", "Events from bench, published by icsbridge");
    icalproperty* refresh = icalproperty_new_refreshinterval(icaldurationtype_from_int(15 * 60));
    icalproperty_add_parameter(refresh, icalparameter_new_value(ICAL_VALUE_DURATION));
    icalcomponent_add_property(cal, refresh);
    add_x(cal, "X-PUBLISHED-TTL", "PT15M");
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
