// File: builder.cpp
// Model values -> libical components -> serialised blocks. Every libical object is owned by a
// unique_ptr until released into an owning call; each block is serialised on its own.
#include "ical/builder.hpp"

#include "ical/ical_ptr.hpp"
#include "ical/item_text.hpp"
#include "ical/text.hpp"

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

using PropertyFactory = icalproperty* (*)(icaltimetype);

/** Collects properties into one component and reports the first thing libical refused. */
class Builder {
  public:
    explicit Builder(icalcomponent_kind kind)
        : comp_(icalcomponent_new(kind)) {
        ok_ = comp_ != nullptr;
    }

    void add(PropertyPtr p) {
        if (!p || !comp_) {
            ok_ = false;
            return;
        }
        icalcomponent_add_property(comp_.get(), p.release());
    }

    void add(PropertyPtr p, ParameterPtr param) {
        if (!p || !param) {
            ok_ = false;
            return;
        }
        icalproperty_add_parameter(p.get(), param.release());
        add(std::move(p));
    }

    void add_text(icalproperty* (*make)(char const*), std::string const& value) {
        add(PropertyPtr(make(value.c_str())));
    }

    void add_child(ComponentPtr child) {
        if (!child || !comp_) {
            ok_ = false;
            return;
        }
        icalcomponent_add_component(comp_.get(), child.release());
    }

    /** Hands the component over, or nullptr if anything was refused. */
    ComponentPtr take() {
        if (!ok_ || icalerrno != ICAL_NO_ERROR)
            return nullptr;
        return std::move(comp_);
    }

    /** `what` names the item in the error message, e.g. ("event ", id). */
    Result<void> serialize_into(std::string& out, std::string_view what, std::string_view id) {
        ComponentPtr c = take();
        if (c && append_serialized(c.get(), out) && icalerrno == ICAL_NO_ERROR)
            return {};
        return refused(std::string(what) + one_line(id));
    }

    static Error refused(std::string const& what) {
        std::string why = icalerrno != ICAL_NO_ERROR ? icalerror_strerror(icalerrno) : "a value was refused";
        icalerror_clear_errno();
        return fail(errc::render_failed, "could not build " + what + ": " + why);
    }

  private:
    ComponentPtr comp_;
    bool ok_ = true;
};

std::string
uid(std::string_view prefix, std::string const& id, std::string_view suffix, CalendarMeta const& meta) {
    std::string u;
    u.reserve(prefix.size() + id.size() + suffix.size() + meta.uid_domain.size() + 1);
    u.append(prefix).append(one_line(id)).append(suffix).push_back('@');
    u.append(one_line(meta.uid_domain));
    return u;
}

void add_utc(Builder& b, PropertyFactory make, sys_seconds t) {
    b.add(PropertyPtr(make(utc_time(t))));
}

// DTSTART/DTEND as wall time with the plain IANA TZID, or in UTC when the zone is unknown.
void add_zoned(
    Builder& b, PropertyFactory make, sys_seconds t, std::string const& zone_name, icaltimezone* zone
) {
    auto const local = zone ? local_time(t, zone) : std::nullopt;
    if (!local) {
        add_utc(b, make, t);
        return;
    }
    b.add(PropertyPtr(make(*local)), ParameterPtr(icalparameter_new_tzid(zone_name.c_str())));
}

void add_date(Builder& b, PropertyFactory make, std::chrono::year_month_day d) {
    b.add(PropertyPtr(make(date_value(
        static_cast<int>(d.year()),
        static_cast<int>(unsigned(d.month())),
        static_cast<int>(unsigned(d.day()))
    ))));
}

void add_geo(Builder& b, std::optional<double> lat, std::optional<double> lon) {
    // libical 3.0 prints GEO into an 80-byte buffer: a huge value would lose its longitude.
    if (!lat || !lon || !(*lat >= -90 && *lat <= 90) || !(*lon >= -180 && *lon <= 180))
        return;
    icalgeotype g{};
    g.lat = *lat;
    g.lon = *lon;
    b.add(PropertyPtr(icalproperty_new_geo(g)));
}

void add_categories(Builder& b, std::initializer_list<std::string const*> names) {
    for (std::string const* n : names) {
        std::string const item = category_item(*n);
        if (!item.empty())
            b.add_text(icalproperty_new_categories, item);
    }
}

// The HTML description for clients that show it (Outlook), rebuilt from an allow-list.
void add_alt_description(Builder& b, std::string const& html) {
    if (html.empty())
        return;
    std::string const safe = sanitize_html(html);
    if (safe.empty())
        return;
    PropertyPtr p(icalproperty_new_x(safe.c_str()));
    if (p)
        icalproperty_set_x_name(p.get(), "X-ALT-DESC");
    b.add(std::move(p), ParameterPtr(icalparameter_new_fmttype("text/html")));
}

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

void add_organizer(Builder& b, std::string const& name, std::string const& url) {
    std::string const cn = one_line(name);
    std::string value = uri(url);
    if (value.find(':') == std::string::npos)
        value.clear();
    if (cn.empty() && value.empty())
        return;
    // ORGANIZER must be a cal-address URI; with no address, Google writes this placeholder.
    if (value.empty())
        value = "invalid:nomail";
    PropertyPtr p(icalproperty_new_organizer(value.c_str()));
    if (cn.empty())
        b.add(std::move(p));
    else
        b.add(std::move(p), ParameterPtr(icalparameter_new_cn(cn.c_str())));
}

std::string_view zone_of_end(Event const& e) {
    return e.end.timezone.empty() ? e.start.timezone : e.end.timezone;
}

// An apply URL the board mangled ("http://mailto:x@y") or that has no usable scheme: use the post URL.
bool usable_url(std::string_view u) {
    if (u.starts_with("mailto:"))
        return u.find('@') != std::string_view::npos;
    std::string_view rest;
    if (u.starts_with("https://"))
        rest = u.substr(8);
    else if (u.starts_with("http://"))
        rest = u.substr(7);
    else
        return false;
    std::string_view const authority = rest.substr(0, rest.find_first_of("/?#"));
    return !authority.empty() && authority.find('@') == std::string_view::npos &&
           !authority.starts_with("mailto:");
}

std::optional<std::chrono::year_month_day> posted_date(JobPost const& p) {
    std::chrono::year_month_day d{
        std::chrono::year(p.posted.year),
        std::chrono::month(static_cast<unsigned>(p.posted.month)),
        std::chrono::day(static_cast<unsigned>(p.posted.day))};
    if (p.posted.year > 0 && d.ok())
        return d;
    if (p.last_update)
        return std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(*p.last_update));
    return std::nullopt;
}

// The post date read as UTC: the board sends no zone, and DTSTAMP must not come from the wall clock.
sys_seconds posted_instant(JobPost const& p, std::chrono::year_month_day d) {
    bool const exact = p.posted.year > 0;
    return std::chrono::sys_days(d) + std::chrono::hours(exact ? p.posted.hour : 0) +
           std::chrono::minutes(exact ? p.posted.minute : 0) +
           std::chrono::seconds(exact ? p.posted.second : 0);
}

// The properties a job's VTODO and VEVENT share.
void add_job_common(
    Builder& b,
    JobPost const& p,
    std::string const& uid_value,
    sys_seconds stamp,
    std::string const& summary,
    std::string const& description
) {
    b.add_text(icalproperty_new_uid, uid_value);
    add_utc(b, icalproperty_new_dtstamp, stamp);
    if (p.last_update)
        add_utc(b, icalproperty_new_lastmodified, *p.last_update);
    b.add_text(icalproperty_new_summary, summary);
    if (!description.empty())
        b.add_text(icalproperty_new_description, description);
    add_alt_description(b, p.description_html);
    std::string const url = usable_url(one_line(p.apply_url)) ? uri(p.apply_url) : uri(p.url);
    if (!url.empty())
        b.add_text(icalproperty_new_url, url);
    std::string location = one_line(p.location);
    if (location.empty() && p.remote)
        location = "Remote";
    if (!location.empty())
        b.add_text(icalproperty_new_location, location);
    add_geo(b, p.latitude, p.longitude);
    static std::string const remote = "Remote";
    static std::string const none;
    add_categories(b, {&p.type, &p.category, p.remote ? &remote : &none});
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

    std::string const url = uri(e.url);
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

Result<void>
append_job(JobPost const& p, CalendarMeta const& meta, JobRenderOptions const& opts, std::string& out) {
    icalerror_clear_errno();
    std::string const summary = job_summary(p);
    std::string const description = job_description(p);
    auto const posted = posted_date(p);
    auto const day = std::chrono::days(1);
    // Round up: a due_after of 36h means "the day after tomorrow", and DUE must follow DTSTART.
    auto const due_days =
        std::max<std::chrono::days::rep>(1, (opts.due_after + day - std::chrono::seconds(1)) / day);
    std::optional<std::chrono::year_month_day> due;
    if (posted)
        due = std::chrono::year_month_day(std::chrono::sys_days(*posted) + std::chrono::days(due_days));
    sys_seconds const stamp = p.last_update ? *p.last_update
                              : posted      ? posted_instant(p, *posted)
                                            : sys_seconds{};

    bool const todo = opts.jobs_as != JobsAs::vevent;
    bool const event = opts.jobs_as != JobsAs::vtodo && due.has_value();
    bool const both = opts.jobs_as == JobsAs::both;

    if (todo) {
        Builder b(ICAL_VTODO_COMPONENT);
        add_job_common(b, p, uid("job-", p.id, both ? "-todo" : "", meta), stamp, summary, description);
        if (posted) {
            add_date(b, icalproperty_new_dtstart, *posted);
            add_date(b, icalproperty_new_due, *due);
        }
        b.add(PropertyPtr(icalproperty_new_status(ICAL_STATUS_NEEDSACTION)));
        if (auto r = b.serialize_into(out, "job ", p.id); !r)
            return r;
    }
    if (event) {
        Builder b(ICAL_VEVENT_COMPONENT);
        add_job_common(b, p, uid("job-", p.id, both ? "-event" : "", meta), stamp, summary, description);
        add_date(b, icalproperty_new_dtstart, *due);
        add_date(b, icalproperty_new_dtend, std::chrono::year_month_day(std::chrono::sys_days(*due) + day));
        // A deadline, not a meeting: don't block the subscriber's free/busy time.
        b.add(PropertyPtr(icalproperty_new_transp(ICAL_TRANSP_TRANSPARENT)));
        if (auto r = b.serialize_into(out, "job ", p.id); !r)
            return r;
    }
    return {};
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
