// File: free_elsewhere_test.cpp
// Large values let go of on one thread and freed on another (util/free_elsewhere.hpp): where a value handed
// over is destroyed, once, with or without an executor, and when a FreedElsewhere holder goes.
#include "util/background.hpp"
#include "util/free_elsewhere.hpp"

#include <boost/asio/thread_pool.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <utility>

namespace icsbridge {

namespace free_elsewhere_test {

/** Reports the thread its last owner was destroyed on; a moved-from one reports nothing. */
class Tracer {
  public:
    explicit Tracer(std::shared_ptr<std::promise<long>> report = nullptr)
        : report_(std::move(report)) {}
    Tracer(Tracer&& other) noexcept
        : report_(std::exchange(other.report_, nullptr)) {}
    Tracer& operator=(Tracer&& other) noexcept {
        report_ = std::exchange(other.report_, nullptr);
        return *this;
    }
    Tracer(Tracer const&) = delete;
    Tracer& operator=(Tracer const&) = delete;
    ~Tracer() {
        if (report_)
            report_->set_value(this_thread_id());
    }

  private:
    std::shared_ptr<std::promise<long>> report_;
};

/** Whether the value was destroyed already (without waiting). */
bool ready(std::future<long> const& f) {
    return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

/** The thread the pool runs its work on. */
long pool_thread(boost::asio::thread_pool& pool) {
    std::promise<long> where;
    boost::asio::post(pool, [&] { where.set_value(this_thread_id()); });
    return where.get_future().get();
}

BOOST_AUTO_TEST_SUITE(free_elsewhere_test)

BOOST_AUTO_TEST_CASE(a_value_handed_over_is_destroyed_once_on_the_executors_thread) {
    // Setup
    auto pool = background_pool();
    auto report = std::make_shared<std::promise<long>>();
    auto freed = report->get_future();

    // Run
    free_elsewhere(pool->get_executor(), Tracer(report));

    // Check: set_value would throw on a second destruction that reports.
    BOOST_TEST(freed.get() == pool_thread(*pool));
    BOOST_TEST(pool_thread(*pool) != this_thread_id());
}

BOOST_AUTO_TEST_CASE(without_an_executor_the_value_is_destroyed_here) {
    // Setup
    auto report = std::make_shared<std::promise<long>>();
    auto freed = report->get_future();

    // Run
    free_elsewhere(std::nullopt, Tracer(report));

    // Check: already destroyed, on this thread.
    BOOST_REQUIRE(ready(freed));
    BOOST_TEST(freed.get() == this_thread_id());
}

BOOST_AUTO_TEST_CASE(a_holder_hands_its_value_over_when_it_goes) {
    // Setup
    auto pool = background_pool();
    auto report = std::make_shared<std::promise<long>>();
    auto freed = report->get_future();

    // Run
    {
        FreedElsewhere<Tracer> held(pool->get_executor());
        *held = Tracer(report);
    }

    // Check
    BOOST_TEST(freed.get() == pool_thread(*pool));
}

BOOST_AUTO_TEST_CASE(a_holder_without_an_executor_frees_its_value_as_it_goes) {
    // Setup
    auto report = std::make_shared<std::promise<long>>();
    auto freed = report->get_future();

    // Run
    {
        FreedElsewhere<Tracer> held(std::nullopt);
        *held = Tracer(report);
        BOOST_TEST(!ready(freed));
    }

    // Check
    BOOST_REQUIRE(ready(freed));
    BOOST_TEST(freed.get() == this_thread_id());
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace free_elsewhere_test

} // namespace icsbridge
