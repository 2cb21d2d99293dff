// File: html_sanitize_test.cpp
// sanitize_html() for X-ALT-DESC: formatting kept, everything that could run or load something removed,
// whatever tricks the markup plays.
#include <icsbridge/ical.hpp>

#include <boost/test/unit_test.hpp>

#include <string>

namespace icsbridge {

namespace html_sanitize_test {

std::string body(std::string const& html) {
    std::string const s = sanitize_html(html);
    std::string const head = "<html><body>", tail = "</body></html>";
    BOOST_REQUIRE_MESSAGE(s.starts_with(head) && s.ends_with(tail), s);
    return s.substr(head.size(), s.size() - head.size() - tail.size());
}

} // namespace html_sanitize_test

BOOST_AUTO_TEST_SUITE(html_sanitize_test)

BOOST_AUTO_TEST_CASE(formatting_and_safe_links_are_kept) {
    BOOST_TEST(
        body(
            "<P>Hello <B>bold</B> &amp; <em>more</em><br><a href=\"https://x.example/?a=1&amp;b=2\">x</a></P>"
        ) ==
        "<p>Hello <b>bold</b> &amp; <em>more</em><br><a href=\"https://x.example/?a=1&amp;b=2\">x</a></p>"
    );
    BOOST_TEST(body("<ul><li>a<li>b</ul>") == "<ul><li>a<li>b</li></li></ul>"); // nested, always closed
    // Issue 29.6: http(s) links only; the text of any other stays.
    BOOST_TEST(body("<a href='mailto:hi@x.example'>mail</a>") == "<a>mail</a>");
}

BOOST_AUTO_TEST_CASE(scripts_styles_and_frames_go_with_their_content) {
    for (std::string bad :
         {"<script>alert(1)</script>",
          "<SCRIPT type=text/javascript>alert(1)</SCRIPT >",
          "<style>p{color:red}</style>",
          "<iframe src=\"https://evil.example\">fallback alert(1)</iframe>",
          "<object data=x>alert(1)</object>",
          "<svg><script>alert(1)</script></svg>",
          "<noscript><img src=x onerror=alert(1)></noscript>"}) {
        std::string const s = sanitize_html("<p>ok</p>" + bad + "<p>after</p>");
        BOOST_TEST(s.find("alert") == std::string::npos, bad << " -> " << s);
        BOOST_TEST(s.find("<p>ok</p>") != std::string::npos);
        BOOST_TEST(s.find("<p>after</p>") != std::string::npos, bad << " -> " << s);
    }
    // Unclosed: everything after it is content of the script, so it all goes.
    BOOST_TEST(sanitize_html("<p>ok</p><script>alert(1)").find("alert") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(event_handlers_styles_and_other_attributes_are_dropped) {
    BOOST_TEST(body("<p onclick=\"alert(1)\" style=\"x\" class=c>t</p>") == "<p>t</p>");
    BOOST_TEST(body("<img src=x onerror=alert(1)>t") == "t");
    BOOST_TEST(
        body("<a href=\"https://ok.example\" onmouseover=\"alert(1)\">t</a>") ==
        "<a href=\"https://ok.example\">t</a>"
    );
}

BOOST_AUTO_TEST_CASE(scripted_urls_are_dropped_however_they_are_spelled) {
    for (std::string href :
         {"javascript:alert(1)",
          "JaVaScRiPt:alert(1)",
          " javascript:alert(1)",
          "java\tscript:alert(1)",
          "jav&#x61;script:alert(1)",
          "&#106;avascript:alert(1)",
          "vbscript:msgbox(1)",
          "data:text/html,<script>alert(1)</script>",
          "//evil.example/x"}) {
        std::string const s = body("<a href=\"" + href + "\">t</a>");
        BOOST_TEST(s == "<a>t</a>", href << " -> " << s);
    }
}

BOOST_AUTO_TEST_CASE(text_is_escaped_and_markup_tricks_stay_text) {
    BOOST_TEST(body("a < b > c \"q\"") == "a &lt; b &gt; c &quot;q&quot;");
    BOOST_TEST(body("it's &amp; 'x'") == "it&#39;s &amp; &#39;x&#39;"); // the pages' escaper: all five
    BOOST_TEST(body("&lt;script&gt;alert(1)&lt;/script&gt;") == "&lt;script&gt;alert(1)&lt;/script&gt;");
    BOOST_TEST(body("<p>x</b></i></p></p>") == "<p>x</p>"); // stray closers are dropped
    BOOST_TEST(body("<!-- <script>alert(1)</script> -->t") == "t");
    BOOST_TEST(body("<p title=\"a>b\">t</p>") == "<p>t</p>"); // '>' inside a quoted value
}

BOOST_AUTO_TEST_CASE(no_text_no_document) {
    BOOST_TEST(sanitize_html("").empty());
    BOOST_TEST(sanitize_html("<p> </p><br><script>x</script>").empty());
}

BOOST_AUTO_TEST_CASE(deep_nesting_is_bounded_and_output_stays_valid_utf8) {
    std::string deep;
    for (int i = 0; i < 10000; ++i)
        deep += "<b>";
    std::string const s = sanitize_html(deep + "x\xff\x01");
    BOOST_TEST(s.size() < 2000u);
    BOOST_TEST(s.find('\x01') == std::string::npos);
    BOOST_TEST(s.find("\xef\xbf\xbd") != std::string::npos); // U+FFFD for the bad byte
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace icsbridge
