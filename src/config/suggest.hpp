// File: suggest.hpp
// "Did you mean ...?" for mistyped config keys, source names, commands and flags.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

/** @brief The candidate closest to `word` when it is plausibly a typo of it (edit distance 1-2), else empty.
 */
std::string closest_match(std::string_view word, std::vector<std::string_view> const& candidates);

} // namespace icsbridge
