// File: reader_util.cpp
// Small parsers and message helpers of the config loader (declared in reader.hpp).
#include "config/reader.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>
#include <boost/url/parse.hpp>

#include <tuple>

namespace icsbridge::config_detail {

// "0s", "0m", "0h0m": a well-formed duration of zero length, which only some keys (keep_past) accept.
bool is_zero_duration(std::string_view text) {
    if (text.find_first_of("123456789") != std::string_view::npos)
        return false;
    // Same syntax as any duration: every run of zeros read as a one must parse.
    std::string ones(text);
    std::replace(ones.begin(), ones.end(), '0', '1');
    return parse_duration(ones).has_value();
}

std::optional<std::size_t> parse_size(std::string_view text) {
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
        ++digits;
    // Ten digits of GiB still fit in 64 bits.
    if (digits == 0 || digits > 10)
        return std::nullopt;
    std::size_t value = 0;
    for (char c : text.substr(0, digits))
        value = value * 10 + static_cast<std::size_t>(c - '0');
    auto unit = text.substr(digits);
    if (unit.starts_with(' '))
        unit.remove_prefix(1);
    constexpr std::pair<std::string_view, std::size_t> units[] =
        {{"B", 1}, {"KiB", 1024}, {"MiB", 1024 * 1024}, {"GiB", std::size_t{1024} * 1024 * 1024}};
    for (auto const& [name, factor] : units)
        if (unit == name && value > 0)
            return value * factor;
    return std::nullopt;
}

std::string_view type_name(toml::node_type t) {
    switch (t) {
    case toml::node_type::table:
        return "a table";
    case toml::node_type::array:
        return "an array";
    case toml::node_type::string:
        return "a string";
    case toml::node_type::integer:
        return "an integer";
    case toml::node_type::floating_point:
        return "a floating-point number";
    case toml::node_type::boolean:
        return "a boolean";
    case toml::node_type::date:
        return "a date";
    case toml::node_type::time:
        return "a time";
    case toml::node_type::date_time:
        return "a date-time";
    default:
        return "nothing";
    }
}

std::string join(std::vector<std::string_view> const& names) {
    std::string out;
    for (auto n : names) {
        if (!out.empty())
            out += ", ";
        out += n;
    }
    return out;
}

bool valid_feed_name(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '_' || c == '-';
    });
}

bool valid_address_or_network(std::string const& s) {
    boost::system::error_code ec;
    if (s.find('/') == std::string::npos) {
        boost::asio::ip::make_address(s, ec);
        return !ec;
    }
    if (s.find(':') == std::string::npos)
        boost::asio::ip::make_network_v4(s, ec);
    else
        boost::asio::ip::make_network_v6(s, ec);
    return !ec;
}

/** Parses "host:port" ("[::1]:8080" for IPv6); the host is returned without brackets. */
std::optional<std::pair<std::string, std::uint16_t>> parse_listen(std::string_view s) {
    auto const colon = s.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == s.size())
        return std::nullopt;
    std::string_view host = s.substr(0, colon);
    std::string_view const port = s.substr(colon + 1);
    if (host.front() == '[') {
        if (host.size() < 3 || host.back() != ']')
            return std::nullopt;
        host = host.substr(1, host.size() - 2);
    } else if (host.find(':') != std::string_view::npos) {
        return std::nullopt; // an IPv6 address needs brackets
    }
    bool const host_ok = std::all_of(host.begin(), host.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '-' || c == ':' || c == '_';
    });
    if (!host_ok || port.size() > 5)
        return std::nullopt;
    unsigned value = 0;
    for (char c : port) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value > 65535)
        return std::nullopt;
    return std::make_pair(std::string(host), static_cast<std::uint16_t>(value));
}

/** Checks an http(s) base URL; returns it without a trailing slash, or an explanation. */
Result<std::string> check_http_url(std::string_view text) {
    auto u = boost::urls::parse_absolute_uri(text);
    if (!u)
        return fail(errc::config_invalid, "must be an absolute URL starting with http:// or https://");
    if (u->scheme_id() != boost::urls::scheme::http && u->scheme_id() != boost::urls::scheme::https)
        return fail(errc::config_invalid, "must start with http:// or https://");
    if (u->encoded_host().empty())
        return fail(errc::config_invalid, "has no host");
    if (u->has_query() || u->has_fragment())
        return fail(errc::config_invalid, "must not have a query or fragment");
    if (u->has_userinfo())
        return fail(errc::config_invalid, "must not carry a user name or password");
    std::string out(text);
    while (!out.empty() && out.back() == '/')
        out.pop_back();
    return out;
}

/** The entries of a table in the order they were written (toml++ keeps its keys sorted). */
std::vector<std::pair<toml::key const*, toml::node const*>> in_file_order(toml::table const& t) {
    std::vector<std::pair<toml::key const*, toml::node const*>> out;
    for (auto const& [k, v] : t)
        out.emplace_back(&k, &v);
    std::sort(out.begin(), out.end(), [](auto const& a, auto const& b) {
        auto const& pa = a.first->source().begin;
        auto const& pb = b.first->source().begin;
        return std::tie(pa.line, pa.column) < std::tie(pb.line, pb.column);
    });
    return out;
}

} // namespace icsbridge::config_detail
