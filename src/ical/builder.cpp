// File: builder.cpp
// Events -> VEVENT blocks (with their alarms), and the VCALENDAR header. Each block is serialised on its
// own; job posts are in job_builder.cpp, the shared pieces in component_builder.cpp.
#include "ical/builder.hpp"

#include "ical/component_builder.hpp"
#include "ical/item_text.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <limits>

#ifndef ICSBRIDGE_VERSION
#define ICSBRIDGE_VERSION "0"
#endif

namespace icsbridge::ical {

namespace {

// Rises whenever the upstream's change time moves forward (clients accept an update only with a higher
// SEQUENCE) and is derived from the data alone, so the same event gives the same bytes on every refresh and
// every replica: the seconds from creation to the last change, clamped to RFC 5545's integer range.
int sequence(Event const& e) {
    if (!e.changed)
        return 0;
    sys_seconds const origin = e.created ? *e.created : e.published ? *e.published : *e.changed;
    auto const seconds = (*e.changed - origin).count();
    return static_cast<int>(std::clamp<long long>(seconds, 0, std::numeric_limits<int>::max()));
}

std::string_view zone_of_end(Event const& e) {
    return e.end.timezone.empty() ? e.start.timezone : e.end.timezone;
}

} // namespace

ComponentPtr display_alarm(std::string const& what, std::chrono::seconds before) {
    Builder a(ICAL_VALARM_COMPONENT);
    a.add(PropertyPtr(icalproperty_new_action(ICAL_ACTION_DISPLAY)));
    a.add_text(icalproperty_new_description, what);
    icaltriggertype trigger{};
    trigger.time = icaltime_null_time();
    trigger.duration = icaldurationtype_from_int(-static_cast<int>(before.count()));
    a.add(PropertyPtr(icalproperty_new_trigger(trigger)));
    return a.take();
}

std::array<std::string_view, 2> event_zone_names(Event const& e) {
    return {e.start.timezone, zone_of_end(e)};
}

Result<void> append_event(
    Event const& e,
    CalendarMeta const& meta,
    EventRenderOptions const& opts,
    ZoneTable& zones,
    std::string& out
) {
    icalerror_clear_errno();
    Builder b(ICAL_VEVENT_COMPONENT);
    bool const cancelled = e.cancelled();

    b.add_text(icalproperty_new_uid, uid("event-", e.id, "", meta));
    // DTSTAMP from the upstream's change time, never the clock: same data, same bytes.
    add_utc(b, icalproperty_new_dtstamp, e.changed ? *e.changed : e.created ? *e.created : e.start.utc);
    if (e.created)
        add_utc(b, icalproperty_new_created, *e.created);
    if (e.changed)
        add_utc(b, icalproperty_new_lastmodified, *e.changed);
    b.add(PropertyPtr(icalproperty_new_sequence(sequence(e))));

    add_zoned(b, icalproperty_new_dtstart, e.start.utc, e.start.timezone, zones.find(e.start.timezone));
    if (e.end.utc > e.start.utc) {
        std::string const end_zone(zone_of_end(e));
        add_zoned(b, icalproperty_new_dtend, e.end.utc, end_zone, zones.find(end_zone));
    }

    std::string summary = one_line(e.name);
    if (summary.empty())
        summary = "Untitled event";
    // Organizers often rename a cancelled event themselves ("CANCELLED - Gala"): never say it twice.
    if (cancelled && opts.cancelled == CancelledPolicy::prefix && !says_cancelled(summary))
        summary.insert(0, "Cancelled: ");
    b.add_text(icalproperty_new_summary, summary);

    std::string const url = web_url(e.url);
    std::string const description = event_description(e, url);
    if (!description.empty())
        b.add_text(icalproperty_new_description, description);
    add_alt_description(b, e.description_html);
    if (!url.empty())
        b.add_text(icalproperty_new_url, url);
    if (std::string const location = event_location(e); !location.empty())
        b.add_text(icalproperty_new_location, location);
    if (e.venue && !e.online)
        add_geo(b, e.venue->latitude, e.venue->longitude);
    add_organizer(b, e.organizer_name, e.organizer_url);
    std::string const category = event_category_name(e.category_id);
    add_categories(b, {&category});
    b.add(PropertyPtr(icalproperty_new_status(cancelled ? ICAL_STATUS_CANCELLED : ICAL_STATUS_CONFIRMED)));
    b.add(PropertyPtr(icalproperty_new_transp(ICAL_TRANSP_OPAQUE)));
    if (opts.alarm && !cancelled)
        b.add_child(display_alarm(summary, *opts.alarm)); // a null alarm fails the event

    return b.serialize_into(out, "event ", e.id);
}

Result<std::string> calendar_header(CalendarMeta const& meta, std::string const& generated_description) {
    icalerror_clear_errno();
    Builder b(ICAL_VCALENDAR_COMPONENT);
    b.add_text(icalproperty_new_version, "2.0");
    b.add_text(icalproperty_new_prodid, "-//icsbridge//icsbridge " ICSBRIDGE_VERSION "//EN");
    b.add_text(icalproperty_new_calscale, "GREGORIAN");
    b.add(PropertyPtr(icalproperty_new_method(ICAL_METHOD_PUBLISH)));

    std::string name = one_line(meta.title);
    if (name.empty())
        name = one_line(meta.feed_name);
    std::string description = clean_text(meta.description);
    if (description.empty())
        description = generated_description;
    auto add_x = [&](char const* x_name, std::string const& value) {
        PropertyPtr p(icalproperty_new_x(value.c_str()));
        if (p)
            icalproperty_set_x_name(p.get(), x_name);
        b.add(std::move(p));
    };
    if (!name.empty()) {
        b.add_text(icalproperty_new_name, name);
        add_x("X-WR-CALNAME", name);
    }
    if (!description.empty())
        add_x("X-WR-CALDESC", description);

    // Refresh hints for Apple and Outlook (Google ignores them).
    auto const refresh = static_cast<int>(std::max<std::chrono::seconds::rep>(60, meta.refresh.count()));
    icaldurationtype const interval = icaldurationtype_from_int(refresh);
    b.add(PropertyPtr(icalproperty_new_refreshinterval(interval)));
    IcalString ttl(icaldurationtype_as_ical_string_r(interval));
    if (ttl)
        add_x("X-PUBLISHED-TTL", ttl.get());

    std::string text;
    if (auto r = b.serialize_into(text, "the calendar header", ""); !r)
        return r.error();
    if (!text.ends_with(calendar_footer))
        return fail(errc::render_failed, "could not build the calendar header: unexpected libical output");
    text.resize(text.size() - calendar_footer.size());
    return text;
}

} // namespace icsbridge::ical
