// File: component_builder.hpp
// The pieces every item block is built from: Builder (one libical component, the first refusal kept) and
// the property helpers events and job posts share (UID, times, GEO, categories, HTML text, organizer).
// Private to src/ical.
#pragma once

#include "ical/ical_ptr.hpp"
#include "ical/text.hpp"
#include "ical/timezones.hpp"
#include <icsbridge/error.hpp>
#include <icsbridge/ical.hpp>

#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::ical {

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

/** UID: PREFIX + id + SUFFIX + "@" + the feed's uid_domain, each on one line. */
std::string
uid(std::string_view prefix, std::string const& id, std::string_view suffix, CalendarMeta const& meta);

/** A DATE-TIME property in UTC. */
void add_utc(Builder& b, PropertyFactory make, sys_seconds t);

// DTSTART/DTEND as wall time with the plain IANA TZID, or in UTC when the zone is unknown.
void add_zoned(
    Builder& b, PropertyFactory make, sys_seconds t, std::string const& zone_name, icaltimezone* zone
);

/** A DATE property (all-day). */
void add_date(Builder& b, PropertyFactory make, std::chrono::year_month_day d);

/** GEO, when both coordinates are known and in range. */
void add_geo(Builder& b, std::optional<double> lat, std::optional<double> lon);

/** A CATEGORIES property per non-empty name. */
void add_categories(Builder& b, std::initializer_list<std::string const*> names);

// The HTML description for clients that show it (Outlook), rebuilt from an allow-list.
void add_alt_description(Builder& b, std::string const& html);

/** ORGANIZER: the URL (or a placeholder) as its value, the name as CN; nothing when both are empty. */
void add_organizer(Builder& b, std::string const& name, std::string const& url);

} // namespace icsbridge::ical
