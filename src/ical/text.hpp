// File: text.hpp
// Making upstream text safe for iCalendar: valid UTF-8 without control characters, single-line
// variants for SUMMARY/LOCATION/parameters, and the escaping libical 3.0 leaves out for CATEGORIES.
#pragma once

#include <string>
#include <string_view>

namespace icsbridge::ical {

/**
 * @brief Valid UTF-8 with line breaks as `\n`: invalid sequences become U+FFFD, CR/CRLF become LF,
 * other control characters (except tab) are dropped. Parsers reject raw controls in TEXT values.
 */
std::string clean_text(std::string_view in);

/** @brief clean_text() on one line: breaks and tabs become spaces, runs of spaces collapse, trimmed. */
std::string one_line(std::string_view in);

/** @brief Appends `cp` to `out` as UTF-8 (cp must be a valid scalar value). */
void append_utf8(std::string& out, char32_t cp);

/**
 * @brief A CATEGORIES item: one_line() text with `,` and `;` turned into `/`. libical 3.0 writes CATEGORIES
 * without escaping them (and doubles any backslash we add), so a comma would split one category into two.
 */
std::string category_item(std::string_view in);

/**
 * @brief True for an http:// or https:// URL (any case) with a host: the only links written into a
 * calendar (URL, DESCRIPTION, X-ALT-DESC). A `javascript:` or `data:` link must never reach an app that
 * makes links of them.
 */
bool is_web_url(std::string_view url);

} // namespace icsbridge::ical
