// File: event_text_test.cpp
// What an event's VEVENT says in words: DESCRIPTION is the upstream's plain text exactly, the HTML only when
// there is no text (paragraph breaks kept), X-ALT-DESC the sanitized HTML; SEQUENCE follows the change time;
// two ids that the UID writes the same way give one VEVENT.
#include "support/ics_lines.hpp"
#include <icsbridge/ical.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace icsbridge {

namespace event_text_test {

using namespace std::chrono_literals;
using test::component;
using test::property;

sys_seconds const created = std::chrono::sys_days{std::chrono::year{2026} / 6 / 1};

Event event(std::string id) {
    Event e;
    e.id = std::move(id);
    e.name = "Reading";
    e.start = {"Etc/UTC", {}, created + std::chrono::days(200)};
    e.end = {"Etc/UTC", {}, created + std::chrono::days(200) + 2h};
    e.created = created;
    e.changed = created + 1h;
    e.status = "live";
    return e;
}

std::string render(std::vector<Event> const& events) {
    init_libical();
    CalendarMeta meta;
    meta.feed_name = "t";
    meta.uid_domain = "events.example.com";
    auto r = render_events(meta, events, EventRenderOptions{});
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
    return *r;
}

std::string uid(std::string const& id) {
    return "event-" + id + "@events.example.com";
}

// DESCRIPTION as a client reads it: the TEXT escapes undone.
std::string unescape(std::string const& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '\\' && i + 1 < v.size()) {
            char const n = v[++i];
            out.push_back(n == 'n' || n == 'N' ? '\n' : n);
        } else {
            out.push_back(v[i]);
        }
    }
    return out;
}

} // namespace event_text_test

BOOST_AUTO_TEST_SUITE(event_text_test)

BOOST_AUTO_TEST_CASE(description_is_the_upstream_text_exactly) {
    auto e = event("1");
    e.description_text =
        "First, with; punctuation and a back\\slash.\n\n\tIndented\tand\ttabbed.\n\n\nEnd \u00e9";
    e.description_html = "<p>First</p><p>converted <b>differently</b></p>";
    auto const ics = render({e});
    auto const desc = unescape(property(component(ics, uid("1")), "DESCRIPTION"));
    BOOST_TEST(desc == e.description_text);
}

BOOST_AUTO_TEST_CASE(html_is_converted_only_without_text_keeping_paragraphs) {
    auto e = event("1");
    e.description_html = "<p>One</p><p>Two</p>Three<br><br>Four<br>Five";
    auto const ics = render({e});
    auto const desc = unescape(property(component(ics, uid("1")), "DESCRIPTION"));
    BOOST_TEST(desc == "One\n\nTwo\n\nThree\n\nFour\nFive");
}

BOOST_AUTO_TEST_CASE(alt_description_carries_sanitized_html) {
    auto e = event("1");
    e.description_text = "Plain";
    e.description_html =
        "<p onclick=\"x()\">Hi <script>alert(1)</script><a href=\"javascript:x()\">a</a></p>";
    auto const comp = component(render({e}), uid("1"));
    std::string const alt = property(comp, "X-ALT-DESC;FMTTYPE=text/html");
    BOOST_TEST(alt == "<html><body><p>Hi <a>a</a></p></body></html>");

    // No HTML, no X-ALT-DESC.
    auto plain = event("2");
    plain.description_text = "Plain";
    BOOST_TEST(render({plain}).find("X-ALT-DESC") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(sequence_rises_with_the_change_time_and_is_stable_otherwise) {
    auto e = event("1");
    auto seq = [&](Event const& x) {
        return std::stoll(property(component(render({x}), uid("1")), "SEQUENCE"));
    };
    long long const first = seq(e);
    BOOST_TEST(seq(e) == first); // same data, same number: the bytes stay identical
    e.changed = *e.changed + 1s;
    long long const second = seq(e);
    BOOST_TEST(second > first);
    e.changed = *e.changed + std::chrono::days(3000); // far beyond: still a valid integer, still rising
    BOOST_TEST(seq(e) > second);
    e.changed.reset();
    BOOST_TEST(seq(e) == 0);
}

BOOST_AUTO_TEST_CASE(ids_written_alike_in_the_uid_give_one_item) {
    auto a = event("3\r\nX-ID:1");
    auto b = event("3 X-ID:1");
    b.name = "Second";
    auto const ics = render({a, b});
    std::size_t n = 0;
    for (auto const& line : test::unfold(ics))
        n += line.starts_with("UID:") ? 1 : 0;
    BOOST_TEST(n == 1u);
    BOOST_TEST(ics.find("UID:event-3 X-ID:1@events.example.com") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_cancelled_prefix_is_never_said_twice) {
    init_libical();
    CalendarMeta meta;
    meta.feed_name = "t";
    meta.uid_domain = "events.example.com";
    auto a = event("1");
    a.status = "canceled";
    auto b = event("2");
    b.status = "canceled";
    b.name = "CANCELLED - Gala";
    auto r = render_events(
        meta,
        std::vector<Event>{a, b},
        EventRenderOptions{std::nullopt, CancelledPolicy::prefix}
    );
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(property(component(*r, uid("1")), "SUMMARY") == "Cancelled: Reading");
    BOOST_TEST(property(component(*r, uid("2")), "SUMMARY") == "CANCELLED - Gala");
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace icsbridge
