// File: view_builder.cpp
// build_view(): the header and footer as they are, each selected item's block copied, cut (VALARMs
// out) or reduced to its busy-only lines, and a reminder appended where the view asks for one.
#include "views/view.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>

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

/** The spans a google view cuts out of an item (Google ignores reminders and the HTML description), in
 * the order they appear. */
std::vector<Span> google_cuts(IndexedItem const& item) {
    std::vector<Span> cuts(item.alarms);
    cuts.insert(cuts.end(), item.alt_descs.begin(), item.alt_descs.end());
    std::sort(cuts.begin(), cuts.end(), [](Span const& a, Span const& b) { return a.begin < b.begin; });
    return cuts;
}

/** Appends the item as a google view has it: busy-only, or its block without the cuts. */
void append_for_google(std::string& out, std::string_view body, IndexedItem const& item, bool busy) {
    if (busy) {
        append_busy(out, body, item);
        return;
    }
    std::size_t pos = item.block.begin;
    for (Span const& cut : google_cuts(item)) {
        out.append(body.substr(pos, cut.begin - pos));
        pos = cut.end;
    }
    out.append(body.substr(pos, item.block.end - pos));
}

std::size_t google_size(std::string_view body, IndexedItem const& item, bool busy) {
    if (busy) {
        std::string scratch;
        append_busy(scratch, body, item);
        return scratch.size();
    }
    std::size_t n = item.block.end - item.block.begin;
    for (Span const& cut : google_cuts(item))
        n -= cut.end - cut.begin;
    return n;
}

/** TEXT escaping (RFC 5545 3.3.11) of a URL put into a description. */
std::string escape_text(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\\' || c == ',' || c == ';')
            out += '\\';
        out += c;
    }
    return out;
}

/** The header with X-WR-CALDESC saying how many items were left out and where the full calendar is. */
void append_google_header(
    std::string& out,
    std::string_view body,
    FeedIndex const& index,
    std::size_t left_out,
    std::string const& url
) {
    Span const desc = index.caldesc;
    std::string value;
    if (desc.end > desc.begin) {
        std::string_view line = desc.of(body);
        line = line.substr(line.find(':') + 1);
        for (std::size_t i = 0; i < line.size(); ++i) {
            if (line.substr(i, 3) == "\r\n ")
                i += 2; // the fold: CR, LF and (with ++i) the space
            else if (line.substr(i, 2) != "\r\n")
                value += line[i];
            else
                break;
        }
        value += "\\n\\n";
    }
    value += std::to_string(left_out) + (left_out == 1 ? " later item is" : " later items are") +
             " left out so that Google Calendar takes this calendar (it drops calendars over about 1 MB)";
    if (!url.empty())
        value += ". The full calendar: " + escape_text(url);
    // Calendar properties come before the first component: without an X-WR-CALDESC of its own, the new
    // one goes right after BEGIN:VCALENDAR.
    std::size_t const at = desc.end > desc.begin ? desc.begin : body.find("\r\n") + 2;
    std::size_t const resume = desc.end > desc.begin ? desc.end : at;
    out.append(body.substr(index.header.begin, at - index.header.begin));
    append_folded(out, "X-WR-CALDESC:" + value);
    out.append(body.substr(resume, index.header.end - resume));
}

/** Upper bound of what the description note adds to the header (digits, folding, escaping). */
std::size_t note_reserve(ViewParams const& p) {
    return 400 + 2 * p.full_url.size();
}

ViewText build_google_view(
    std::string_view body, FeedIndex const& index, ViewParams const& p, long long lo, long long hi
) {
    struct Pick {
        std::size_t item;
        std::size_t size;
        long long start;
    };
    std::vector<Pick> picks;
    std::size_t total = (index.header.end - index.header.begin) + (index.footer.end - index.footer.begin);
    for (std::size_t i = 0; i < index.items.size(); ++i) {
        IndexedItem const& item = index.items[i];
        if (!wanted(item, p, lo, hi))
            continue;
        picks.push_back(
            {i, google_size(body, item, p.busy), item.start.value_or(std::numeric_limits<long long>::max())}
        );
        total += picks.back().size;
    }
    std::vector<char> keep(index.items.size(), 0);
    for (Pick const& pick : picks)
        keep[pick.item] = 1;
    std::size_t left_out = 0;
    if (total > google_view_limit) {
        // The nearest items matter most to someone looking at their week: keep items by start while they
        // fit, and leave out everything from the first that does not.
        std::stable_sort(picks.begin(), picks.end(), [](Pick const& a, Pick const& b) {
            return a.start < b.start;
        });
        std::size_t const fixed =
            total -
            std::accumulate(picks.begin(), picks.end(), std::size_t{0}, [](std::size_t n, Pick const& x) {
                return n + x.size;
            });
        std::size_t const budget =
            google_view_limit > fixed + note_reserve(p) ? google_view_limit - fixed - note_reserve(p) : 0;
        std::size_t used = 0;
        for (Pick const& pick : picks) {
            if (left_out == 0 && used + pick.size <= budget) {
                used += pick.size;
                continue;
            }
            keep[pick.item] = 0;
            ++left_out;
        }
    }
    ViewText v;
    v.body.reserve(std::min(total, google_view_limit) + note_reserve(p));
    if (left_out > 0)
        append_google_header(v.body, body, index, left_out, p.full_url);
    else
        v.body.append(index.header.of(body));
    for (std::size_t i = 0; i < index.items.size(); ++i) {
        if (!keep[i])
            continue;
        ++v.items;
        append_for_google(v.body, body, index.items[i], p.busy);
    }
    v.body.append(index.footer.of(body));
    return v;
}

} // namespace

bool google_wants_smaller(std::string_view user_agent, std::size_t body_size) {
    return body_size > google_view_limit && user_agent.find(google_fetcher) != std::string_view::npos;
}

std::string google_size_warning(std::size_t bytes) {
    if (bytes <= google_drop_size)
        return {};
    char mb[32];
    std::snprintf(mb, sizeof mb, "%.1f", static_cast<double>(bytes) / 1e6);
    return std::string("the calendar is ") + mb +
           " MB: Google Calendar drops subscribed calendars over about 1 MB without a word; subscribe Google "
           "to ?for=google (the pages' Add to Google Calendar link; Google's fetcher gets it for the plain "
           "URL "
           "too)";
}

ViewText build_view(std::string_view body, FeedIndex const& index, ViewParams const& p) {
    constexpr long long day = 86400;
    long long const lo =
        p.from ? p.from->time_since_epoch().count() * day : std::numeric_limits<long long>::min();
    long long const hi =
        p.to ? (p.to->time_since_epoch().count() + 1) * day : std::numeric_limits<long long>::max();
    if (p.google)
        return build_google_view(body, index, p, lo, hi);
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
