// File: timezones.cpp
// Zone lookup, UTC -> local conversion and VTIMEZONE generation on top of libical 3.0.16.
#include "ical/timezones.hpp"

#include "ical/ical_ptr.hpp"
#include <icsbridge/ical.hpp>

#include <chrono>
#include <ctime>
#include <mutex>
#include <string_view>

namespace icsbridge::ical {

namespace {

// libical reads a zone it does not list from ZONEINFO_DIR/NAME, so an upstream's "../../../etc/localtime"
// (or a FIFO, or a device) would be opened. IANA names are short and made of [A-Za-z0-9_+-] parts.
bool plausible_zone_name(std::string_view name) {
    if (name.empty() || name.size() > 64 || name.front() == '/' || name.back() == '/' ||
        name.find("//") != std::string_view::npos)
        return false;
    for (char c : name) {
        bool const ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                        c == '/' || c == '_' || c == '+' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

/** The one lock of libical's one zone cache: as process-wide as what it guards, and private to this file. */
std::unique_lock<std::mutex> lock_zones() {
    static std::mutex zones;
    return std::unique_lock(zones);
}

/** The lookup itself; the caller holds lock_zones(). */
icaltimezone* find_builtin(std::string const& name) {
    if (name == "UTC")
        return icaltimezone_get_utc_timezone();
    icaltimezone* zone =
        plausible_zone_name(name) ? icaltimezone_get_builtin_timezone(name.c_str()) : nullptr;
    // A failed lookup sets icalerrno; it is an expected outcome here, not a render failure.
    icalerror_clear_errno();
    return zone;
}

} // namespace

icaltimezone* builtin_zone(std::string const& name) {
    auto const lock = lock_zones();
    return find_builtin(name);
}

long long wall_to_utc(long long wall, icaltimezone* zone) {
    auto const lock = lock_zones();
    icaltimetype t =
        icaltime_from_timet_with_zone(static_cast<time_t>(wall), 0, icaltimezone_get_utc_timezone());
    t.zone = nullptr;
    return icaltime_as_timet_with_zone(t, zone);
}

long long utc_to_wall(long long utc, icaltimezone* zone) {
    auto const lock = lock_zones();
    icaltimetype t = icaltime_from_timet_with_zone(static_cast<time_t>(utc), 0, zone);
    t.zone = nullptr;
    return icaltime_as_timet_with_zone(t, icaltimezone_get_utc_timezone());
}

icaltimetype in_utc(icaltimetype wall, icaltimezone* zone) {
    auto const lock = lock_zones();
    return icaltime_convert_to_zone(icaltime_set_timezone(&wall, zone), icaltimezone_get_utc_timezone());
}

icaltimezone* ZoneTable::find(std::string const& name) {
    if (auto it = zones_.find(name); it != zones_.end())
        return it->second;
    auto const lock = lock_zones();
    icaltimezone* zone = find_builtin(name);
    // UTC (and aliases such as "GMT") come back as libical's UTC zone, which has no VTIMEZONE component:
    // cloning it would crash, and UTC needs no VTIMEZONE anyway.
    if (zone != nullptr &&
        (zone == icaltimezone_get_utc_timezone() || icaltimezone_get_component(zone) == nullptr))
        zone = nullptr;
    icalerror_clear_errno();
    zones_.emplace(name, zone);
    return zone;
}

icaltimetype utc_time(sys_seconds t) {
    return icaltime_from_timet_with_zone(
        static_cast<time_t>(t.time_since_epoch().count()),
        0,
        icaltimezone_get_utc_timezone()
    );
}

namespace {

int utc_offset(icaltimezone* zone, long long instant) {
    icaltimetype t =
        icaltime_from_timet_with_zone(static_cast<time_t>(instant), 0, icaltimezone_get_utc_timezone());
    int is_daylight = 0;
    return icaltimezone_get_utc_offset_of_utc_time(zone, &t, &is_daylight);
}

} // namespace

std::optional<icaltimetype> local_time(sys_seconds t, icaltimezone* zone) {
    long long const instant = t.time_since_epoch().count();
    auto lock = lock_zones();
    int const offset = utc_offset(zone, instant);
    // When clocks went back within the last hours, the same wall time may also name an earlier instant;
    // a TZID time means that earlier one (RFC 5545 3.3.5), so this instant cannot be written that way.
    constexpr long long look_back = 6LL * 3600;
    if (int const earlier = utc_offset(zone, instant - look_back); earlier > offset) {
        if (utc_offset(zone, instant + offset - earlier) == earlier)
            return std::nullopt;
    }
    lock.unlock();
    icaltimetype local = utc_time(t + std::chrono::seconds(offset));
    // Floating: the TZID parameter names the plain IANA zone (libical would print its
    // /freeassociation.sourceforge.net/ prefix, or even a bogus `Z`).
    local.zone = nullptr;
    return local;
}

icaltimetype date_value(int year, int month, int day) {
    icaltimetype d = icaltime_null_date();
    d.year = year;
    d.month = month;
    d.day = day;
    return d;
}

int utc_year(sys_seconds t) {
    auto const days = std::chrono::floor<std::chrono::days>(t);
    return static_cast<int>(std::chrono::year_month_day(days).year());
}

Result<std::string>
vtimezone_text(std::string const& name, icaltimezone* zone, int first_year, int last_year) {
    auto const lock = lock_zones();
    icalcomponent* builtin = icaltimezone_get_component(zone);
    if (builtin == nullptr)
        return fail(errc::render_failed, "time zone " + name + " has no definition in the system tzdata");
    // The built-in component belongs to libical's zone cache: work on a clone.
    ComponentPtr vtz(icalcomponent_new_clone(builtin));
    if (!vtz)
        return fail(errc::render_failed, "could not copy the definition of time zone " + name);

    icaltimetype start = icaltime_null_time();
    start.year = first_year;
    start.month = 1;
    start.day = 1;
    icaltimetype end = icaltime_null_time();
    end.year = last_year;
    end.month = 12;
    end.day = 31;
    end.hour = 23;
    end.minute = 59;
    end.second = 59;
    start.zone = end.zone = icaltimezone_get_utc_timezone();
    icaltimezone_truncate_vtimezone(vtz.get(), start, end, 1);

    // Outlook and Google match TZIDs by name: use the plain IANA name, not libical's prefixed one.
    icalproperty* tzid = icalcomponent_get_first_property(vtz.get(), ICAL_TZID_PROPERTY);
    if (tzid != nullptr)
        icalproperty_set_tzid(tzid, name.c_str());
    else
        icalcomponent_add_property(vtz.get(), icalproperty_new_tzid(name.c_str()));

    std::string out;
    if (!append_serialized(vtz.get(), out) || icalerrno != ICAL_NO_ERROR) {
        auto const why = std::string(icalerror_strerror(icalerrno));
        icalerror_clear_errno();
        return fail(errc::render_failed, "could not write time zone " + name + ": " + why);
    }
    return out;
}

} // namespace icsbridge::ical

namespace icsbridge {

bool known_time_zone(std::string const& name) {
    return ical::builtin_zone(name) != nullptr;
}

Result<void> check_feed_zones(Config const& cfg) {
    for (auto const& f : cfg.feeds)
        if (!f.timezone.empty() && !known_time_zone(f.timezone))
            return fail(
                errc::config_invalid,
                cfg.path + ":" + std::to_string(f.timezone_line) + ":" + std::to_string(f.timezone_column) +
                    ": timezone = \"" + f.timezone + "\" of [feeds." + f.name +
                    "] is not a time zone this system knows (an IANA name such as \"America/Los_Angeles\", "
                    "as "
                    "in /usr/share/zoneinfo)"
            );
    return {};
}

} // namespace icsbridge
