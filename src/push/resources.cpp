// File: resources.cpp
// split_calendar(): the header's VTIMEZONEs are indexed by TZID once; each item's resource is then the
// kept calendar properties, the zones its start and end name, its component(s) and END:VCALENDAR.
#include "push/resources.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace icsbridge::push {

namespace {

/** The logical lines of `text` (folded continuations included), each with its CRLF. */
std::vector<std::string_view> logical_lines(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (std::size_t p = 0; p < text.size();) {
        auto const crlf = text.find("\r\n", p);
        if (crlf == std::string_view::npos)
            break;
        p = crlf + 2;
        if (p < text.size() && (text[p] == ' ' || text[p] == '\t'))
            continue;
        out.push_back(text.substr(start, p - start));
        start = p;
    }
    return out;
}

/** The value of a property line (after the first ':' outside quotes), unfolded, without the CRLF. */
std::string value_of(std::string_view line) {
    bool quoted = false;
    std::size_t colon = 0;
    for (; colon < line.size(); ++colon) {
        if (line[colon] == '"')
            quoted = !quoted;
        else if (line[colon] == ':' && !quoted)
            break;
    }
    std::string out;
    for (std::size_t i = colon + 1; i < line.size(); ++i) {
        if (line.substr(i, 2) == "\r\n") {
            i += 2; // the CRLF and, with ++i, the fold's space
            continue;
        }
        out += line[i];
    }
    return out;
}

/** The calendar's opening lines to keep, and its VTIMEZONE blocks by TZID. */
struct Header {
    std::string opening;
    std::map<std::string, std::string> zones;
};

Header read_header(std::string_view header) {
    Header h;
    std::string zone, tzid;
    bool in_zone = false;
    for (auto line : logical_lines(header)) {
        if (line.starts_with("BEGIN:VTIMEZONE"))
            in_zone = true;
        if (in_zone) {
            zone += line;
            if (line.starts_with("TZID:") || line.starts_with("TZID;"))
                tzid = value_of(line);
            if (line.starts_with("END:VTIMEZONE")) {
                h.zones[tzid] = std::move(zone);
                zone.clear();
                in_zone = false;
            }
            continue;
        }
        for (std::string_view keep : {"BEGIN:VCALENDAR", "VERSION:", "PRODID:", "CALSCALE:"})
            if (line.starts_with(keep))
                h.opening += line;
    }
    return h;
}

std::string uid_of(views::IndexedItem const& item, std::string_view body) {
    for (auto const& span : item.busy_lines) {
        auto const line = span.of(body);
        if (line.starts_with("UID:") || line.starts_with("UID;"))
            return value_of(line);
    }
    return {};
}

/** Widens r's start and end to take in the item's, and marks a VTODO. */
void note_times(Resource& r, views::IndexedItem const& item) {
    r.todo = r.todo || !item.is_event;
    if (item.start)
        r.start = r.start ? std::min(*r.start, *item.start) : *item.start;
    if (auto const end = item.end ? item.end : item.start)
        r.end = r.end ? std::max(*r.end, *end) : *end;
}

} // namespace

Split split_calendar(std::string_view body, views::FeedIndex const& index, bool todos) {
    Split out;
    Header const header = read_header(index.header.of(body));
    // Components sharing a UID (a series' overrides) travel in one resource, as RFC 4791 4.1 requires.
    std::map<std::string, std::vector<views::IndexedItem const*>> by_uid;
    std::vector<std::string> order;
    for (auto const& item : index.items) {
        if (!item.is_event && !todos) {
            ++out.skipped_todos;
            continue;
        }
        auto uid = uid_of(item, body);
        if (uid.empty())
            continue; // every item icsbridge renders has one; a stranger's calendar is no feed of ours
        auto& group = by_uid[uid];
        if (group.empty())
            order.push_back(uid);
        group.push_back(&item);
    }
    for (auto const& uid : order) {
        std::set<std::string> zones;
        std::string items;
        Resource r;
        r.uid = uid;
        // r.name: per writer, by name_resources()
        r.body = header.opening;
        for (auto const* item : by_uid[uid]) {
            for (auto const* tz : {&item->start_tzid, &item->end_tzid})
                if (!tz->empty())
                    zones.insert(*tz);
            items += item->block.of(body);
            note_times(r, *item);
        }
        for (auto const& tz : zones)
            if (auto z = header.zones.find(tz); z != header.zones.end())
                r.body += z->second;
        r.body += items;
        r.body += "END:VCALENDAR\r\n";
        r.hash = hex_sha256(r.body);
        out.resources.push_back(std::move(r));
    }
    return out;
}

} // namespace icsbridge::push
