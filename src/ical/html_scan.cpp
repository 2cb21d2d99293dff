// File: html_scan.cpp
// Tag scanning, attributes and entities for the two HTML readers (html_text.cpp, html_sanitize.cpp).
#include "ical/html_scan.hpp"

#include "util/ascii.hpp"
#include <icsbridge/digest.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

namespace icsbridge::html {

namespace {

struct NamedEntity {
    std::string_view name;
    char32_t cp;
};

// The entities real descriptions use; anything else stays as written.
constexpr std::array<NamedEntity, 48> named_entities{{
    {"amp", U'&'},         {"lt", U'<'},          {"gt", U'>'},          {"quot", U'"'},
    {"apos", U'\''},       {"nbsp", U' '},        {"rsquo", U'\u2019'},  {"lsquo", U'\u2018'},
    {"rdquo", U'\u201D'},  {"ldquo", U'\u201C'},  {"sbquo", U'\u201A'},  {"bdquo", U'\u201E'},
    {"ndash", U'\u2013'},  {"mdash", U'\u2014'},  {"hellip", U'\u2026'}, {"bull", U'\u2022'},
    {"middot", U'\u00B7'}, {"copy", U'\u00A9'},   {"reg", U'\u00AE'},    {"trade", U'\u2122'},
    {"euro", U'\u20AC'},   {"pound", U'\u00A3'},  {"yen", U'\u00A5'},    {"cent", U'\u00A2'},
    {"laquo", U'\u00AB'},  {"raquo", U'\u00BB'},  {"times", U'\u00D7'},  {"divide", U'\u00F7'},
    {"deg", U'\u00B0'},    {"para", U'\u00B6'},   {"sect", U'\u00A7'},   {"eacute", U'\u00E9'},
    {"egrave", U'\u00E8'}, {"aacute", U'\u00E1'}, {"agrave", U'\u00E0'}, {"iacute", U'\u00ED'},
    {"oacute", U'\u00F3'}, {"uacute", U'\u00FA'}, {"ntilde", U'\u00F1'}, {"ccedil", U'\u00E7'},
    {"auml", U'\u00E4'},   {"ouml", U'\u00F6'},   {"uuml", U'\u00FC'},   {"Auml", U'\u00C4'},
    {"Ouml", U'\u00D6'},   {"Uuml", U'\u00DC'},   {"szlig", U'\u00DF'},  {"shy", U'\u00AD'},
}};

// Longest named entity plus room for "#x10FFFF".
constexpr std::size_t max_entity_length = 10;
// A tag longer than this whose quotes don't balance is treated as ending at the next '>'.
constexpr std::size_t max_quoted_tag_scan = 4096;

} // namespace

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// Position of `needle` (lower-case ASCII) in `hay` from `from`, case-insensitively; npos if absent.
std::size_t ifind(std::string_view hay, std::string_view needle, std::size_t from) {
    if (needle.empty() || hay.size() < needle.size())
        return std::string_view::npos;
    for (std::size_t i = from; i + needle.size() <= hay.size(); ++i) {
        if (lower(hay[i]) != needle[0])
            continue;
        if (ascii_iequals(hay.substr(i, needle.size()), needle))
            return i;
    }
    return std::string_view::npos;
}

// Value of attribute `attr` in the inside of a tag (between the name and '>'), or empty.
std::string_view attribute(std::string_view inside, std::string_view attr) {
    std::size_t i = 0;
    while (i < inside.size()) {
        while (i < inside.size() && (is_space(inside[i]) || inside[i] == '/'))
            ++i;
        std::size_t const name_start = i;
        while (i < inside.size() && !is_space(inside[i]) && inside[i] != '=' && inside[i] != '/')
            ++i;
        std::string_view const name = inside.substr(name_start, i - name_start);
        while (i < inside.size() && is_space(inside[i]))
            ++i;
        std::string_view value;
        if (i < inside.size() && inside[i] == '=') {
            ++i;
            while (i < inside.size() && is_space(inside[i]))
                ++i;
            if (i < inside.size() && (inside[i] == '"' || inside[i] == '\'')) {
                char const q = inside[i++];
                std::size_t const end = inside.find(q, i);
                std::size_t const stop = end == std::string_view::npos ? inside.size() : end;
                value = inside.substr(i, stop - i);
                i = stop + 1;
            } else {
                std::size_t const start = i;
                while (i < inside.size() && !is_space(inside[i]))
                    ++i;
                value = inside.substr(start, i - start);
            }
        }
        if (ascii_iequals(name, attr))
            return value;
        if (name.empty() && value.empty())
            ++i; // stray character: make progress
    }
    return {};
}

// Decodes the entity starting at s[i] == '&'; returns the code point and its length, or length 0.
std::pair<char32_t, std::size_t> decode_entity(std::string_view s, std::size_t i) {
    std::size_t const semi = s.substr(i, max_entity_length + 2).find(';');
    if (semi == std::string_view::npos || semi < 2)
        return {0, 0};
    std::string_view const body = s.substr(i + 1, semi - 1);
    if (body[0] == '#') {
        std::uint32_t cp = 0;
        bool const hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
        std::string_view const digits = body.substr(hex ? 2 : 1);
        if (digits.empty() || digits.size() > 7)
            return {0, 0};
        for (char c : digits) {
            int const d = hex ? hex_digit(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
            if (d < 0)
                return {0, 0};
            cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(d);
        }
        // Windows-1252 quotes sent as &#146; and friends are common in old CMS output.
        if (cp >= 0x91 && cp <= 0x94)
            cp = std::array<std::uint32_t, 4>{0x2018, 0x2019, 0x201C, 0x201D}[cp - 0x91];
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || (cp < 0x20 && cp != '\n' && cp != '\t') ||
            (cp >= 0x7F && cp < 0xA0))
            cp = 0xFFFD;
        return {static_cast<char32_t>(cp), semi + 1};
    }
    for (auto const& e : named_entities)
        if (e.name == body)
            return {e.cp, semi + 1};
    return {0, 0};
}

Tag scan_tag(std::string_view html, std::size_t i, bool& no_more_gt) {
    Tag t;
    t.next = i + 1;
    if (i + 1 >= html.size() || no_more_gt)
        return t;
    char const next = html[i + 1];
    if (html.substr(i, 4) == "<!--") {
        std::size_t const end = html.find("-->", i + 4);
        t.kind = Tag::skipped;
        t.next = end == std::string_view::npos ? html.size() : end + 3;
        return t;
    }
    t.closing = next == '/';
    std::size_t const name_start = i + (t.closing ? 2 : 1);
    bool const markup = next == '!' || next == '?';
    if (!markup && (name_start >= html.size() || !((html[name_start] >= 'a' && html[name_start] <= 'z') ||
                                                   (html[name_start] >= 'A' && html[name_start] <= 'Z'))))
        return t; // "a < b", "<3"
    // Find the end of the tag, honouring quoted attribute values within a bounded window.
    std::size_t end = std::string_view::npos;
    char quote = 0;
    std::size_t const limit = std::min(html.size(), i + max_quoted_tag_scan);
    for (std::size_t k = name_start; k < limit; ++k) {
        char const ch = html[k];
        if (quote) {
            if (ch == quote)
                quote = 0;
        } else if (ch == '"' || ch == '\'') {
            quote = ch;
        } else if (ch == '>') {
            end = k;
            break;
        }
    }
    if (end == std::string_view::npos)
        end = html.find('>', name_start);
    if (end == std::string_view::npos) {
        no_more_gt = true;
        return t;
    }
    t.next = end + 1;
    if (markup) {
        t.kind = Tag::skipped;
        return t;
    }
    std::size_t name_end = name_start;
    while (name_end < end && !is_space(html[name_end]) && html[name_end] != '/' && html[name_end] != '>')
        ++name_end;
    t.kind = Tag::element;
    t.name = html.substr(name_start, name_end - name_start);
    t.inside = html.substr(name_end, end - name_end);
    return t;
}

std::size_t skip_content(std::string_view html, std::string_view name, std::size_t from) {
    std::string lname(name);
    std::transform(lname.begin(), lname.end(), lname.begin(), lower);
    std::size_t const stop = ifind(html, "</" + lname, from);
    if (stop == std::string_view::npos)
        return html.size();
    std::size_t const gt = html.find('>', stop);
    return gt == std::string_view::npos ? html.size() : gt + 1;
}

} // namespace icsbridge::html
