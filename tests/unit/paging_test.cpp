// File: paging_test.cpp
// PageCursor without sockets: page numbers and continuations, and every guard that keeps a refresh from
// publishing part of a list (an error or empty page inside a known count, announced items that never come)
// or from looping (repeated tokens, page numbers that do not advance, pages of repeats).
#include "sources/paging.hpp"

#include <boost/test/unit_test.hpp>

namespace icsbridge {

namespace paging_test {

Pagination numbered(int page, int count) {
    Pagination p;
    p.page_number = page;
    p.page_count = count;
    p.has_more_items = page < count;
    return p;
}

// A page of a list like the real API's: its number and count, and a token while more pages follow.
Pagination real(int page, int count, std::size_t objects) {
    Pagination p = numbered(page, count);
    p.object_count = objects;
    if (page < count)
        p.continuation = "tok" + std::to_string(page);
    return p;
}

Pagination continued(std::string token) {
    Pagination p;
    p.has_more_items = !token.empty();
    p.continuation = std::move(token);
    return p;
}

} // namespace paging_test

BOOST_AUTO_TEST_SUITE(paging_test)

BOOST_AUTO_TEST_CASE(page_numbers_are_followed_to_the_announced_count) {
    PageCursor c;
    BOOST_TEST(!c.next().page.has_value()); // the first request carries no page parameter
    for (int page = 1; page <= 3; ++page) {
        auto more = c.arrived(numbered(page, 3), 10, 10);
        BOOST_TEST_REQUIRE(more.has_value());
        BOOST_TEST(*more == (page < 3));
        if (page < 3)
            BOOST_TEST((c.next().page == page + 1));
    }
    BOOST_TEST(c.pages() == 3);
}

BOOST_AUTO_TEST_CASE(continuations_are_followed_until_there_is_none) {
    PageCursor c;
    BOOST_TEST(*c.arrived(continued("a"), 5, 5));
    BOOST_TEST((c.next().continuation == std::optional<std::string>("a")));
    BOOST_TEST(*c.arrived(continued("b"), 5, 5));
    BOOST_TEST(!*c.arrived(continued(""), 5, 5));
}

BOOST_AUTO_TEST_CASE(bad_page_inside_a_known_count_fails_and_after_it_ends_the_list) {
    {
        PageCursor c;
        BOOST_TEST_REQUIRE(*c.arrived(numbered(1, 3), 10, 10));
        auto r = c.bad_page(); // page 2 of 3 failed
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST(r.error().message.find("page 2 of 3 answered BAD_PAGE") != std::string::npos);
    }
    {
        // No count announced: old servers end a list with BAD_PAGE.
        PageCursor c;
        Pagination p;
        p.has_more_items = true;
        BOOST_TEST_REQUIRE(*c.arrived(p, 10, 10));
        auto r = c.bad_page();
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(!*r);
    }
    {
        // On the first request it is an error whatever the count.
        PageCursor c;
        BOOST_TEST(c.bad_page().has_error());
    }
}

BOOST_AUTO_TEST_CASE(an_empty_page_before_the_last_fails) {
    PageCursor c;
    BOOST_TEST_REQUIRE(*c.arrived(numbered(1, 4), 10, 10));
    auto r = c.arrived(numbered(2, 4), 0, 0);
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message.find("page 2 of 4 listed nothing") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(announced_items_that_never_arrive_fail) {
    PageCursor c;
    Pagination p;
    p.object_count = 20;
    p.has_more_items = false;
    auto r = c.arrived(p, 0, 0);
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message.find("announces 20 items but carries none") != std::string::npos);

    // An empty list that says so is fine.
    PageCursor empty;
    p.object_count = 0;
    BOOST_TEST(!*empty.arrived(p, 0, 0));
}

BOOST_AUTO_TEST_CASE(loops_stop_with_an_error) {
    {
        PageCursor c;
        BOOST_TEST_REQUIRE(*c.arrived(continued("t"), 1, 1));
        BOOST_TEST(c.arrived(continued("t"), 1, 1).has_error());
    }
    {
        PageCursor c;
        BOOST_TEST_REQUIRE(*c.arrived(numbered(1, 9), 1, 1));
        BOOST_TEST(c.arrived(numbered(1, 9), 1, 1).has_error()); // page 1 again
    }
    {
        // Fresh tokens whose pages only repeat what came before.
        PageCursor c;
        BOOST_TEST_REQUIRE(*c.arrived(continued("t0"), 5, 5));
        BOOST_TEST_REQUIRE(*c.arrived(continued("t1"), 5, 0));
        BOOST_TEST_REQUIRE(*c.arrived(continued("t2"), 5, 0));
        auto r = c.arrived(continued("t3"), 5, 0);
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST(r.error().message.find("repeated earlier items") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(the_rest_of_a_list_is_read_by_number_where_numbers_are_taken) {
    auto const by_number = ListRead::by_number;
    auto const one_at_a_time = ListRead::one_at_a_time;
    // Page count and token: by number unless the endpoint refused numbers, or the list may stop early.
    BOOST_TEST((read_after_first(real(1, 200, 10000), PageNumbers::untried, false) == by_number));
    BOOST_TEST((read_after_first(real(1, 200, 10000), PageNumbers::accepted, false) == by_number));
    BOOST_TEST((read_after_first(real(1, 200, 10000), PageNumbers::refused, false) == one_at_a_time));
    BOOST_TEST((read_after_first(real(1, 200, 10000), PageNumbers::accepted, true) == one_at_a_time));
    // No token: numbers are the only way on, whatever was remembered.
    BOOST_TEST((read_after_first(numbered(1, 9), PageNumbers::refused, false) == by_number));
    // Nothing left, or no count: one at a time.
    BOOST_TEST((read_after_first(real(1, 1, 3), PageNumbers::accepted, false) == one_at_a_time));
    BOOST_TEST((read_after_first(continued("t"), PageNumbers::accepted, false) == one_at_a_time));
    Pagination done = real(1, 5, 50);
    done.has_more_items = false;
    BOOST_TEST((read_after_first(done, PageNumbers::accepted, false) == one_at_a_time));
}

BOOST_AUTO_TEST_CASE(an_untried_endpoint_gets_no_more_numbered_requests_than_go_on_the_wire) {
    BOOST_TEST(numbered_window(PageNumbers::untried, true, 4) == 4);
    BOOST_TEST(numbered_window(PageNumbers::untried, true, 1) == 1);
    BOOST_TEST(numbered_window(PageNumbers::accepted, true, 4) == 8);
    BOOST_TEST(numbered_window(PageNumbers::untried, false, 4) == 8); // no token: nothing to fall back to
    BOOST_TEST(numbered_window(PageNumbers::accepted, true, 1) == 2);
}

BOOST_AUTO_TEST_CASE(numbered_answers_are_judged_against_page_one) {
    auto const first = real(1, 200, 10000);
    auto const page7 = real(7, 200, 10000);
    BOOST_TEST((judge_numbered(7, 200, &page7, first) == NumberedVerdict::use));
    // Refused: a 400, another page than asked, or no page number to tell.
    BOOST_TEST((judge_numbered(7, 400, nullptr, first) == NumberedVerdict::refused));
    auto const page1 = real(1, 200, 10000);
    BOOST_TEST((judge_numbered(7, 200, &page1, first) == NumberedVerdict::refused));
    Pagination unnumbered = page7;
    unnumbered.page_number.reset();
    BOOST_TEST((judge_numbered(7, 200, &unnumbered, first) == NumberedVerdict::refused));
    // The list changed since page 1: read it again.
    auto const grown = real(7, 200, 10001);
    BOOST_TEST((judge_numbered(7, 200, &grown, first) == NumberedVerdict::reread));
    auto const recounted = real(7, 201, 10000);
    BOOST_TEST((judge_numbered(7, 200, &recounted, first) == NumberedVerdict::reread));
    // An error status or a body that did not parse is the error path's, not a verdict on numbers.
    BOOST_TEST((judge_numbered(7, 500, nullptr, first) == NumberedVerdict::use));
    // Without tokens there is nothing to fall back to: the cursor's guards judge every answer.
    auto const plain_first = numbered(1, 9);
    BOOST_TEST((judge_numbered(7, 400, nullptr, plain_first) == NumberedVerdict::use));
    BOOST_TEST((judge_numbered(7, 200, &page1, plain_first) == NumberedVerdict::use));
}

BOOST_AUTO_TEST_CASE(page_numbers_are_remembered_per_endpoint) {
    BOOST_TEST(endpoint_of("/v3/organizations/1234567/events/") == "/v3/organizations/*/events/");
    BOOST_TEST(endpoint_of("/v3/users/me/events/") == "/v3/users/me/events/");
    BOOST_TEST(endpoint_of("/v3/events/9/ticket_classes/") == "/v3/events/*/ticket_classes/");
    PageNumberMemory m;
    BOOST_TEST((m.known("/v3/users/me/events/") == PageNumbers::untried));
    m.remember("/v3/organizations/1/events/", PageNumbers::refused);
    BOOST_TEST((m.known("/v3/organizations/2/events/") == PageNumbers::refused));
    BOOST_TEST((m.known("/v3/users/me/events/") == PageNumbers::untried));
    m.remember("/v3/organizations/1/events/", PageNumbers::accepted);
    BOOST_TEST((m.known("/v3/organizations/1/events/") == PageNumbers::accepted));
}

BOOST_AUTO_TEST_CASE(too_many_items_names_max_items) {
    auto e = too_many_items("big", 500);
    BOOST_TEST((e.code == errc::upstream_too_large));
    BOOST_TEST(e.message.find("max_items = 500") != std::string::npos);
    BOOST_TEST(e.message.find("feed big") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace icsbridge
