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

/**
 * @brief Writes a 207 body a response at a time: into one string (take()), or with `gather` in batches of
 * parts (parts()) that reference the items' calendar-data where it lies, for a body sent as it is made.
 */
class MultistatusWriter {
  public:
    explicit MultistatusWriter(bool gather = false);
    /** @brief Starts the response for `href`. */
    void begin(std::string_view href);
    /** @brief A property found: its element (the 200 propstat opens before the first). */
    void found(std::string_view element);
    /** @brief An item's calendar-data, found: referenced when gathering, else copied. */
    void calendar_data(Item const& item);
    /** @brief Ends the response begun, with the properties it lacks in a 404 propstat. */
    void end(std::vector<QName const*> const& missing);
    /** @brief A response with a status of its own (404: not there, or gone since the token). */
    void status(std::string_view href, unsigned code);
    /** @brief Closes the document, with a sync-token when given. */
    void finish(std::string_view sync_token = {});
    /** @brief The document (not gathering). */
    std::string take();

    /** @brief The bytes of the batch so far. */
    std::size_t pending() const;
    /** @brief The batch's bytes as parts, valid until next_batch(). */
    void parts(std::vector<std::string_view>& out);
    /** @brief Forgets the batch handed out by parts(); the next one starts empty. */
    void next_batch();

  private:
    void open();
    void shared(std::string_view bytes);

    bool gather_ = false;
    bool open_ = false;   ///< a 200 propstat is open in the response begun
    bool handed_ = false; ///< parts() gave out views of this batch
    std::string out_;
    std::vector<std::pair<std::size_t, std::string_view>> refs_; ///< gathered: (offset in out_, bytes)
    std::size_t shared_bytes_ = 0;
};

/** @brief The status line text of `code` ("HTTP/1.1 404 Not Found"). */
std::string status_line(unsigned code);

} // namespace icsbridge::dav::detail
