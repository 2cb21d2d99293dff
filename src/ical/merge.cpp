// File: merge.cpp
// merge_calendars(): several published calendars read back with libical and written as one, items
// carried over as their parts wrote them (through the merge's own filter and alarm), one VTIMEZONE per TZID.
#include "ical/builder.hpp"
#include "ical/ical_ptr.hpp"
#include "ical/merge_select.hpp"
#include "ical/timezones.hpp"
#include <icsbridge/ical.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace icsbridge {

namespace {

/** Years of the dates the items use: a rebuilt VTIMEZONE must cover them all. */
struct YearRange {
    std::optional<int> first, last;

    void add(icaltimetype t) {
        if (icaltime_is_null_time(t) || t.year <= 0)
            return;
        first = first ? std::min(*first, t.year) : t.year;
        last = last ? std::max(*last, t.year) : t.year;
    }
};

/** libical marks what it could not parse with X-LIC-ERROR properties; they must not reach subscribers. */
void strip_parse_errors(icalcomponent* c) {
    for (icalproperty* p = icalcomponent_get_first_property(c, ICAL_XLICERROR_PROPERTY); p != nullptr;
         p = icalcomponent_get_first_property(c, ICAL_XLICERROR_PROPERTY)) {
        icalcomponent_remove_property(c, p);
        icalproperty_free(p);
    }
    for (icalcomponent* sub = icalcomponent_get_first_component(c, ICAL_ANY_COMPONENT); sub != nullptr;
         sub = icalcomponent_get_next_component(c, ICAL_ANY_COMPONENT))
        strip_parse_errors(sub);
}

std::string tzid_of(icalcomponent* vtz) {
    icalproperty* p = icalcomponent_get_first_property(vtz, ICAL_TZID_PROPERTY);
    char const* v = p ? icalproperty_get_tzid(p) : nullptr;
    return v ? v : "";
}

/** Adds the TZID parameters of `item`'s properties to `out`: the zones the item needs a VTIMEZONE for. */
void add_tzids(icalcomponent* item, std::set<std::string>& out) {
    for (icalproperty* p = icalcomponent_get_first_property(item, ICAL_ANY_PROPERTY); p != nullptr;
         p = icalcomponent_get_next_property(item, ICAL_ANY_PROPERTY)) {
        if (icalparameter* tz = icalproperty_get_first_parameter(p, ICAL_TZID_PARAMETER); tz != nullptr)
            if (char const* v = icalparameter_get_tzid(tz); v != nullptr)
                out.insert(v);
    }
}

class Merger {
  public:
    explicit Merger(MergeOptions const& opts)
        : opts_(opts) {}

    Result<void> add(CalendarPart const& part) {
        auto const failed = [&](std::string const& why) {
            return fail(errc::render_failed, "cannot merge feed '" + std::string(part.feed) + "': " + why);
        };
        std::string const text(part.ics); // libical wants a terminated string
        icalerror_clear_errno();
        ical::ComponentPtr cal(icalparser_parse_string(text.c_str()));
        if (!cal || icalcomponent_isa(cal.get()) != ICAL_VCALENDAR_COMPONENT)
            return failed("its calendar does not parse as one VCALENDAR");
        strip_parse_errors(cal.get());
        for (icalcomponent* c = icalcomponent_get_first_component(cal.get(), ICAL_ANY_COMPONENT);
             c != nullptr;
             c = icalcomponent_get_next_component(cal.get(), ICAL_ANY_COMPONENT)) {
            auto const kind = icalcomponent_isa(c);
            if (kind == ICAL_VTIMEZONE_COMPONENT) {
                std::string block;
                if (!ical::append_serialized(c, block))
                    return failed("libical could not write one of its VTIMEZONEs");
                auto& texts = zones_[tzid_of(c)];
                if (std::find(texts.begin(), texts.end(), block) == texts.end())
                    texts.push_back(std::move(block));
                continue;
            }
            if (kind != ICAL_VEVENT_COMPONENT && kind != ICAL_VTODO_COMPONENT)
                continue;
            // The merge's own filter comes on top of the part's: an item must pass both.
            if (!ical::merged_item_kept(opts_.filter, c))
                continue;
            // The first part to carry a UID keeps it: two copies of one UID make clients pick one at random.
            if (char const* uid = icalcomponent_get_uid(c); uid != nullptr && !uids_.insert(uid).second)
                continue;
            if (opts_.alarm && !ical::replace_alarms(c, *opts_.alarm))
                return failed("libical refused the merged feed's alarm on one of its items");
            add_tzids(c, used_zones_);
            if (!ical::append_serialized(c, items_))
                return failed("libical could not write one of its items");
            ++count_;
            years_.add(icalcomponent_get_dtstart(c));
            if (kind == ICAL_VEVENT_COMPONENT)
                years_.add(icalcomponent_get_dtend(c));
            else
                years_.add(icalcomponent_get_due(c));
        }
        return {};
    }

    Result<Calendar> finish(CalendarMeta const& meta, std::string const& described) {
        auto header = ical::calendar_header(meta, described);
        if (!header)
            return header.error();
        Calendar out;
        out.ics.reserve(header->size() + items_.size() + 4096);
        out.ics.append(*header);
        ical::ZoneTable table;
        // std::map: the VTIMEZONEs come out sorted by TZID whatever order the parts listed them in.
        for (auto& [tzid, texts] : zones_) {
            // A zone only the filtered-out items used would be dead weight (and a wrong hint to clients).
            if (!used_zones_.contains(tzid))
                continue;
            icaltimezone* zone = texts.size() > 1 && years_.first ? table.find(tzid) : nullptr;
            if (zone == nullptr) {
                // One text, or a zone this machine cannot rebuild: the longest covers the most years.
                out.ics
                    .append(*std::max_element(texts.begin(), texts.end(), [](auto const& a, auto const& b) {
                        return a.size() < b.size();
                    }));
                continue;
            }
            // Parts rendered over different date ranges: one VTIMEZONE over all of them, with the
            // renderer's year of margin on each side.
            auto text = ical::vtimezone_text(tzid, zone, *years_.first - 1, *years_.last + 1);
            if (!text)
                return text.error();
            out.ics.append(*text);
        }
        out.ics.append(items_);
        out.ics.append(ical::calendar_footer);
        out.items = count_;
        return out;
    }

  private:
    MergeOptions const& opts_;
    std::set<std::string> used_zones_;                      ///< TZIDs the kept items refer to
    std::map<std::string, std::vector<std::string>> zones_; ///< TZID -> its distinct VTIMEZONE texts
    std::set<std::string> uids_;
    std::string items_;
    std::size_t count_ = 0;
    YearRange years_;
};

} // namespace

Result<Calendar>
merge_calendars(CalendarMeta const& meta, std::span<CalendarPart const> parts, MergeOptions const& opts) {
    Merger m(opts);
    std::string names;
    for (auto const& part : parts) {
        if (auto r = m.add(part); !r)
            return r.error();
        names += (names.empty() ? "" : ", ") + std::string(part.feed);
    }
    return m.finish(meta, "Items of " + names + ", merged by icsbridge");
}

} // namespace icsbridge
