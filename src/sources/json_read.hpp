// File: json_read.hpp
// Tolerant readers shared by the events and job board parsers: ids and numbers sent as strings or numbers,
// 0/1 flags, null or missing members, and the date-time formats both upstreams use.
#pragma once

#include <icsbridge/error.hpp>
#include <icsbridge/model.hpp>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::jsonr {

/** @brief The member `key` of `obj`, or nullptr when it is missing or null. */
boost::json::value const* member(boost::json::object const& obj, std::string_view key);

/** @brief The member `key` when it is an object, else nullptr. */
boost::json::object const* object_member(boost::json::object const& obj, std::string_view key);

/** @brief A string, or an integral number written as text (ids arrive either way); nullopt otherwise. */
std::optional<std::string> as_text(boost::json::value const* v);

/** @brief `as_text` of a member, or "" when missing, null or not text. */
std::string text(boost::json::object const& obj, std::string_view key);

/** @brief A number, or a string holding one ("38.91", "-71.0567"); nullopt otherwise. */
std::optional<double> as_number(boost::json::value const* v);

/** @brief An integer, or a string holding one ("1" for perpage); nullopt otherwise. */
std::optional<long long> as_integer(boost::json::value const* v);

/** @brief A flag sent as a bool, 0/1, or "0"/"1"/"true"/"false"; nullopt otherwise. */
std::optional<bool> as_flag(boost::json::value const* v);

/** @brief "YYYY-MM-DDTHH:MM:SS" (or with a space instead of "T"), range-checked (years 1900..2500); nullopt
 * otherwise. */
std::optional<LocalDateTime> parse_local_datetime(std::string_view s);

/**
 * @brief An instant: a local date-time followed by optional fractional seconds and "Z" or an offset
 * ("+02:00", "-0500"). nullopt when anything is off, including a missing zone designator.
 */
std::optional<sys_seconds> parse_instant(std::string_view s);

/** @brief The wall-clock fields of an instant in UTC. */
LocalDateTime to_local(sys_seconds t);

/** @brief "YYYY-MM-DDTHH:MM:SS". */
std::string format_local(LocalDateTime const& t);

/** @brief errc::upstream_malformed with the message "PATH WHAT", e.g. "events[3].id is missing". */
Error malformed(std::string const& path, std::string_view what);

/** @brief The required member `key` (at JSON path `prefix`) as a naive date-time, or an error naming its
 * path. */
Result<LocalDateTime>
required_local(boost::json::object const& obj, std::string_view key, std::string const& prefix);

/** @brief The required member `key` (at JSON path `prefix`) as text (see as_text), or an error naming its
 * path:
 * "... is missing" when absent or null, "... is not a string" otherwise (also when empty unless
 * `allow_empty`). */
Result<std::string> required_text(
    boost::json::object const& obj, std::string_view key, std::string const& prefix, bool allow_empty = false
);

/** @brief The required member `key` (at JSON path `prefix`) as an instant, or an error naming its path. */
Result<sys_seconds>
required_instant(boost::json::object const& obj, std::string_view key, std::string const& prefix);

/** @brief `{"id", "name"}` of the object member `key` (category, type); empty strings when absent. */
Category id_and_name(boost::json::object const& obj, std::string_view key);

/**
 * @brief A parsed body whose nodes live in one arena, freed whole: dropping it does not walk every node (as
 * Boost.JSON does for a value in a shared or counted resource). Move-only; `value` and what points into it
 * must not outlive it.
 */
struct JsonDocument {
    std::unique_ptr<boost::json::monotonic_resource> arena; // declared first: destroyed after `value`
    boost::json::value value;
};

/** @brief Parses a body; errc::upstream_malformed "not JSON (...)" if it is not. */
Result<JsonDocument> parse_body(std::string_view body);

/** @brief "a.b" from a path prefix and a member name ("" prefix gives just the name). */
std::string join_path(std::string_view prefix, std::string_view name);

} // namespace icsbridge::jsonr
