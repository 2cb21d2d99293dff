// File: component_builder.cpp
// The property helpers every item block uses. Every libical object is owned by a unique_ptr until
// released into an owning call.
#include "ical/component_builder.hpp"

#include "ical/item_text.hpp"
#include "util/ascii.hpp"

#include <cstdio>

namespace icsbridge::ical {

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

void add_organizer(Builder& b, std::string const& name, std::string const& url) {
    std::string const cn = one_line(name);
    // A web page or a mail address; no other scheme (javascript:, data:) reaches a calendar app.
    std::string value = web_url(url);
    if (value.empty() && ascii_iequals(std::string_view(url).substr(0, 7), "mailto:"))
        value = uri(url);
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

} // namespace icsbridge::ical
