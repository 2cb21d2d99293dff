// File: background_test.cpp
// The background threads run below the thread that starts them (util/background.hpp): the one-thread pools
// that parse a list's pages and render it at last, and PrerenderPool's workers. The nice value is read from
// /proc/self/task/TID/stat, as the kernel's scheduler sees it, not through the code under test.
#include "pipeline/prerender_pool.hpp"
#include "util/background.hpp"

#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <future>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace icsbridge {

namespace background_test {

/** Field 19 of the thread's stat line: its nice value. The name (field 2) may hold spaces and parentheses. */
int nice_in_proc(long tid) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
    BOOST_REQUIRE_MESSAGE(in, "no /proc/self/task/" << tid << "/stat");
    std::string const line{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    auto const name_end = line.rfind(')');
    BOOST_REQUIRE(name_end != std::string::npos);
    std::istringstream fields(line.substr(name_end + 1));
    std::vector<std::string> after_name{
        std::istream_iterator<std::string>(fields),
        std::istream_iterator<std::string>()};
    BOOST_REQUIRE(after_name.size() > 16); // fields 3 (state) to 19 (nice)
    return std::stoi(after_name[16]);
}

/** What a background thread's nice value must be: the starting thread's, plus background_nice, at most 19. */
int lowered_from(int nice) {
    return std::min(19, nice + background_nice);
}

BOOST_AUTO_TEST_SUITE(background_test)

BOOST_AUTO_TEST_CASE(the_proc_reader_sees_this_threads_own_nice_value) {
    BOOST_TEST(nice_in_proc(this_thread_id()) == this_thread_nice());
}

BOOST_AUTO_TEST_CASE(a_background_pool_runs_its_work_at_a_lower_priority_than_its_starter) {
    // Setup
    int const starter = nice_in_proc(this_thread_id());
    BOOST_WARN_MESSAGE(starter < 19, "the test runs at nice 19 already: nothing lower to check");
    auto pool = background_pool();

    // Run: the first job posted after the pool was made reports where it ran.
    std::promise<std::pair<long, int>> where;
    boost::asio::post(*pool, [&] { where.set_value({this_thread_id(), this_thread_nice()}); });
    auto const [tid, nice] = where.get_future().get();

    // Check: read while the thread still exists (the pool is joined at the end of the scope).
    BOOST_TEST(tid != this_thread_id());
    BOOST_TEST(nice_in_proc(tid) == lowered_from(starter));
    BOOST_TEST(nice == lowered_from(starter));
    // The thread that made the pool keeps its own priority.
    BOOST_TEST(nice_in_proc(this_thread_id()) == starter);
}

BOOST_AUTO_TEST_CASE(prerender_workers_build_at_a_lower_priority_than_the_thread_that_feeds_them) {
    // Setup
    int const starter = nice_in_proc(this_thread_id());
    RenderCache cache;
    CalendarMeta meta;
    meta.feed_name = "background";
    meta.uid_domain = "events.example.com";

    // Run
    PrerenderPool pool(meta, EventRenderOptions{}, cache, 3);
    auto const workers = pool.worker_thread_ids();

    // Check
    BOOST_TEST(workers.size() == 3U);
    for (long tid : workers) {
        BOOST_TEST(tid != this_thread_id());
        BOOST_TEST(nice_in_proc(tid) == lowered_from(starter), "worker " << tid);
    }
    BOOST_TEST(nice_in_proc(this_thread_id()) == starter);
    pool.finish_into(cache);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace background_test

} // namespace icsbridge
