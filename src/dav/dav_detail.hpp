// File: dav_detail.hpp
// The CalDAV core's parts (private to src/dav/ and its tests): sync tokens, request bodies read into plain
// values, calendar-query filters, and the multistatus writer.
#pragma once

#include <icsbridge/dav.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge::dav::detail {

/** @brief (epoch, sequence) of a token Collection::token() made; nullopt for anything else. */
std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_token(std::string_view token);

/** @brief A property's qualified name. */
struct QName {
    std::string ns;
    std::string name;
    friend bool operator==(QName const&, QName const&) = default;
};

/** @brief What a PROPFIND or REPORT asks for: every property (allprop), their names, or these. */
struct PropRequest {
    enum class Kind { allprop, propname, prop };
    Kind kind = Kind::allprop;
    std::vector<QName> props;
};

struct TimeRange {
    std::optional<long long> start, end; ///< seconds since 1970 (UTC)
};

struct TextMatch {
    std::string text;
    bool negate = false;
    bool octet = false; ///< i;octet (case-sensitive); else i;ascii-casemap
};

struct PropFilter {
    std::string name;
    bool not_defined = false;
    std::optional<TextMatch> match;
};

struct CompFilter {
    std::string name;
    bool not_defined = false;
    bool anyof = false; ///< test="anyof": one of the filters below suffices
    std::optional<TimeRange> range;
    std::vector<PropFilter> props;
    std::vector<CompFilter> comps;
};

/** @brief A REPORT body. */
struct Report {
    enum class Kind { multiget, query, sync, unsupported };
    Kind kind = Kind::unsupported;
    PropRequest props;
    std::vector<std::string> hrefs;   ///< multiget
    std::optional<CompFilter> filter; ///< query
    std::string sync_token;           ///< sync: empty for the initial listing
};

/** @brief A PROPFIND body (an empty one is allprop); errc::usage when it is not one. */
Result<PropRequest> parse_propfind(std::string_view body);
/** @brief A REPORT body; errc::usage when it is not well-formed or misses what its kind needs. */
Result<Report> parse_report(std::string_view body);

/** @brief Whether `item` passes calendar-query's filter (its top level names VCALENDAR). */
bool matches(CompFilter const& vcalendar, Item const& item);

/** @brief "20260101T000000Z" as seconds since 1970; nullopt when not that form. */
std::optional<long long> parse_utc(std::string_view text);

/** @brief Writes a 207 body, one response at a time. */
class MultistatusWriter {
  public:
    explicit MultistatusWriter(std::size_t reserve = 0);
    /** @brief A response: `found` the rendered elements (200), `missing` the names it lacks (404). */
    void
    response(std::string_view href, std::vector<std::string> const& found, std::vector<QName> const& missing);
    /** @brief A response with a status of its own (404: not there, or gone since the token). */
    void status(std::string_view href, unsigned code);
    /** @brief Closes the document (with a sync-token when given) and hands the bytes over. */
    std::string finish(std::string_view sync_token = {});

  private:
    std::string out_;
};

/** @brief The status line text of `code` ("HTTP/1.1 404 Not Found"). */
std::string status_line(unsigned code);

} // namespace icsbridge::dav::detail
