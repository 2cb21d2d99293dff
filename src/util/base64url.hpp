// File: base64url.hpp
// The one base64url codec of the tree (RFC 4648 §5, without `=` padding): PKCE and state (oauth), sealed
// values and ids (connect), and Web Push's keys, salts and tokens (webpush).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace icsbridge {

/** @brief base64url of `bytes` without `=` padding. */
std::string base64url(std::string_view bytes);

/**
 * @brief The bytes of strict unpadded base64url: only the alphabet, and no stray bits in the last character,
 * so one value has one text; nullopt for anything else (padding, `+` or `/`, white space, a length of 4n+1).
 */
std::optional<std::string> from_base64url(std::string_view text);

} // namespace icsbridge
