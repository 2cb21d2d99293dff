// File: html_escape.hpp
// The one HTML escaper of the tree: text and attribute values written into a page or into the
// sanitized X-ALT-DESC, with & < > " ' all escaped, so a value is safe in either quoting.
#pragma once

#include <string>
#include <string_view>

namespace icsbridge {

/** @brief Appends `text` to `out` with & < > " ' escaped. */
inline void append_html_escaped(std::string& out, std::string_view text) {
    for (char c : text) {
        switch (c) {
        case '&':
            out.append("&amp;");
            break;
        case '<':
            out.append("&lt;");
            break;
        case '>':
            out.append("&gt;");
            break;
        case '"':
            out.append("&quot;");
            break;
        case '\'':
            out.append("&#39;");
            break;
        default:
            out.push_back(c);
        }
    }
}

/** @brief `text` with & < > " ' escaped. */
inline std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    append_html_escaped(out, text);
    return out;
}

} // namespace icsbridge
