// File: json_read.cpp
// Tolerant JSON member readers and date-time parsing for the upstream parsers.
#include "sources/json_read.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace icsbridge::jsonr {

namespace json = boost::json;

namespace {

// Reads exactly `n` digits at `pos`; advances pos.
bool digits(std::string_view s, std::size_t& pos, std::size_t n, int& out) {
    if (pos + n > s.size())
        return false;
    int v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        char c = s[pos + i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    pos += n;
    return true;
}

bool expect(std::string_view s, std::size_t& pos, char c) {
    if (pos >= s.size() || s[pos] != c)
        return false;
    ++pos;
    return true;
}

// Parses the "YYYY-MM-DD?HH:MM:SS" prefix; pos ends after the seconds.
std::optional<LocalDateTime> local_prefix(std::string_view s, std::size_t& pos) {
    LocalDateTime t;
    if (!digits(s, pos, 4, t.year) || !expect(s, pos, '-') || !digits(s, pos, 2, t.month) ||
        !expect(s, pos, '-') || !digits(s, pos, 2, t.day))
        return std::nullopt;
    if (pos >= s.size() || (s[pos] != 'T' && s[pos] != ' '))
        return std::nullopt;
    ++pos;
    if (!digits(s, pos, 2, t.hour) || !expect(s, pos, ':') || !digits(s, pos, 2, t.minute) ||
        !expect(s, pos, ':') || !digits(s, pos, 2, t.second))
        return std::nullopt;
    auto ymd =
        std::chrono::year{t.year} / std::chrono::month{unsigned(t.month)} / std::chrono::day{unsigned(t.day)};
    // A leap second (":60") is not something either upstream sends; reject it with the other range errors.
    // Years stay where libical can still write a VTIMEZONE (it fails from about 2580) and parsers read dates.
    if (!ymd.ok() || t.year < 1900 || t.year > 2500 || t.hour > 23 || t.minute > 59 || t.second > 59)
        return std::nullopt;
    return t;
}

sys_seconds to_sys(LocalDateTime const& t) {
    auto ymd =
        std::chrono::year{t.year} / std::chrono::month{unsigned(t.month)} / std::chrono::day{unsigned(t.day)};
    return std::chrono::sys_days{ymd} + std::chrono::hours{t.hour} + std::chrono::minutes{t.minute} +
           std::chrono::seconds{t.second};
}

template <class T, class Parse>
Result<T>
required_time(json::object const& obj, std::string_view key, std::string const& prefix, Parse parse) {
    auto const* v = member(obj, key);
    if (!v)
        return malformed(join_path(prefix, key), "is missing");
    auto const* s = v->if_string();
    auto t = s ? parse(std::string_view(*s)) : std::nullopt;
    if (!t)
        return malformed(join_path(prefix, key), "is not a date-time");
    return *t;
}

} // namespace

Error malformed(std::string const& path, std::string_view what) {
    return fail(errc::upstream_malformed, path + " " + std::string(what));
}

Result<LocalDateTime>
required_local(json::object const& obj, std::string_view key, std::string const& prefix) {
    return required_time<LocalDateTime>(obj, key, prefix, parse_local_datetime);
}

Result<sys_seconds>
required_instant(json::object const& obj, std::string_view key, std::string const& prefix) {
    return required_time<sys_seconds>(obj, key, prefix, parse_instant);
}

Category id_and_name(json::object const& obj, std::string_view key) {
    auto const* o = object_member(obj, key);
    return o ? Category{text(*o, "id"), text(*o, "name")} : Category{};
}

json::value const* member(json::object const& obj, std::string_view key) {
    auto const* v = obj.if_contains(key);
    return (v && !v->is_null()) ? v : nullptr;
}

json::object const* object_member(json::object const& obj, std::string_view key) {
    auto const* v = member(obj, key);
    return v ? v->if_object() : nullptr;
}

std::optional<std::string> as_text(json::value const* v) {
    if (!v)
        return std::nullopt;
    if (auto const* s = v->if_string())
        return std::string(s->data(), s->size());
    if (auto const* i = v->if_int64())
        return std::to_string(*i);
    if (auto const* u = v->if_uint64())
        return std::to_string(*u);
    if (auto const* d = v->if_double()) {
        // Only integral doubles are plausible ids; anything else is not text we should invent.
        if (std::isfinite(*d) && std::floor(*d) == *d && std::fabs(*d) < 9.0e15)
            return std::to_string(static_cast<long long>(*d));
    }
    return std::nullopt;
}

std::string text(json::object const& obj, std::string_view key) {
    return as_text(member(obj, key)).value_or("");
}

Result<std::string>
required_text(json::object const& obj, std::string_view key, std::string const& prefix, bool allow_empty) {
    auto const* v = member(obj, key);
    auto t = as_text(v);
    if (!t || (t->empty() && !allow_empty))
        return malformed(join_path(prefix, key), v ? "is not a string" : "is missing");
    return std::move(*t);
}

std::optional<double> as_number(json::value const* v) {
    if (!v)
        return std::nullopt;
    if (v->is_number())
        return v->to_number<double>();
    if (auto const* s = v->if_string()) {
        std::string str(s->data(), s->size());
        if (str.empty())
            return std::nullopt;
        char* end = nullptr;
        double d = std::strtod(str.c_str(), &end);
        if (end != str.c_str() + str.size() || !std::isfinite(d))
            return std::nullopt;
        return d;
    }
    return std::nullopt;
}

std::optional<long long> as_integer(json::value const* v) {
    if (!v)
        return std::nullopt;
    if (auto const* i = v->if_int64())
        return *i;
    if (auto const* u = v->if_uint64())
        return *u <= static_cast<std::uint64_t>(LLONG_MAX)
                   ? std::optional<long long>(static_cast<long long>(*u))
                   : std::nullopt;
    if (auto const* d = v->if_double()) {
        if (std::isfinite(*d) && std::floor(*d) == *d && std::fabs(*d) < 9.0e15)
            return static_cast<long long>(*d);
        return std::nullopt;
    }
    if (auto const* s = v->if_string()) {
        long long out = 0;
        auto const* first = s->data();
        auto const* last = s->data() + s->size();
        auto [p, ec] = std::from_chars(first, last, out);
        if (ec != std::errc{} || p != last || first == last)
            return std::nullopt;
        return out;
    }
    return std::nullopt;
}

std::optional<bool> as_flag(json::value const* v) {
    if (!v)
        return std::nullopt;
    if (auto const* b = v->if_bool())
        return *b;
    if (auto const* s = v->if_string()) {
        if (*s == "1" || *s == "true")
            return true;
        if (*s == "0" || *s == "false" || s->empty())
            return false;
        return std::nullopt;
    }
    if (auto i = as_integer(v); i && (*i == 0 || *i == 1))
        return *i == 1;
    return std::nullopt;
}

std::optional<LocalDateTime> parse_local_datetime(std::string_view s) {
    std::size_t pos = 0;
    auto t = local_prefix(s, pos);
    if (!t || pos != s.size())
        return std::nullopt;
    return t;
}

std::optional<sys_seconds> parse_instant(std::string_view s) {
    std::size_t pos = 0;
    auto t = local_prefix(s, pos);
    if (!t)
        return std::nullopt;
    // Fractional seconds carry nothing a calendar can show; skip them.
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        std::size_t start = pos;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
            ++pos;
        if (pos == start)
            return std::nullopt;
    }
    if (pos >= s.size())
        return std::nullopt;
    auto utc = to_sys(*t);
    if (s[pos] == 'Z' || s[pos] == 'z')
        return pos + 1 == s.size() ? std::optional<sys_seconds>(utc) : std::nullopt;
    if (s[pos] != '+' && s[pos] != '-')
        return std::nullopt;
    int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int hh = 0, mm = 0;
    if (!digits(s, pos, 2, hh))
        return std::nullopt;
    if (pos < s.size() && s[pos] == ':')
        ++pos;
    if (!digits(s, pos, 2, mm) || pos != s.size() || hh > 23 || mm > 59)
        return std::nullopt;
    // "-05:00" means local = utc - 5h, so utc = local + 5h.
    return utc - sign * (std::chrono::hours{hh} + std::chrono::minutes{mm});
}

LocalDateTime to_local(sys_seconds t) {
    auto days = std::chrono::floor<std::chrono::days>(t);
    std::chrono::year_month_day ymd{days};
    std::chrono::hh_mm_ss hms{t - days};
    return LocalDateTime{
        int(ymd.year()),
        int(unsigned(ymd.month())),
        int(unsigned(ymd.day())),
        int(hms.hours().count()),
        int(hms.minutes().count()),
        int(hms.seconds().count())};
}

std::string format_local(LocalDateTime const& t) {
    char buf[32];
    std::snprintf(
        buf,
        sizeof buf,
        "%04d-%02d-%02dT%02d:%02d:%02d",
        t.year,
        t.month,
        t.day,
        t.hour,
        t.minute,
        t.second
    );
    return buf;
}

Result<JsonDocument> parse_body(std::string_view body) {
    boost::system::error_code ec;
    // A body is read once, copied out of and dropped whole: one arena, sized for the body at once, instead
    // of a malloc and a free per node (those were a fifth of a one-shot export's CPU). Not a shared arena:
    // that would make Boost.JSON destroy node by node.
    auto arena = std::make_unique<json::monotonic_resource>(body.size() + body.size() / 2 + 1024);
    json::value v = json::parse(body, ec, json::storage_ptr(arena.get()));
    if (ec)
        return fail(errc::upstream_malformed, "not JSON (" + ec.message() + ")");
    // Moved in by construction: assigning would copy the nodes into the target's (default) storage.
    return JsonDocument{std::move(arena), std::move(v)};
}

std::string join_path(std::string_view prefix, std::string_view name) {
    if (prefix.empty())
        return std::string(name);
    std::string out(prefix);
    out += '.';
    out += name;
    return out;
}

} // namespace icsbridge::jsonr
