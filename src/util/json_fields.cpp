// File: json_fields.cpp
// text_at(), and FieldReader's kinds: a string, an object, a count (an integer from 0), a flag.
#include "util/json_fields.hpp"

namespace icsbridge {

namespace json = boost::json;

std::optional<std::string> text_at(json::object const& o, std::string_view key) {
    auto const* v = o.if_contains(key);
    if (!v || !v->is_string())
        return std::nullopt;
    return std::string(v->get_string());
}

std::string text_or_empty(json::object const& o, std::string_view key) {
    return text_at(o, key).value_or(std::string());
}

json::value const* FieldReader::at(std::string_view key, std::string_view kind) {
    if (!ok())
        return nullptr;
    auto const* v = root_.if_contains(key);
    if (!v) {
        if (absent_ == Absent::missing)
            bad_ = std::string(key) + " is missing";
        else
            wrong(key, kind);
    }
    return v;
}

void FieldReader::wrong(std::string_view key, std::string_view what) {
    fail(std::string(key) + " is not " + std::string(what));
}

void FieldReader::fail(std::string message) {
    if (ok())
        bad_ = std::move(message);
}

std::string FieldReader::text(std::string_view key) {
    auto const* v = at(key, "a string");
    if (v && !v->is_string())
        wrong(key, "a string");
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

json::object const* FieldReader::object(std::string_view key) {
    auto const* v = at(key, "an object");
    if (v && !v->is_object())
        wrong(key, "an object");
    return v && ok() ? &v->get_object() : nullptr;
}

std::uint64_t FieldReader::count(std::string_view key) {
    auto const* v = at(key, "a count (an integer from 0)");
    if (v && v->is_uint64())
        return v->get_uint64();
    if (v && v->is_int64() && v->get_int64() >= 0)
        return static_cast<std::uint64_t>(v->get_int64());
    if (v)
        wrong(key, "a count (an integer from 0)");
    return 0;
}

bool FieldReader::flag(std::string_view key) {
    auto const* v = at(key, "true or false");
    if (v && !v->is_bool())
        wrong(key, "true or false");
    return v && v->is_bool() && v->get_bool();
}

} // namespace icsbridge
