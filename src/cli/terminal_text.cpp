// File: terminal_text.cpp
// terminal_field(): control characters in upstream ids and names, escaped for `categories`/`tags`.
#include "cli/terminal_text.hpp"

#include <icsbridge/digest.hpp>

namespace icsbridge::cli {

std::string terminal_field(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c == '\\') {
            out += "\\\\";
        } else if (c < 0x20 || c == 0x7f) {
            out += "\\x" + to_hex({&c, 1});
        } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 && static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
            // A C1 control in UTF-8 (U+009B is CSI on many terminals).
            auto c1 = static_cast<unsigned char>(s[++i]);
            out += "\\u00" + to_hex({&c1, 1});
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

} // namespace icsbridge::cli
