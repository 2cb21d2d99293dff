// File: terminal_text.hpp
// Upstream text made safe for one field of a line-oriented listing on a terminal.
#pragma once

#include <string>
#include <string_view>

namespace icsbridge::cli {

/**
 * @brief `s` with every control character escaped, so that upstream data can neither break the
 * `id<TAB>name` line format (tab, CR, LF) nor drive the terminal (ESC sequences, C1 controls such as CSI):
 * C0 controls and DEL as `\xHH`, U+0080..U+009F as `\u00HH`, and a backslash as `\\`, so the escape is
 * unambiguous. Everything else, UTF-8 included, is kept.
 */
std::string terminal_field(std::string_view s);

} // namespace icsbridge::cli
