// File: connection.cpp
// Connection <-> JSON (Boost.JSON). A parse error names the field, never its value: the record holds
// hashes and a sealed token, and a message may reach a log.
#include "connect/connection.hpp"

#include "oauth/token_store.hpp"
#include "util/json_fields.hpp"
#include <icsbridge/digest.hpp>

#include <boost/json.hpp>

#include <cstdio>
#include <ctime>
#include <limits>

namespace icsbridge::connect {

namespace json = boost::json;
using std::chrono::sys_seconds;

namespace {

constexpr std::int64_t record_version = 1;

using oauth::parse_rfc3339;
using oauth::rfc3339;

json::value optional_time(std::optional<sys_seconds> const& t) {
    if (!t)
        return nullptr;
    return json::value(rfc3339(*t));
}

bool is_hash(std::string_view s) {
    return s.size() == 64 && is_lower_hex(s);
}

/** A time field: a UTC time, or (`nullable`) null for none. */
std::optional<sys_seconds> time_at(FieldReader& r, std::string_view key, bool nullable) {
    std::string_view const kind =
        nullable ? "a UTC time (YYYY-MM-DDTHH:MM:SSZ) or null" : "a UTC time (YYYY-MM-DDTHH:MM:SSZ)";
    auto const* v = r.at(key, kind);
    if (!v || (nullable && v->is_null()))
        return std::nullopt;
    auto t = v->is_string() ? parse_rfc3339(std::string(v->get_string())) : std::nullopt;
    if (!t)
        r.wrong(key, kind);
    return t;
}

void read_identity(FieldReader& r, Connection& c) {
    c.id = r.text("id");
    if (r.ok() && !valid_connection_id(c.id))
        r.wrong("id", "a connection id (22 base64url characters)");
    c.provider = r.text("provider");
    if (r.ok() && c.provider != "google" && c.provider != "microsoft")
        r.wrong("provider", "google or microsoft");
    c.feed = r.text("feed");
    c.view = r.text("view");
    c.token_hash = r.text("token_hash");
    if (r.ok() && !c.token_hash.empty() && !is_hash(c.token_hash))
        r.wrong("token_hash", "empty or a SHA-256 in hex");
    c.key_hash = r.text("key_hash");
    if (r.ok() && !is_hash(c.key_hash))
        r.wrong("key_hash", "a SHA-256 in hex");
    c.client_id = r.text("client_id");
    c.scope = r.text("scope");
    c.sealed_token = r.text("sealed_token");
    c.calendar = r.text("calendar");
    c.created_at = time_at(r, "created_at", false).value_or(sys_seconds{});
}

void read_status(FieldReader& r, Connection& c) {
    c.last_success = time_at(r, "last_success", true);
    c.last_failure = time_at(r, "last_failure", true);
    c.last_error = r.text("last_error");
    auto const items = r.count("items");
    if (items > std::numeric_limits<std::size_t>::max())
        r.wrong("items", "a count that fits");
    c.items = static_cast<std::size_t>(items);
    c.stopped = r.flag("stopped");
}

} // namespace

bool valid_connection_id(std::string_view id) {
    constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    return id.size() == 22 && id.find_first_not_of(alphabet) == std::string_view::npos;
}

std::string connection_hash(std::string_view secret) {
    return to_hex(sha256(secret));
}

void copy_status(Connection const& from, Connection& to) {
    to.last_success = from.last_success;
    to.last_failure = from.last_failure;
    to.last_error = from.last_error;
    to.items = from.items;
    to.stopped = from.stopped;
}

std::string to_json(Connection const& c) {
    json::object root{
        {"version", record_version},
        {"id", c.id},
        {"provider", c.provider},
        {"feed", c.feed},
        {"view", c.view},
        {"token_hash", c.token_hash},
        {"key_hash", c.key_hash},
        {"client_id", c.client_id},
        {"scope", c.scope},
        {"sealed_token", c.sealed_token},
        {"calendar", c.calendar},
        {"created_at", rfc3339(c.created_at)},
        {"last_success", optional_time(c.last_success)},
        {"last_failure", optional_time(c.last_failure)},
        {"last_error", c.last_error},
        {"items", static_cast<std::uint64_t>(c.items)},
        {"stopped", c.stopped}};
    return json::serialize(root);
}

Result<Connection> connection_from_json(std::string_view text) {
    std::error_code ec;
    json::value const v = json::parse(text, ec);
    if (ec || !v.is_object())
        return fail(errc::io_error, "the connection record is not a JSON object");
    auto const& root = v.get_object();
    auto const* version = root.if_contains("version");
    if (!version || !version->is_int64() || version->get_int64() != record_version)
        return fail(
            errc::io_error,
            "the connection record is not version 1 (written by a newer icsbridge, or damaged)"
        );
    FieldReader r(root);
    Connection c;
    read_identity(r, c);
    read_status(r, c);
    if (!r.ok())
        return fail(errc::io_error, "the connection record is malformed: " + r.error());
    return c;
}

} // namespace icsbridge::connect
