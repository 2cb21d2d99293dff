// File: feed_index.cpp
// index_calendar(): one pass over the rendered calendar's logical lines, tracking the component nesting.
#include "views/feed_index.hpp"

#include <charconv>
#include <chrono>

namespace icsbridge::views {

namespace {

/** A logical line: the physical line plus its folded continuations, with the CRLF(s). */
struct Line {
    std::size_t begin = 0, end = 0; ///< end is past the last CRLF
    std::string_view raw;           ///< [begin, end) without the final CRLF, still folded
};

/** Iterates logical lines; false at the end of the body or on a line without CRLF. */
class Lines {
  public:
    explicit Lines(std::string_view body)
        : body_(body) {}

    bool next(Line& line) {
        if (pos_ >= body_.size())
            return false;
        std::size_t p = pos_;
        for (;;) {
            auto crlf = body_.find("\r\n", p);
            if (crlf == std::string_view::npos)
                return false;
            p = crlf + 2;
            // A line starting with a space or tab continues the previous one (RFC 5545 3.1).
            if (p >= body_.size() || (body_[p] != ' ' && body_[p] != '\t'))
                break;
        }
        line = Line{pos_, p, body_.substr(pos_, p - 2 - pos_)};
        pos_ = p;
        return true;
    }

  private:
    std::string_view body_;
    std::size_t pos_ = 0;
};

std::string unfold(std::string_view raw) {
    std::string out;
    out.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw.substr(i, 2) == "\r\n") {
            i += 2; // skips CR, LF and (with the loop's ++i) the space or tab that starts the fold
            continue;
        }
        out += raw[i];
    }
    return out;
}

/** The property name: up to the first ';' or ':'. */
std::string_view name_of(std::string_view line) {
    return line.substr(0, line.find_first_of(";:"));
}

/** The value: after the first ':' outside a quoted parameter value. */
std::string_view value_of(std::string_view line) {
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '"')
            quoted = !quoted;
        else if (line[i] == ':' && !quoted)
            return line.substr(i + 1);
    }
    return {};
}

bool digits(std::string_view s, int& out) {
    auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

/** "YYYYMMDD" or "YYYYMMDDTHHMMSS" with an optional "Z", as wall-clock seconds since 1970. */
std::optional<long long> wall_seconds(std::string_view v) {
    if (!v.empty() && v.back() == 'Z')
        v.remove_suffix(1);
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    if (v.size() < 8 || !digits(v.substr(0, 4), y) || !digits(v.substr(4, 2), mo) ||
        !digits(v.substr(6, 2), d))
        return std::nullopt;
    if (v.size() != 8) {
        if (v.size() != 15 || v[8] != 'T' || !digits(v.substr(9, 2), h) || !digits(v.substr(11, 2), mi) ||
            !digits(v.substr(13, 2), s))
            return std::nullopt;
    }
    std::chrono::year_month_day ymd{
        std::chrono::year(y),
        std::chrono::month(unsigned(mo)),
        std::chrono::day(unsigned(d))};
    if (!ymd.ok())
        return std::nullopt;
    return std::chrono::sys_days(ymd).time_since_epoch().count() * 86400LL + h * 3600LL + mi * 60LL + s;
}

/** The TZID parameter of a property line, or empty. */
std::string_view tzid_of(std::string_view line) {
    auto const head = line.substr(0, line.find(':'));
    auto at = head.find(";TZID=");
    if (at == std::string_view::npos)
        return {};
    auto v = head.substr(at + 6);
    return v.substr(0, v.find(';'));
}

/** CATEGORIES is a comma-separated list of TEXT values: split on unescaped commas, unescape each. */
void add_categories(std::string_view value, std::vector<std::string>& out) {
    std::string item;
    for (std::size_t i = 0; i < value.size(); ++i) {
        char c = value[i];
        if (c == '\\' && i + 1 < value.size()) {
            char n = value[++i];
            item += (n == 'n' || n == 'N') ? ' ' : n;
        } else if (c == ',') {
            if (!item.empty())
                out.push_back(ascii_lower(item));
            item.clear();
        } else {
            item += c;
        }
    }
    if (!item.empty())
        out.push_back(ascii_lower(item));
}

bool is_busy_property(std::string_view name) {
    for (std::string_view keep : {"UID", "DTSTAMP", "DTSTART", "DTEND", "DUE", "TRANSP"})
        if (name == keep)
            return true;
    return false;
}

/** An item's start, end or due time (DTSTART, DTEND, DUE), its zone and whether it is a whole day. */
void index_time(IndexedItem& item, std::string_view name, std::string_view raw) {
    std::string const value(value_of(unfold(raw)));
    auto t = wall_seconds(value);
    // A DUE date means "due on that day": the whole day belongs to the to-do.
    if (t && name == "DUE" && value.size() == 8)
        *t += 86400;
    // DTEND ends an event, DUE a to-do; an item has at most one of them.
    (name == "DTSTART" ? item.start : item.end) = t;
    (name == "DTSTART" ? item.start_tzid : item.end_tzid) = std::string(tzid_of(raw));
    if (name == "DTSTART")
        item.all_day = value.size() == 8;
}

/** What one property line of an item (outside its alarms) tells the index. */
void index_item_property(IndexedItem& item, Line const& line) {
    std::string_view const raw = line.raw;
    std::string_view const name = name_of(raw);
    if (name == "X-ALT-DESC")
        item.alt_descs.push_back(Span{line.begin, line.end});
    if (is_busy_property(name))
        item.busy_lines.push_back(Span{line.begin, line.end});
    if (name == "DTSTART" || name == "DTEND" || name == "DUE")
        index_time(item, name, raw);
    else if (name == "CATEGORIES")
        add_categories(value_of(unfold(raw)), item.categories);
    else if (name == "STATUS")
        item.cancelled = value_of(raw) == "CANCELLED";
    else if (name == "SUMMARY")
        item.summary_value = std::string(value_of(unfold(raw)));
    else if (name == "LOCATION")
        item.location_value = std::string(value_of(unfold(raw)));
    else if (name == "URL")
        item.url_value = std::string(value_of(unfold(raw)));
}

/** The pass over the lines after BEGIN:VCALENDAR, tracking the component nesting. */
class Indexer {
  public:
    void begin(Line const& line) {
        ++depth_;
        std::string_view const what = line.raw.substr(6);
        if (depth_ == 2 && (what == "VEVENT" || what == "VTODO")) {
            if (index_.items.empty())
                index_.header.end = line.begin;
            item_ = &index_.items.emplace_back();
            item_->block.begin = line.begin;
            item_->is_event = what == "VEVENT";
        } else if (item_ && depth_ == 3 && what == "VALARM") {
            in_alarm_ = true;
            alarm_begin_ = line.begin;
        }
    }

    /** True at the END:VCALENDAR: finish() then decides. */
    bool end(Line const& line) {
        --depth_;
        if (depth_ == 0)
            return true;
        if (item_ && depth_ == 1) {
            item_->end_line = line.begin;
            item_->block.end = line.end;
            item_ = nullptr;
        } else if (item_ && in_alarm_ && depth_ == 2) {
            item_->alarms.push_back(Span{alarm_begin_, line.end});
            in_alarm_ = false;
        }
        return false;
    }

    void property(Line const& line) {
        if (!item_ && depth_ == 1 && name_of(line.raw) == "X-WR-CALDESC")
            index_.caldesc = Span{line.begin, line.end};
        if (item_ && !in_alarm_)
            index_item_property(*item_, line);
    }

    /** The index, unless an item is still open or something follows END:VCALENDAR. */
    std::optional<FeedIndex> finish(Line const& last, std::size_t body_size) {
        if (item_ || last.end != body_size)
            return std::nullopt;
        if (index_.items.empty())
            index_.header.end = last.begin;
        index_.footer = Span{last.begin, last.end};
        return std::move(index_);
    }

  private:
    FeedIndex index_; ///< header.begin is 0: the body starts with BEGIN:VCALENDAR
    IndexedItem* item_ = nullptr;
    std::size_t alarm_begin_ = 0;
    int depth_ = 1; // components open, VCALENDAR included
    bool in_alarm_ = false;
};

} // namespace

std::string ascii_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

std::string unescape_text(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '\\' && i + 1 < value.size()) {
            char const n = value[++i];
            out += (n == 'n' || n == 'N') ? '\n' : n;
        } else {
            out += value[i];
        }
    }
    return out;
}

std::size_t FeedIndex::bytes() const {
    std::size_t n = sizeof(FeedIndex) + items.capacity() * sizeof(IndexedItem);
    for (auto const& it : items) {
        n += it.summary_value.capacity() + it.location_value.capacity() + it.url_value.capacity() +
             it.start_tzid.capacity() + it.end_tzid.capacity() + it.alarms.capacity() * sizeof(Span) +
             (it.busy_lines.capacity() + it.alt_descs.capacity()) * sizeof(Span);
        for (auto const& c : it.categories)
            n += sizeof(std::string) + c.capacity();
    }
    return n;
}

std::optional<FeedIndex> index_calendar(std::string_view body) {
    Lines lines(body);
    Line line;
    if (!lines.next(line) || line.raw != "BEGIN:VCALENDAR")
        return std::nullopt;
    Indexer indexer;
    while (lines.next(line)) {
        if (line.raw.starts_with("BEGIN:")) {
            indexer.begin(line);
        } else if (line.raw.starts_with("END:")) {
            if (indexer.end(line))
                return indexer.finish(line, body.size());
        } else {
            indexer.property(line);
        }
    }
    return std::nullopt;
}

} // namespace icsbridge::views
