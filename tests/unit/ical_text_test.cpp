// File: ical_text_test.cpp
// The text cleaners' fast paths (eight octets at a time, runs between escapes) against plain octet-by-octet
// versions of the same rules, on generated text full of the octets at the edges of each rule.
#include "ical/text.hpp"
#include "util/html_escape.hpp"

#include <boost/test/unit_test.hpp>

#include <random>
#include <string>

namespace icsbridge::ical {

namespace ical_text_test {

/** clean_text()'s rules one octet at a time: UTF-8 checked, CR/CRLF -> LF, other controls but tab dropped. */
std::string reference_clean(std::string_view in) {
    std::string out;
    for (std::size_t i = 0; i < in.size();) {
        auto const c = static_cast<unsigned char>(in[i]);
        if (c == '\r') {
            out.push_back('\n');
            i += i + 1 < in.size() && in[i + 1] == '\n' ? 2 : 1;
        } else if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7F)) {
            out.push_back(static_cast<char>(c));
            ++i;
        } else if (c < 0x80) {
            ++i;
        } else {
            // RFC 3629's table: the lead octet gives the length and the range of the second octet.
            auto const at = [&](std::size_t k) { return static_cast<unsigned char>(in[i + k]); };
            std::size_t n = 0;
            unsigned lo = 0x80, hi = 0xBF;
            if (c >= 0xC2 && c <= 0xDF)
                n = 2;
            else if (c >= 0xE0 && c <= 0xEF)
                n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
            else if (c >= 0xF0 && c <= 0xF4)
                n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
            bool whole = n > 0 && i + n <= in.size() && at(1) >= lo && at(1) <= hi;
            for (std::size_t k = 2; whole && k < n; ++k)
                whole = (at(k) & 0xC0) == 0x80;
            if (whole) {
                out.append(in.substr(i, n));
                i += n;
            } else {
                out.append("\xEF\xBF\xBD");
                ++i;
            }
        }
    }
    return out;
}

std::string reference_escape(std::string_view in) {
    std::string out;
    for (char c : in) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else if (c == '\'')
            out += "&#39;";
        else
            out += c;
    }
    return out;
}

/** Text of printable runs broken by the octets each rule turns on, at every alignment. */
std::string generated(std::mt19937& rng) {
    static std::string const pieces[] = {
        "a",
        "Hello, world",
        " ",
        "~",
        "\x1F",
        "\x7F",
        "\x80",
        "\r",
        "\n",
        "\r\n",
        "\t",
        "\x01",
        std::string(1, '\0'),
        "\xC3\xA9",
        "\xE2\x82\xAC",
        "\xF0\x9F\x98\x80",
        "\xC3",
        "\xE2\x82",
        "\xFF",
        "\xF0",
        "\xF4\x90",
        "\xE0\x80",
        "\xED\xA0",
        "\xC0\xAF",
        "&",
        "<",
        ">",
        "\"",
        "'"};
    std::string s;
    std::size_t const len = std::uniform_int_distribution<std::size_t>(0, 120)(rng);
    while (s.size() < len)
        s += pieces[std::uniform_int_distribution<std::size_t>(0, std::size(pieces) - 1)(rng)];
    return s;
}

} // namespace ical_text_test

BOOST_AUTO_TEST_SUITE(ical_text_test)

BOOST_AUTO_TEST_CASE(clean_text_follows_its_rules_at_every_alignment) {
    // Setup
    std::mt19937 rng(11);
    for (int i = 0; i < 20000; ++i) {
        std::string const s = generated(rng);
        // Run / Check
        BOOST_TEST(clean_text(s) == reference_clean(s));
    }
}

BOOST_AUTO_TEST_CASE(html_escaping_escapes_exactly_five_characters) {
    // Setup
    std::mt19937 rng(12);
    for (int i = 0; i < 20000; ++i) {
        std::string const s = generated(rng);
        std::string out = "kept:";
        // Run
        append_html_escaped(out, s);
        // Check
        BOOST_TEST(out == "kept:" + reference_escape(s));
    }
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace icsbridge::ical
