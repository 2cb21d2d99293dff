// File: ascii.hpp
// The one case-insensitive comparison of the tree, for protocol tokens (header values, schemes, month
// names, HTML tag names), which are ASCII.
//
// Why not boost::beast::iequals or boost::urls::grammar::ci_is_equal: in Boost 1.81 both read one
// character past the end of their arguments once the strings differ only in case ("gZip" against
// "gzip"). Inside Beast's own parse buffer that byte happens to be readable; on a view that ends at
// the end of an allocation it is a heap overflow (found by fuzz/request_fuzz.cpp).
#pragma once

#include <algorithm>
#include <string_view>

namespace icsbridge {

/** @brief `c` in lower case when it is an ASCII capital; any other byte unchanged (locale-free). */
constexpr char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/** @brief True when `a` and `b` are equal ignoring ASCII case; reads exactly their bytes. */
constexpr bool ascii_iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return ascii_lower(x) == ascii_lower(y);
           });
}

} // namespace icsbridge
