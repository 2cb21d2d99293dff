// File: html_text_test.cpp
// html_to_text(): the HTML that upstream descriptions really contain -> readable plain text.
#include <icsbridge/ical.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>

namespace icsbridge {

BOOST_AUTO_TEST_SUITE(html_text_test)

BOOST_AUTO_TEST_CASE(paragraphs_breaks_and_headings) {
    BOOST_TEST(
        html_to_text("<h1>Title</h1><p>First   para\n graph.</p><p>Second<br>line<br/>three</p>") ==
        "Title\n\nFirst para graph.\n\nSecond\nline\nthree"
    );
    BOOST_TEST(html_to_text("<div>a</div><div>b</div>") == "a\nb");
    BOOST_TEST(html_to_text("<p></p><p></p><p>x</p><p><br><br><br></p><p>y</p>") == "x\n\ny");
    BOOST_TEST(html_to_text("  <p>  padded  </p>  ") == "padded");
}

BOOST_AUTO_TEST_CASE(list_items_get_bullets) {
    BOOST_TEST(
        html_to_text("<p>Bring:</p><ul><li>water</li><li> a <b>hat</b> </li></ul><p>Done</p>") ==
        "Bring:\n\n\u2022 water\n\u2022 a hat\n\nDone"
    );
}

BOOST_AUTO_TEST_CASE(links_show_their_url) {
    BOOST_TEST(
        html_to_text("See <a href=\"https://x.example/p?a=1&amp;b=2\">the page</a>.") ==
        "See the page (https://x.example/p?a=1&b=2)."
    );
    // Text that already is the URL is not repeated; empty link text shows the URL.
    BOOST_TEST(html_to_text("<a href='https://x.example'>https://x.example</a>") == "https://x.example");
    BOOST_TEST(html_to_text("<a href=https://x.example/></a>") == "https://x.example/");
    BOOST_TEST(html_to_text("<a href=\"mailto:a@b.example\">a@b.example</a>") == "a@b.example");
    // Script links and anchors carry nothing a reader can use.
    BOOST_TEST(html_to_text("<a href=\"javascript:void(0)\">Buy</a> <a href=\"#top\">Top</a>") == "Buy Top");
}

BOOST_AUTO_TEST_CASE(entities_are_decoded) {
    BOOST_TEST(
        html_to_text("Tom&nbsp;&amp;&nbsp;Jerry &lt;3 &quot;q&quot; &#39;s&#39;") ==
        "Tom & Jerry <3 \"q\" 's'"
    );
    BOOST_TEST(
        html_to_text("it&rsquo;s it&#8217;s it&#x2019;s it&#X2019;s") ==
        "it\u2019s it\u2019s it\u2019s it\u2019s"
    );
    BOOST_TEST(html_to_text("&mdash; &hellip; &euro;5 &eacute;") == "\u2014 \u2026 \u20ac5 \u00e9");
    // Unknown or broken entities stay as written; invalid code points become U+FFFD.
    BOOST_TEST(html_to_text("AT&T &bogus; &#xZZ; & done") == "AT&T &bogus; &#xZZ; & done");
    BOOST_TEST(html_to_text("&#0; &#xD800; &#1114112;") == "\uFFFD \uFFFD \uFFFD");
}

BOOST_AUTO_TEST_CASE(script_style_and_comments_are_dropped) {
    BOOST_TEST(
        html_to_text("a<script>var x = '<p>no</p>';</script>b<style>p{}</style>c<!-- hidden -->d") == "abcd"
    );
    BOOST_TEST(html_to_text("a<SCRIPT type=x>alert(1)</SCRIPT >b") == "ab");
}

BOOST_AUTO_TEST_CASE(plain_text_keeps_its_lines) {
    BOOST_TEST(html_to_text("line one\nline two\n\n\n\nafter   gap") == "line one\nline two\n\nafter gap");
}

BOOST_AUTO_TEST_CASE(malformed_html_does_not_break) {
    BOOST_TEST(html_to_text("a < b and c > d") == "a < b and c > d");
    BOOST_TEST(html_to_text("unclosed <b tag") == "unclosed <b tag");
    BOOST_TEST(html_to_text("<p>open <a href=\"x") == "open <a href=\"x");
    BOOST_TEST(html_to_text("x<script>never closed") == "x");
    BOOST_TEST(html_to_text("<!-- never closed") == "");
    BOOST_TEST(html_to_text("</p></li></a>text<li>") == "text\n\u2022");
    BOOST_TEST(html_to_text("<p title='a>b'>q</p>") == "q");
    BOOST_TEST(html_to_text("") == "");
}

BOOST_AUTO_TEST_CASE(pathological_input_stays_fast) {
    // Inputs that make naive scanners quadratic: many unclosed tags, quotes, entities.
    std::string evil;
    for (int i = 0; i < 100000; ++i)
        evil += "<a href='x ";
    std::string amps(300000, '&');
    std::string lts(300000, '<');
    auto const started = std::chrono::steady_clock::now();
    auto const a = html_to_text(evil);
    auto const b = html_to_text(amps);
    auto const c = html_to_text(lts);
    // A behavioural check, not a timing assertion: the output is the input shown as text.
    BOOST_TEST(b == amps);
    BOOST_TEST(c == lts);
    BOOST_TEST(!a.empty());
    BOOST_TEST_MESSAGE(
        "pathological inputs took " << std::chrono::duration_cast<std::chrono::milliseconds>(
                                           std::chrono::steady_clock::now() - started
                                       )
                                           .count()
                                    << " ms"
    );
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace icsbridge
