// File: view_builder.cpp
// build_view(): the header and footer as they are, each selected item's block copied, cut (VALARMs
// out) or reduced to its busy-only lines, and a reminder appended where the view asks for one.
#include "views/view.hpp"

#include <algorithm>
#include <limits>

namespace icsbridge::views {

namespace {

/** Appends `line` + CRLF folded at 75 octets, never inside a UTF-8 sequence (RFC 5545 3.1). */
void append_folded(std::string& out, std::string_view line) {
    std::size_t limit = 75;
    while (line.size() > limit) {
        std::size_t cut = limit;
        // Back up over continuation bytes (10xxxxxx) so a character stays on one line.
        while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80)
            --cut;
        out.append(line.substr(0, cut)).append("\r\n ");
        line.remove_prefix(cut);
        limit = 74; // the leading space counts
    }
    out.append(line).append("\r\n");
}

/** A negative DURATION value, e.g. -PT30M, -P1D, -P1DT2H. */
std::string trigger_value(std::chrono::seconds lead) {
    long long s = lead.count();
    std::string out = "-P";
    if (s >= 86400)
        out += std::to_string(s / 86400) + 'D';
    s %= 86400;
    if (s > 0) {
        out += 'T';
        if (s >= 3600)
            out += std::to_string(s / 3600) + 'H';
        if (s % 3600 >= 60)
            out += std::to_string(s % 3600 / 60) + 'M';
        if (s % 60 > 0)
            out += std::to_string(s % 60) + 'S';
    }
    return out;
}

/** The same reminder the builder writes for the feed's own `alarm`: a display alarm with the title. */
void append_alarm(std::string& out, IndexedItem const& item, std::chrono::seconds lead) {
    out.append("BEGIN:VALARM\r\nACTION:DISPLAY\r\n");
    append_folded(
        out,
        "DESCRIPTION:" + (item.summary_value.empty() ? std::string("Reminder") : item.summary_value)
    );
    out.append("TRIGGER:").append(trigger_value(lead)).append("\r\nEND:VALARM\r\n");
}

bool wanted(IndexedItem const& item, ViewParams const& p, long long lo, long long hi) {
    if (p.busy && item.cancelled)
        return false;
    if (p.from || p.to) {
        if (!item.start)
            return false;
        long long const s = *item.start;
        long long const e = item.end ? std::max(*item.end, s) : s;
        // Overlap with [lo, hi); an item without duration counts at its start.
        if (!(s < hi && (e > lo || s >= lo)))
            return false;
    }
    if (!p.categories.empty()) {
        bool any = std::any_of(item.categories.begin(), item.categories.end(), [&](std::string const& c) {
            return std::binary_search(p.categories.begin(), p.categories.end(), c);
        });
        if (!any)
            return false;
    }
    return true;
}

void append_busy(std::string& out, std::string_view body, IndexedItem const& item) {
    out.append(item.is_event ? "BEGIN:VEVENT\r\n" : "BEGIN:VTODO\r\n");
    for (Span const& line : item.busy_lines)
        out.append(line.of(body));
    out.append("SUMMARY:Busy\r\n");
    out.append(item.is_event ? "END:VEVENT\r\n" : "END:VTODO\r\n");
}

void append_with_alarm(
    std::string& out, std::string_view body, IndexedItem const& item, std::chrono::seconds lead
) {
    // Copy the block around its VALARMs; a new reminder goes just before the END line.
    std::size_t pos = item.block.begin;
    for (Span const& a : item.alarms) {
        out.append(body.substr(pos, a.begin - pos));
        pos = a.end;
    }
    out.append(body.substr(pos, item.end_line - pos));
    if (lead.count() > 0 && item.is_event && !item.cancelled)
        append_alarm(out, item, lead);
    out.append(body.substr(item.end_line, item.block.end - item.end_line));
}

} // namespace

ViewText build_view(std::string_view body, FeedIndex const& index, ViewParams const& p) {
    constexpr long long day = 86400;
    long long const lo =
        p.from ? p.from->time_since_epoch().count() * day : std::numeric_limits<long long>::min();
    long long const hi =
        p.to ? (p.to->time_since_epoch().count() + 1) * day : std::numeric_limits<long long>::max();
    ViewText v;
    v.body.reserve(body.size());
    v.body.append(index.header.of(body));
    for (IndexedItem const& item : index.items) {
        if (!wanted(item, p, lo, hi))
            continue;
        ++v.items;
        if (p.busy)
            append_busy(v.body, body, item);
        else if (p.alarm)
            append_with_alarm(v.body, body, item, *p.alarm);
        else
            v.body.append(item.block.of(body));
    }
    v.body.append(index.footer.of(body));
    return v;
}

} // namespace icsbridge::views
