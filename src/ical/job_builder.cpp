// File: job_builder.cpp
// Job posts -> a VTODO and/or an all-day VEVENT on the due date, each block serialised on its own.
#include "ical/builder.hpp"
#include "ical/component_builder.hpp"
#include "ical/item_text.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

namespace icsbridge::ical {

namespace {

// An apply URL the board mangled ("http://mailto:x@y") or that is not http(s): use the post URL.
bool usable_url(std::string_view u) {
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
    std::string url = usable_url(one_line(p.apply_url)) ? web_url(p.apply_url) : std::string();
    if (url.empty())
        url = web_url(p.url);
    if (!url.empty())
        b.add_text(icalproperty_new_url, url);
    std::string location = location_text(p.location);
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

} // namespace icsbridge::ical
