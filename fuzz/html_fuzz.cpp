// File: html_fuzz.cpp
// Fuzz target: HTML description -> plain text (must never crash, hang, or emit invalid UTF-8 from valid input).
#include <icsbridge/calendar.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
    std::string_view html(reinterpret_cast<char const*>(data), size);
    auto text = icsbridge::html_to_text(html);
    // Text only shrinks or grows by decoded entities; a blow-up would mean quadratic or runaway output.
    if (text.size() > size * 4 + 64)
        __builtin_trap();
    return 0;
}
