// File: text.cpp
// UTF-8 validation and control-character removal for text that goes into a calendar.
#include "ical/text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace icsbridge::ical {

namespace {

constexpr std::string_view replacement = "\xEF\xBF\xBD"; // U+FFFD

// Length of the valid UTF-8 sequence at s[i], or 0 if it is not one (overlong, surrogate, > U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
    auto const b0 = static_cast<unsigned char>(s[i]);
    auto cont = [&](std::size_t k) {
        return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    };
    auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    if (b0 < 0x80)
        return 1;
    if (b0 >= 0xC2 && b0 <= 0xDF)
        return cont(1) ? 2 : 0;
    if (b0 >= 0xE0 && b0 <= 0xEF) {
        if (!cont(1) || !cont(2))
            return 0;
        if (b0 == 0xE0 && at(1) < 0xA0)
            return 0; // overlong
        if (b0 == 0xED && at(1) >= 0xA0)
            return 0; // UTF-16 surrogate
        return 3;
    }
    if (b0 >= 0xF0 && b0 <= 0xF4) {
        if (!cont(1) || !cont(2) || !cont(3))
            return 0;
        if (b0 == 0xF0 && at(1) < 0x90)
            return 0; // overlong
        if (b0 == 0xF4 && at(1) >= 0x90)
            return 0; // beyond U+10FFFF
        return 4;
    }
    return 0;
}

bool printable_ascii(unsigned char c) {
    return c >= 0x20 && c < 0x7F;
}

/** Where the run of printable ASCII (0x20..0x7E) from `i` ends: eight octets at a time while none of them
 * is below 0x20, 0x7F, or above (the tests are exact, so the octet loop decides the end). */
std::size_t printable_run_end(std::string_view s, std::size_t i) {
    constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, sizeof w);
        std::uint64_t const below_space = (w - ones * 0x20) & ~w;
        std::uint64_t const del = w ^ (ones * 0x7F);
        std::uint64_t const is_del = (del - ones) & ~del;
        if ((below_space | is_del | w) & highs)
            break;
    }
    while (i < s.size() && printable_ascii(static_cast<unsigned char>(s[i])))
        ++i;
    return i;
}

} // namespace

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::string clean_text(std::string_view in) {
    std::string out;
    out.reserve(in.size());
    for (std::size_t i = 0; i < in.size();) {
        auto const c = static_cast<unsigned char>(in[i]);
        if (c >= 0x20 && c < 0x7F) {
            // Fast path for the common ASCII run.
            std::size_t const j = printable_run_end(in, i + 1);
            out.append(in.substr(i, j - i));
            i = j;
            continue;
        }
        if (c == '\r') {
            out.push_back('\n');
            i += (i + 1 < in.size() && in[i + 1] == '\n') ? 2 : 1;
            continue;
        }
        if (c == '\n' || c == '\t') {
            out.push_back(static_cast<char>(c));
            ++i;
            continue;
        }
        if (c < 0x80) { // C0 control or DEL
            ++i;
            continue;
        }
        std::size_t const n = utf8_sequence_length(in, i);
        if (n == 0) {
            out.append(replacement);
            ++i;
            continue;
        }
        out.append(in.substr(i, n));
        i += n;
    }
    return out;
}

std::string one_line(std::string_view in) {
    std::string const cleaned = clean_text(in);
    std::string out;
    out.reserve(cleaned.size());
    bool space = false;
    for (char c : cleaned) {
        if (c == ' ' || c == '\n' || c == '\t') {
            space = true;
            continue;
        }
        if (space && !out.empty())
            out.push_back(' ');
        space = false;
        out.push_back(c);
    }
    return out;
}

std::string category_item(std::string_view in) {
    std::string out = one_line(in);
    for (char& c : out)
        if (c == ',' || c == ';')
            c = '/';
    return out;
}

bool is_web_url(std::string_view url) {
    auto const starts = [&](std::string_view scheme) {
        return url.size() >= scheme.size() &&
               std::equal(scheme.begin(), scheme.end(), url.begin(), [](char want, char c) {
                   return (c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) == want;
               });
    };
    std::size_t const skip = starts("https://") ? 8 : starts("http://") ? 7 : 0;
    return skip != 0 && url.size() > skip && url.find_first_of("/?#", skip) != skip;
}

} // namespace icsbridge::ical
