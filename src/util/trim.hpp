// File: trim.hpp
// The one whitespace trimmer of the tree: trim_if for any character class, trim_ows for HTTP's
// optional white space (RFC 9110 5.6.3: space and horizontal tab).
#pragma once

#include <string_view>

namespace icsbridge {

/** @brief True for HTTP's OWS characters: space and horizontal tab. */
constexpr bool is_ows(char c) {
    return c == ' ' || c == '\t';
}

/** @brief `s` without the leading and trailing characters for which `is_blank` holds. */
template <class Pred>
constexpr std::string_view trim_if(std::string_view s, Pred is_blank) {
    while (!s.empty() && is_blank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_blank(s.back()))
        s.remove_suffix(1);
    return s;
}

/** @brief `s` without leading and trailing spaces and tabs (HTTP OWS). */
constexpr std::string_view trim_ows(std::string_view s) {
    return trim_if(s, is_ows);
}

} // namespace icsbridge
