// File: html_escape.hpp
// The one HTML escaper of the tree: text and attribute values written into a page or into the
// sanitized X-ALT-DESC, with & < > " ' all escaped, so a value is safe in either quoting.
#pragma once

#include <string>
#include <string_view>

namespace icsbridge {

/** @brief Appends `text` to `out` with & < > " ' escaped. */
inline void append_html_escaped(std::string& out, std::string_view text) {
    // Whole runs at a time: descriptions are mostly runs of plain text between a few escapes.
    std::size_t run = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        std::string_view escaped;
        switch (text[i]) {
        case '&':
            escaped = "&amp;";
            break;
        case '<':
            escaped = "&lt;";
            break;
        case '>':
            escaped = "&gt;";
            break;
        case '"':
            escaped = "&quot;";
            break;
        case '\'':
            escaped = "&#39;";
            break;
        default:
            continue;
        }
        out.append(text.data() + run, i - run).append(escaped);
        run = i + 1;
    }
    out.append(text.data() + run, text.size() - run);
}

/** @brief `text` with & < > " ' escaped. */
inline std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    append_html_escaped(out, text);
    return out;
}

} // namespace icsbridge
