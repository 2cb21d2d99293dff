// File: html_scan.hpp
// The small HTML vocabulary html_to_text() and sanitize_html() share: one tag scanner with bounded
// look-ahead (linear time on hostile input), attribute lookup and entity decoding.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace icsbridge::html {

bool is_space(char c);
char lower(char c);

/** @brief Position of `needle` (lower-case ASCII) in `hay` from `from`, case-insensitively; npos if absent.
 */
std::size_t ifind(std::string_view hay, std::string_view needle, std::size_t from);

/** @brief Value of attribute `attr` in the inside of a tag (between the name and '>'), or empty. */
std::string_view attribute(std::string_view inside, std::string_view attr);

/** @brief Decodes the entity starting at s[i] == '&': the code point and its length, or length 0. */
std::pair<char32_t, std::size_t> decode_entity(std::string_view s, std::size_t i);

/** @brief What starts at a '<'. */
struct Tag {
    enum Kind {
        literal,
        skipped,
        element
    } kind = literal; ///< a plain '<'; a comment or <!...>/<?...>; a tag
    bool closing = false;
    std::string_view name;   ///< as written
    std::string_view inside; ///< between the name and '>'
    std::size_t next = 0;    ///< where scanning continues
};

/**
 * @brief Scans the construct at html[i] == '<'. `no_more_gt` is set (and must be passed back) once a search
 * for '>' failed, since every later one would too: that keeps the scan linear.
 */
Tag scan_tag(std::string_view html, std::size_t i, bool& no_more_gt);

/** @brief Where scanning resumes after the content of element `name` (script, style...) opened before `from`.
 */
std::size_t skip_content(std::string_view html, std::string_view name, std::size_t from);

} // namespace icsbridge::html
