// File: event_json.cpp
// event_fields() reads an item with libical (its own times and zone, its alarm); google_event() and
// graph_event() write the two APIs' JSON with Boost.JSON. Graph is given UTC times: it names zones its own
// (Windows) way, and UTC needs no table.
#include "push/event_json.hpp"

#include "ical/ical_ptr.hpp"
#include "ical/timezones.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <string>

namespace icsbridge::push {

namespace json = boost::json;
using ical::ComponentPtr;

namespace {

std::string text_of(icalcomponent* c, icalproperty_kind kind) {
    icalproperty* p = icalcomponent_get_first_property(c, kind);
    if (!p)
        return {};
    icalvalue* value = icalproperty_get_value(p);
    // Text values come back escaped ("\\n", "\\,") from get_value_as_string; get_text is the plain text.
    char const* v = value && icalvalue_isa(value) == ICAL_TEXT_VALUE ? icalvalue_get_text(value)
                                                                     : icalproperty_get_value_as_string(p);
    return v ? v : "";
}

std::string date_text(icaltimetype t) {
    char out[16];
    std::snprintf(out, sizeof out, "%04d-%02d-%02d", t.year, t.month, t.day);
    return out;
}

std::string time_text(icaltimetype t) {
    char out[32];
    std::snprintf(
        out,
        sizeof out,
        "%04d-%02d-%02dT%02d:%02d:%02d",
        t.year,
        t.month,
        t.day,
        t.hour,
        t.minute,
        t.second
    );
    return out;
}

/** A date-time of `p` with its TZID (or UTC), converted to UTC as well. */
struct Moment {
    icaltimetype local{};
    std::string tzid;
    icaltimetype utc{};
};

Moment moment_of(icalproperty* p, icaltimetype t) {
    Moment m;
    m.local = t;
    m.utc = t;
    icalparameter* tz = icalproperty_get_first_parameter(p, ICAL_TZID_PARAMETER);
    char const* name = tz ? icalparameter_get_tzid(tz) : nullptr;
    icaltimezone* zone = name ? ical::builtin_zone(name) : nullptr;
    if (zone) {
        m.tzid = name;
        m.utc = ical::in_utc(t, zone);
    }
    // A TZID libical does not know: the wall time is all there is; read it as UTC rather than drop it.
    return m;
}

icaltimetype next_day(icaltimetype d) {
    icaltime_adjust(&d, 1, 0, 0, 0);
    return d;
}

void read_times(icalcomponent* item, bool task, EventFields& f, icaltimetype start, icalproperty* start_p) {
    icalproperty* end_p = task ? nullptr : icalcomponent_get_first_property(item, ICAL_DTEND_PROPERTY);
    icaltimetype end = end_p ? icalproperty_get_dtend(end_p) : icaltime_null_time();
    f.all_day = task || start.is_date;
    if (f.all_day) {
        f.start_date = date_text(start);
        f.end_date = date_text(
            end_p && end.is_date && icaltime_compare_date_only(end, start) > 0 ? end : next_day(start)
        );
        return;
    }
    auto const s = moment_of(start_p, start);
    auto const e = end_p && !icaltime_is_null_time(end) ? moment_of(end_p, end) : s;
    // An end in another zone than the start: both in UTC then.
    bool const same_zone = e.tzid == s.tzid;
    f.tzid = same_zone ? s.tzid : std::string();
    f.start_local = time_text(same_zone ? s.local : s.utc);
    f.end_local = time_text(same_zone ? e.local : e.utc);
    f.start_utc = time_text(s.utc);
    f.end_utc = time_text(e.utc);
}

std::optional<int> alarm_of(icalcomponent* item) {
    icalcomponent* alarm = icalcomponent_get_first_component(item, ICAL_VALARM_COMPONENT);
    icalproperty* trigger = alarm ? icalcomponent_get_first_property(alarm, ICAL_TRIGGER_PROPERTY) : nullptr;
    if (!trigger)
        return std::nullopt;
    auto const t = icalproperty_get_trigger(trigger);
    int const before = -icaldurationtype_as_int(t.duration) / 60;
    if (!icaltime_is_null_time(t.time) || before < 0)
        return std::nullopt;
    return before;
}

} // namespace

Result<EventFields> event_fields(std::string_view vcalendar) {
    ComponentPtr cal(icalparser_parse_string(std::string(vcalendar).c_str()));
    if (!cal)
        return fail(errc::render_failed, "an item's calendar does not parse");
    bool task = false;
    icalcomponent* item = icalcomponent_get_first_component(cal.get(), ICAL_VEVENT_COMPONENT);
    if (!item) {
        item = icalcomponent_get_first_component(cal.get(), ICAL_VTODO_COMPONENT);
        task = item != nullptr;
    }
    if (!item)
        return fail(errc::render_failed, "an item holds no event or task");
    EventFields f;
    f.task = task;
    f.uid = text_of(item, ICAL_UID_PROPERTY);
    f.summary = text_of(item, ICAL_SUMMARY_PROPERTY);
    f.description = text_of(item, ICAL_DESCRIPTION_PROPERTY);
    f.location = text_of(item, ICAL_LOCATION_PROPERTY);
    f.url = text_of(item, ICAL_URL_PROPERTY);
    if (!f.url.empty() && f.description.find(f.url) == std::string::npos)
        f.description += (f.description.empty() ? "" : "\n\n") + f.url;
    icalproperty* start_p =
        icalcomponent_get_first_property(item, task ? ICAL_DUE_PROPERTY : ICAL_DTSTART_PROPERTY);
    if (!start_p)
        return fail(errc::render_failed, "item " + f.uid + " has no " + (task ? "due date" : "start"));
    icaltimetype const start = task ? icalproperty_get_due(start_p) : icalproperty_get_dtstart(start_p);
    read_times(item, task, f, start, start_p);
    icalproperty* transp = icalcomponent_get_first_property(item, ICAL_TRANSP_PROPERTY);
    f.transparent = task || icalcomponent_get_status(item) == ICAL_STATUS_CANCELLED ||
                    (transp && icalproperty_get_transp(transp) == ICAL_TRANSP_TRANSPARENT);
    f.alarm_minutes = alarm_of(item);
    return f;
}

Result<std::vector<Resource>> as_events(
    std::vector<Resource> resources,
    std::function<std::string(EventFields const&, Resource const&)> const& make
) {
    for (auto& r : resources) {
        auto f = event_fields(r.body);
        if (!f)
            return f.error();
        r.body = make(*f, r);
        r.hash = hex_sha256(r.body);
    }
    return resources;
}

namespace {

json::object google_time(EventFields const& f, bool start) {
    if (f.all_day)
        return json::object{{"date", start ? f.start_date : f.end_date}};
    if (f.tzid.empty())
        return json::object{{"dateTime", (start ? f.start_utc : f.end_utc) + "Z"}};
    return json::object{{"dateTime", start ? f.start_local : f.end_local}, {"timeZone", f.tzid}};
}

json::object graph_time(EventFields const& f, bool start) {
    if (f.all_day)
        return json::object{
            {"dateTime", (start ? f.start_date : f.end_date) + "T00:00:00"},
            {"timeZone", "UTC"}};
    return json::object{{"dateTime", start ? f.start_utc : f.end_utc}, {"timeZone", "UTC"}};
}

} // namespace

std::string google_event(EventFields const& f, std::string const& id, std::string const& writer) {
    json::object reminders{{"useDefault", false}};
    if (f.alarm_minutes)
        reminders["overrides"] =
            json::array{json::object{{"method", "popup"}, {"minutes", *f.alarm_minutes}}};
    json::object e{
        {"id", id},
        {"iCalUID", f.uid},
        {"status", "confirmed"},
        {"summary", f.summary},
        {"description", f.description},
        {"location", f.location},
        {"start", google_time(f, true)},
        {"end", google_time(f, false)},
        {"transparency", f.transparent ? "transparent" : "opaque"},
        {"reminders", std::move(reminders)},
        {"extendedProperties", json::object{{"private", json::object{{google_owner_key, writer}}}}}};
    // Google shows the source as a link under the title; it takes http(s) only.
    if (f.url.rfind("https://", 0) == 0 || f.url.rfind("http://", 0) == 0)
        e["source"] = json::object{{"title", f.summary.substr(0, 200)}, {"url", f.url}};
    return json::serialize(e);
}

std::string google_shared_event(EventFields const& f) {
    return google_event(f, "", "");
}

std::string google_event_for(std::string_view shared, std::string_view id, std::string_view writer) {
    // The id is the first member and the owner property the last but `source`, whose strings (like every
    // other string member) cannot hold an unescaped quote: the last `"icsbridge":""}}` is the property.
    constexpr std::string_view head = R"({"id":"")";
    std::string const mark = "\"" + std::string(google_owner_key) + "\":";
    auto const at = shared.rfind(mark + R"(""}})");
    if (!shared.starts_with(head) || at == std::string_view::npos)
        return {};
    auto const writer_at = at + mark.size();
    std::string out = R"({"id":)";
    out += json::serialize(json::string_view(id.data(), id.size()));
    out += shared.substr(head.size(), writer_at - head.size());
    out += json::serialize(json::string_view(writer.data(), writer.size()));
    out += shared.substr(writer_at + 2);
    return out;
}

std::string graph_event(EventFields const& f) {
    json::object e{
        {"subject", f.summary},
        {"body", json::object{{"contentType", "text"}, {"content", f.description}}},
        {"start", graph_time(f, true)},
        {"end", graph_time(f, false)},
        {"isAllDay", f.all_day},
        {"location", json::object{{"displayName", f.location}}},
        {"showAs", f.transparent ? "free" : "busy"},
        {"isReminderOn", f.alarm_minutes.has_value()}};
    if (f.alarm_minutes)
        e["reminderMinutesBeforeStart"] = *f.alarm_minutes;
    return json::serialize(e);
}

} // namespace icsbridge::push
