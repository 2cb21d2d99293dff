// File: collection.cpp
// A snapshot cut into calendar object resources (push's split_calendar: the same VCALENDAR per UID a push
// target gets), each named by its UID's hash and tagged by its bytes' hash.
#include "dav/dav_detail.hpp"
#include "push/plan.hpp"
#include "push/resources.hpp"
#include "views/feed_index.hpp"
#include <icsbridge/dav.hpp>
#include <icsbridge/digest.hpp>

#include <array>

namespace icsbridge::dav {

namespace {

constexpr std::string_view token_prefix = "http://icsbridge.invalid/sync/";

/** Whether every LF of `body` ends a CRLF, so dropping those CRs can be undone exactly. */
bool crlf_lines(std::string_view body) {
    for (auto p = body.find('\n'); p != std::string_view::npos; p = body.find('\n', p + 1))
        if (p == 0 || body[p - 1] != '\r')
            return false;
    return true;
}

std::string without_crs(std::string_view body) {
    std::string out;
    out.reserve(body.size());
    for (std::size_t i = 0; i < body.size(); ++i)
        if (body[i] != '\r' || i + 1 == body.size() || body[i + 1] != '\n')
            out += body[i];
    return out;
}

/** The resource as its calendar-data: cut once per publication, shared by every request. */
Item item_of(push::Resource& r) {
    Item item;
    item.name = push::hex_sha256(r.uid).substr(0, 32) + ".ics";
    item.etag = "\"" + r.hash.substr(0, 16) + "\""; // 64 bits tell one resource's versions apart
    item.length = r.body.size();
    item.crlf = crlf_lines(r.body);
    item.data = item.crlf ? without_crs(r.body) : std::move(r.body);
    item.plain =
        item.data.find_first_of("<&") == std::string::npos && item.data.find("]]>") == std::string::npos;
    item.todo = r.todo;
    item.start = r.start;
    item.end = r.end;
    return item;
}

} // namespace

std::string Item::body() const {
    if (!crlf)
        return data;
    std::string out;
    out.reserve(length);
    for (char c : data) {
        if (c == '\n')
            out += '\r';
        out += c;
    }
    return out;
}

Item const* Collection::find(std::string_view name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &items[it->second];
}

std::string Collection::token() const {
    // The epoch as 16 hex digits, then the sequence: a URI (RFC 6578 3.2) that says nothing else.
    std::array<unsigned char, 8> bytes{};
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<unsigned char>(epoch >> (8 * (bytes.size() - 1 - i)));
    return std::string(token_prefix) + to_hex(bytes) + "-" + std::to_string(seq);
}

Collection make_collection(std::string_view body, std::string snapshot_etag) {
    Collection c;
    c.snapshot_etag = std::move(snapshot_etag);
    auto const index = views::index_calendar(body);
    if (!index)
        return c; // not a calendar icsbridge rendered: an empty collection rather than a wrong one
    auto split = push::split_calendar(body, *index, true);
    c.items.reserve(split.resources.size());
    for (auto& r : split.resources)
        c.items.push_back(item_of(r));
    c.by_name.reserve(c.items.size());
    for (std::size_t i = 0; i < c.items.size(); ++i)
        c.by_name.emplace(c.items[i].name, i);
    return c;
}

namespace detail {

std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_token(std::string_view token) {
    if (!token.starts_with(token_prefix) || token.size() > token_prefix.size() + 16 + 1 + 20)
        return std::nullopt;
    token.remove_prefix(token_prefix.size());
    if (token.size() < 18 || token[16] != '-')
        return std::nullopt;
    // Only the lower-case digits token() writes.
    std::array<unsigned char, 8> bytes{};
    if (!is_lower_hex(token.substr(0, 16)) || !from_hex(token.substr(0, 16), bytes))
        return std::nullopt;
    std::uint64_t epoch = 0, seq = 0;
    for (unsigned char b : bytes)
        epoch = (epoch << 8) | b;
    for (char ch : token.substr(17)) {
        if (ch < '0' || ch > '9' || seq > (UINT64_MAX - 9) / 10)
            return std::nullopt;
        seq = seq * 10 + static_cast<std::uint64_t>(ch - '0');
    }
    return std::pair{epoch, seq};
}

} // namespace detail

} // namespace icsbridge::dav
