// File: terminal_text_test.cpp
// terminal_field(): what `categories`/`tags` print of upstream ids and names (issue 16).
#include "cli/terminal_text.hpp"

#include <boost/test/unit_test.hpp>

using icsbridge::cli::terminal_field;
using namespace std::string_literals;

BOOST_AUTO_TEST_SUITE(terminal_text_test)

BOOST_AUTO_TEST_CASE(control_characters_are_escaped) {
    // Regression: names were printed raw, so "\r\n" forged a line and ESC drove the terminal.
    BOOST_TEST(terminal_field("Design\tArt") == "Design\\x09Art");
    BOOST_TEST(terminal_field("a\r\nb") == "a\\x0d\\x0ab");
    BOOST_TEST(terminal_field("\x1b[2J\x1b]0;pwned\x07") == "\\x1b[2J\\x1b]0;pwned\\x07");
    BOOST_TEST(terminal_field("nul\0x"s) == "nul\\x00x");
    BOOST_TEST(terminal_field("del\x7f") == "del\\x7f");
    BOOST_TEST(
        terminal_field("csi\xc2\x9b"
                       "31m") == "csi\\u009b31m"
    );
    BOOST_TEST(terminal_field("back\\slash") == "back\\\\slash");
}

BOOST_AUTO_TEST_CASE(ordinary_text_is_kept) {
    BOOST_TEST(terminal_field("Design & Art") == "Design & Art");
    BOOST_TEST(terminal_field("Café ✓ 😀 ü") == "Café ✓ 😀 ü");
    BOOST_TEST(terminal_field("\xc2\xa0nbsp") == "\xc2\xa0nbsp");
    BOOST_TEST(terminal_field("") == "");
}

BOOST_AUTO_TEST_SUITE_END()
