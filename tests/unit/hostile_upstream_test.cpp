// File: hostile_upstream_test.cpp
// Hostile upstream data through the real parsers and renderer: huge and deeply nested JSON, wrong types
// for every field, broken text, impossible dates and zones. Each gives a clear error or a calendar that
// the real Python parsers (tests/python/check_ics.py) accept.
#include "sources/events_json.hpp"
#include "sources/jobs_json.hpp"
#include "support/fixtures.hpp"
#include "support/upstream_json.hpp"
#include <icsbridge/files.hpp>
#include <icsbridge/ical.hpp>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>
#include <vector>

using namespace icsbridge;
namespace json = boost::json;

namespace hostile_upstream_test {

/** @brief What tests/python/check_ics.py says about `ics`: empty when both parsers accept it. */
std::string parser_complaints(std::string const& ics) {
    test::TempDir dir;
    BOOST_TEST_REQUIRE(write_file_atomically(dir.file("c.ics"), ics).has_value());
    std::string const cmd = "/usr/bin/python3 " ICSBRIDGE_SOURCE_DIR "/tests/python/check_ics.py " +
                            dir.file("c.ics") + " > " + dir.file("out") + " 2>&1";
    if (std::system(cmd.c_str()) == 0)
        return {};
    auto out = read_file(dir.file("out"));
    return out ? *out : "check_ics.py failed without output";
}

/** @brief An upstream error must be one line a user can act on. */
void check_clear_error(Error const& e, std::string const& what) {
    BOOST_TEST((e.code == errc::upstream_malformed), what << ": " << e.message);
    BOOST_TEST(!e.message.empty(), what);
    BOOST_TEST(e.message.find('\n') == std::string::npos, what);
    BOOST_TEST(e.message.size() < 400u, what << ": " << e.message.size() << " bytes");
}

CalendarMeta meta() {
    CalendarMeta m;
    m.feed_name = "hostile";
    return m;
}

std::string render(std::vector<Event> const& events) {
    auto r =
        render_events(meta(), events, EventRenderOptions{std::chrono::hours(1), CancelledPolicy::prefix});
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    return *r;
}

std::string render(std::vector<JobPost> const& posts) {
    auto r = render_jobs(meta(), posts, JobRenderOptions{std::chrono::days(30), JobsAs::both});
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    return *r;
}

std::size_t count_lines_starting(std::string const& ics, std::string const& prefix) {
    std::size_t n = 0;
    for (std::size_t pos = 0; (pos = ics.find("\r\n" + prefix, pos)) != std::string::npos; pos += 2)
        ++n;
    return n;
}

/** @brief A minimal valid event; `start` and `zone` replace the start's utc and timezone. */
std::string event_json(
    std::string const& id,
    std::string const& name,
    std::string const& start_utc = "\"2026-03-01T18:00:00Z\"",
    std::string const& zone = "\"Europe/Berlin\""
) {
    test::UpstreamEvent e(id);
    e.name_json = R"({"text":)" + name + "}";
    e.zone_json = zone;
    e.start_local = "2026-03-01T19:00:00";
    e.start_utc_json = start_utc;
    e.end_local = "2026-03-01T21:00:00";
    e.end_utc_json = R"("2026-03-01T20:00:00Z")";
    e.more = R"(,"url":"https://example.com/e/)" + id + '"';
    return e.json();
}

std::string events_page(std::vector<std::string> const& events) {
    return test::events_page(events);
}

/** @brief Every JSON pointer below `v` (objects and arrays), depth first. */
void collect_pointers(json::value const& v, std::string const& at, std::vector<std::string>& out) {
    if (auto const* o = v.if_object()) {
        for (auto const& [k, child] : *o) {
            std::string p = at + "/" + std::string(k);
            out.push_back(p);
            collect_pointers(child, p, out);
        }
    } else if (auto const* a = v.if_array()) {
        for (std::size_t i = 0; i < a->size(); ++i) {
            std::string p = at + "/" + std::to_string(i);
            out.push_back(p);
            collect_pointers((*a)[i], p, out);
        }
    }
}

/** @brief Values of every JSON type, and the edges of each. */
std::vector<json::value> wrong_values() {
    return {
        nullptr,
        true,
        0,
        -1,
        json::value(std::uint64_t(18446744073709551615ull)),
        json::value(std::int64_t(-9223372036854775807ll - 1)),
        1e308,
        -1.5,
        "",
        "x",
        json::string("\0\x01\x1b", 3),
        json::array{},
        json::array{1, "2", nullptr},
        json::object{},
        json::object{{"a", 1}},
    };
}

/**
 * @brief Replaces each member of the fixture (below `root`) in turn with each wrong value and parses it with
 * `parse`: each answer is a clear error or an item. Returns the items, with ids renumbered (the id is under
 * test too) so their UIDs stay apart.
 */
template <class T>
std::vector<T> parse_every_field_and_type(
    std::string const& fixture, std::string const& root, Result<T> (*parse)(std::string_view)
) {
    json::value const doc = json::parse(test::read_fixture(fixture));
    std::vector<std::string> pointers;
    collect_pointers(doc.at_pointer(root), root, pointers);
    BOOST_TEST_REQUIRE(pointers.size() > 20u);
    std::vector<T> parsed;
    std::size_t errors = 0;
    for (auto const& p : pointers) {
        for (auto const& wrong : wrong_values()) {
            json::value copy = doc;
            copy.at_pointer(p) = wrong;
            auto item = parse(json::serialize(copy));
            if (!item) {
                check_clear_error(item.error(), p + " = " + json::serialize(wrong));
                ++errors;
                continue;
            }
            item->id = "case-" + std::to_string(parsed.size());
            parsed.push_back(std::move(*item));
        }
    }
    BOOST_TEST_MESSAGE(fixture << ": " << parsed.size() << " parsed, " << errors << " refused");
    BOOST_TEST(errors > 0u); // the required fields are checked
    BOOST_TEST(parsed.size() > errors);
    return parsed;
}

} // namespace hostile_upstream_test

BOOST_AUTO_TEST_SUITE(hostile_upstream_test)

BOOST_AUTO_TEST_CASE(deeply_nested_and_truncated_json_are_clear_errors) {
    std::string const deep_array(100000, '[');
    std::string deep_object;
    for (int i = 0; i < 50000; ++i)
        deep_object += R"({"events":)";
    for (std::string const& body :
         {deep_array,
          deep_object,
          std::string(R"({"events":[{"id":"1")"),
          std::string("\xff\xfe{}"),
          std::string("")}) {
        auto events = parse_events_page(body);
        BOOST_TEST_REQUIRE(events.has_error());
        check_clear_error(events.error(), "events page of " + std::to_string(body.size()) + " bytes");
        auto jobs = parse_jobs_page(body);
        BOOST_TEST_REQUIRE(jobs.has_error());
        check_clear_error(jobs.error(), "jobs page of " + std::to_string(body.size()) + " bytes");
        BOOST_TEST(parse_event_body(body).has_error());
        BOOST_TEST(parse_job_body(body).has_error());
        BOOST_TEST(parse_categories(body).has_error());
    }
}

BOOST_AUTO_TEST_CASE(multi_megabyte_strings_render_a_valid_calendar) {
    std::string const big(2 * 1024 * 1024, 'a');
    std::string const words = [] {
        std::string s;
        while (s.size() < 1024 * 1024)
            s += "<p>caf\xc3\xa9 &amp; <b>bold</b> \xe2\x82\xac</p>";
        return s;
    }();
    std::string e = event_json("big", "\"" + big + "\"");
    e.insert(e.size() - 1, R"(,"description":{"html":")" + words + "\"}");
    auto page = parse_events_page(events_page({e}));
    BOOST_TEST_REQUIRE(page.has_value(), page.error().message);
    BOOST_TEST_REQUIRE(page->events.size() == 1u);
    BOOST_TEST(page->events[0].name.size() == big.size());
    std::string const ics = render(page->events);
    BOOST_TEST(ics.size() > big.size());
    BOOST_TEST(parser_complaints(ics) == "");
}

BOOST_AUTO_TEST_CASE(wrong_types_for_every_event_field_give_errors_or_valid_calendars) {
    auto parsed = parse_every_field_and_type<Event>("events/event_expanded_fona.json", "", parse_event_body);
    std::string const ics = render(parsed);
    BOOST_TEST(count_lines_starting(ics, "BEGIN:VEVENT") == parsed.size());
    BOOST_TEST(parser_complaints(ics) == "");
}

BOOST_AUTO_TEST_CASE(wrong_types_for_every_job_field_give_errors_or_valid_calendars) {
    auto parsed = parse_every_field_and_type<JobPost>("jobs/post_2019.json", "/listing", parse_job_body);
    std::string const ics = render(parsed);
    BOOST_TEST(count_lines_starting(ics, "BEGIN:VTODO") == parsed.size());
    BOOST_TEST(parser_complaints(ics) == "");
}

BOOST_AUTO_TEST_CASE(control_characters_nul_and_broken_utf8_are_cleaned) {
    // Each name as JSON text: escapes the JSON parser decodes, and raw bytes it may refuse.
    std::vector<std::string> const names = {
        R"("nul\u0000byte")",
        R"("bell\u0007 esc\u001b[31m del\u007f")",
        R"("line\r\nBEGIN:VEVENT\r\nUID:forged\r\nEND:VEVENT")",
        R"("lone \ud800 surrogate")",
        R"("c1 \u0085 next line \u2028 sep")",
        R"("semi;colon,comma\\back\"quote")",
        "\"raw \xff\xfe invalid\"",
        "\"overlong \xc0\xaf slash\"",
        "\"cut \xe2\x82\"",
    };
    std::vector<Event> parsed;
    for (std::size_t i = 0; i < names.size(); ++i) {
        std::string e = event_json("t" + std::to_string(i), names[i]);
        // The same text in every free-text field, the URL and the organizer.
        e.insert(
            e.size() - 1,
            R"(,"summary":)" + names[i] + R"(,"description":{"html":)" + names[i] + R"(},"venue":{"name":)" +
                names[i] + R"(,"address":{"localized_address_display":)" + names[i] +
                R"(}},"organizer":{"name":)" + names[i] + R"(,"url":)" + names[i] + "}"
        );
        auto page = parse_events_page(events_page({e}));
        if (!page) {
            check_clear_error(page.error(), names[i]);
            BOOST_TEST_MESSAGE(names[i] << ": " << page.error().message);
            continue;
        }
        BOOST_TEST_REQUIRE(page->events.size() == 1u);
        page->events[0].url += names[i]; // a URL carrying the same bytes
        parsed.push_back(page->events[0]);
    }
    BOOST_TEST(parsed.size() >= 5u); // Boost.JSON refuses broken UTF-8 and lone surrogates: "not JSON"
    std::string const ics = render(parsed);
    BOOST_TEST(count_lines_starting(ics, "BEGIN:VEVENT") == parsed.size());
    BOOST_TEST(ics.find("\r\nUID:forged") == std::string::npos);
    for (char c : ics)
        BOOST_TEST_REQUIRE(!(static_cast<unsigned char>(c) < 0x20 && c != '\r' && c != '\n'));
    BOOST_TEST(parser_complaints(ics) == "");
}

BOOST_AUTO_TEST_CASE(text_filling_a_line_exactly_keeps_its_crlf) {
    // Regression: libical folds a property with its own line end, so a value whose last line came to exactly
    // 75 octets was written as "...\r" "\r\n " "\n": a bare CR and LF that parsers reject.
    std::vector<Event> events;
    for (int n = 1; n <= 300; ++n) {
        auto page = parse_events_page(
            events_page({event_json("n" + std::to_string(n), "\"" + std::string(n, 'a') + "\"")})
        );
        BOOST_TEST_REQUIRE(page.has_value(), page.error().message);
        page->events[0].description_html = std::string(n, 'b') + "\u00e9";
        events.push_back(page->events[0]);
    }
    std::string const ics = render(events);
    for (std::size_t i = 0; i < ics.size(); ++i) {
        bool const cr_ok = ics[i] != '\r' || (i + 1 < ics.size() && ics[i + 1] == '\n');
        bool const lf_ok = ics[i] != '\n' || (i > 0 && ics[i - 1] == '\r');
        BOOST_TEST_REQUIRE(
            (cr_ok && lf_ok),
            "bare CR or LF at " << i << ": " << ics.substr(i > 80 ? i - 80 : 0, 100)
        );
    }
    BOOST_TEST(parser_complaints(ics) == "");
}

BOOST_AUTO_TEST_CASE(out_of_range_dates_are_refused_or_render_valid_dates) {
    // Regression: year 0 was accepted and written as DTSTART:00000101..., which parsers reject, and a year
    // past ~2580 made libical fail on the VTIMEZONE, so one such event failed the whole feed.
    std::vector<std::string> const bad = {
        R"("0000-01-01T00:00:00Z")",
        R"("99999-01-01T00:00:00Z")",
        R"("2026-13-01T00:00:00Z")",
        R"("2026-02-30T00:00:00Z")",
        R"("2026-02-28T24:00:00Z")",
        R"("2026-02-28T10:00:60Z")",
        R"("0001-01-01T00:00:00+05:00")",
        R"("2026-02-28T10:00:00+99:00")",
        R"(20260228)",
        R"("2600-01-01T00:00:00Z")",
        R"("1899-12-31T23:59:59Z")",
    };
    for (auto const& start : bad) {
        auto page = parse_events_page(events_page({event_json("d", R"("x")", start)}));
        BOOST_TEST_REQUIRE(page.has_error(), start);
        check_clear_error(page.error(), start);
        BOOST_TEST(page.error().message.find("start.utc") != std::string::npos, page.error().message);
    }
    // Far but representable, in a zone: a valid calendar.
    auto far = parse_events_page(events_page({event_json("far", R"("x")", R"("2500-06-30T12:00:00Z")")}));
    BOOST_TEST_REQUIRE(far.has_value(), far.error().message);

    // A job posted at the end of the range: its due date must not leave the 4-digit years.
    std::vector<JobPost> posts;
    for (std::string date :
         {"9999-12-31 10:00:00", "0000-01-01 00:00:00", "2026-02-30 10:00:00", "2500-12-20 10:00:00"}) {
        auto p =
            parse_job_body(R"({"listing":{"id":"j","title":"t","post_date":")" + date + R"("},"stat":"ok"})");
        if (!p) {
            check_clear_error(p.error(), date);
            BOOST_TEST(p.error().message.find("post_date") != std::string::npos);
            continue;
        }
        p->id = date.substr(0, 4);
        posts.push_back(*p);
    }
    BOOST_TEST(posts.size() == 1u);
    far->events[0].id = "far";
    BOOST_TEST(parser_complaints(render(far->events)) == "");
    BOOST_TEST(parser_complaints(render(posts)) == "");
}

BOOST_AUTO_TEST_CASE(nonsense_time_zones_fall_back_to_utc_without_touching_files) {
    // Regression: a zone name is a path below /usr/share/zoneinfo for libical, so "../../../etc/localtime"
    // was read from disk and written out as a TZID.
    std::vector<std::string> const zones = {
        R"("Mars/Olympus")",
        R"("../../etc/passwd")",
        R"("../../../etc/localtime")",
        R"("/etc/localtime")",
        R"("")",
        R"(null)",
        R"(42)",
        R"("Europe/../Europe/Paris")",
        R"("Europe/Berlin\u0000x")",
        "\"" + std::string(100000, 'Z') + "\"",
    };
    std::vector<Event> parsed;
    for (std::size_t i = 0; i < zones.size(); ++i) {
        auto page = parse_events_page(events_page(
            {event_json("z" + std::to_string(i), R"("x")", R"("2026-03-01T18:00:00Z")", zones[i])}
        ));
        BOOST_TEST_REQUIRE(page.has_value(), zones[i] << ": " << page.error().message);
        parsed.push_back(page->events[0]);
    }
    std::string const ics = render(parsed);
    BOOST_TEST(ics.find("TZID") == std::string::npos);
    BOOST_TEST(count_lines_starting(ics, "DTSTART:20260301T180000Z") == zones.size());
    BOOST_TEST(parser_complaints(ics) == "");
}

BOOST_AUTO_TEST_CASE(coordinates_out_of_range_are_left_out) {
    // Regression: a job's location coordinates were not range-checked, and libical cuts a GEO value at 80
    // characters, so lat 1e300 came out as a GEO without its longitude.
    auto p = parse_job_body(
        R"({"listing":{"id":"g","title":"t","post_date":"2026-01-02 10:00:00",)"
        R"("company":{"name":"c","location":{"name":"Here","lat":"1e300","lng":-1e300}}},"stat":"ok"})"
    );
    BOOST_TEST_REQUIRE(p.has_value(), p.error().message);
    std::string const ics = render(std::vector<JobPost>{*p});
    BOOST_TEST(ics.find("GEO") == std::string::npos);
    BOOST_TEST(ics.find("LOCATION:Here") != std::string::npos);
    BOOST_TEST(parser_complaints(ics) == "");
}

BOOST_AUTO_TEST_CASE(duplicate_ids_in_one_page_are_rendered_once) {
    auto page = parse_events_page(events_page(
        {event_json("same", R"("first")"), event_json("same", R"("second")"), event_json("other", R"("o")")}
    ));
    BOOST_TEST_REQUIRE(page.has_value(), page.error().message);
    std::string const ics = render(page->events);
    BOOST_TEST(count_lines_starting(ics, "UID:event-same@") == 1u);
    BOOST_TEST(count_lines_starting(ics, "BEGIN:VEVENT") == 2u);
    BOOST_TEST(parser_complaints(ics) == "");
}

BOOST_AUTO_TEST_SUITE_END()
