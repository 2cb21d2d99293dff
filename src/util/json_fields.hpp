// File: json_fields.hpp
// Reading the fields of a JSON object (Boost.JSON) the one way: a record's fields each of their kind, the
// first wrong one kept as the record's error (no exception); and the lenient reading of providers' answers.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge {

/** @brief The member `key` when it is a string; nullopt when it is absent or of another kind. */
std::optional<std::string> text_at(boost::json::object const& o, std::string_view key);

/** @brief The member `key` when it is a string, else "" (a provider's answer that lacks it). */
std::string text_or_empty(boost::json::object const& o, std::string_view key);

/**
 * @brief Reads the fields of one record; the first wrong one is the error ("KEY is missing", "KEY is not a
 * string"), and every field after it reads as empty, so a reader reads on and checks once at the end.
 */
class FieldReader {
  public:
    /**
     * @brief How an absent field is reported: "KEY is missing", or as a field of the wrong kind ("KEY is not
     * a string"), the words of the push state and the stored sign-in since their first version.
     */
    enum class Absent { missing, wrong_kind };

    explicit FieldReader(boost::json::object const& root, Absent absent = Absent::missing)
        : root_(root)
        , absent_(absent) {}

    /** @brief Whether the record has `key` (an optional field), whatever its kind. */
    bool has(std::string_view key) const { return root_.contains(key); }
    /** @brief The field; nullptr when it is absent (reported as Absent says) or a field was wrong already. */
    boost::json::value const* at(std::string_view key, std::string_view kind);
    /** @brief "KEY is not WHAT", unless a field was wrong already. */
    void wrong(std::string_view key, std::string_view what);
    /** @brief The record's error as given ("an item is not an object"), unless one was found already. */
    void fail(std::string message);

    std::string text(std::string_view key);
    boost::json::object const* object(std::string_view key);
    std::uint64_t count(std::string_view key);
    bool flag(std::string_view key);

    bool ok() const { return bad_.empty(); }
    std::string const& error() const { return bad_; }

  private:
    boost::json::object const& root_;
    Absent absent_;
    std::string bad_;
};

} // namespace icsbridge
