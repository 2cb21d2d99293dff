// File: html_fuzz.cpp
// Fuzz target: HTML description -> plain text (DESCRIPTION) and -> the sanitized HTML of X-ALT-DESC. Neither
// may crash, hang or blow up; the sanitized HTML must never carry a tag or attribute outside the allow-list.
#include <icsbridge/ical.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

// Every tag of the rebuilt HTML is `<name>`, `</name>` or `<a href="URL">` with an http(s), mailto or tel
// URL: text is re-escaped, so any other '<' in the output is a sanitizer bug.
bool looks_unsafe(std::string const& html) {
    for (std::size_t i = html.find('<'); i != std::string::npos; i = html.find('<', i + 1)) {
        std::size_t const end = html.find('>', i);
        if (end == std::string::npos)
            return true;
        std::string_view tag(html.data() + i + 1, end - i - 1);
        if (!tag.empty() && tag.front() == '/')
            tag.remove_prefix(1);
        std::size_t n = 0;
        while (n < tag.size() && std::isalnum(static_cast<unsigned char>(tag[n])))
            ++n;
        if (n == 0)
            return true;
        std::string_view const rest = tag.substr(n);
        if (rest.empty())
            continue;
        if (tag.substr(0, n) != "a" || !rest.starts_with(" href=\"") || !rest.ends_with("\"") ||
            rest.substr(7, rest.size() - 8).find('"') != std::string_view::npos)
            return true;
        std::string url(rest.substr(7, std::min<std::size_t>(8, rest.size() - 8)));
        for (char& c : url)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (!url.starts_with("http://") && !url.starts_with("https://") && !url.starts_with("mailto:") &&
            !url.starts_with("tel:"))
            return true;
    }
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
    std::string_view html(reinterpret_cast<char const*>(data), size);
    auto text = icsbridge::html_to_text(html);
    // Text only shrinks or grows by decoded entities; a blow-up would mean quadratic or runaway output.
    if (text.size() > size * 4 + 64)
        __builtin_trap();
    auto safe = icsbridge::sanitize_html(html);
    // Escaping (&quot; is the largest, 6 bytes for 1) and closing tags bound the growth.
    if (safe.size() > size * 8 + 4096)
        __builtin_trap();
    if (looks_unsafe(safe))
        __builtin_trap();
    return 0;
}
