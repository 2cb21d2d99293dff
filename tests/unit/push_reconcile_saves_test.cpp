// File: push_reconcile_saves_test.cpp
// reconcile()'s saves (issue 39), against a calendar API in memory whose writes take a while each (a timer,
// no sockets): as writes land the run saves about once a second, and always at its end with every write;
// while the keeping says it is busy (the saver behind a slow disk) it saves only at its end, and that save
// still holds every write. The run works on what it loaded, never changes the loaded object.
#include "push/calendar_api.hpp"
#include "push/reconcile.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::push;
namespace net = boost::asio;

namespace push_reconcile_saves_test {

TargetConfig memory_target() {
    TargetConfig t;
    t.name = "memory";
    t.url = "https://dav.example/cal/";
    t.max_concurrency = 1;
    t.rate = Budget{}; // no budget: the writes' own time paces the run
    return t;
}

/** A calendar that takes every write after `write_time`, with a new ETag each. */
class MemoryCalendar : public CalendarApi {
  public:
    MemoryCalendar(net::any_io_executor ex, std::chrono::milliseconds write_time)
        : ex_(ex)
        , client_(ex, memory_target(), Logger{})
        , write_time_(write_time) {}

    std::string calendar_identity() const override { return "memory"; }
    TargetClient& client() override { return client_; }
    std::string_view item_form() const override { return "caldav"; }
    Result<std::vector<Resource>> shape(std::vector<Resource> resources) const override { return resources; }

    net::awaitable<Result<Collection>> find_calendar(bool) override {
        co_return Collection{"https://dav.example/cal/", true, false, false};
    }
    net::awaitable<Result<ListingUpdate>> list_ours(TargetState&) override {
        ListingUpdate u;
        u.full = true;
        co_return u;
    }
    net::awaitable<Result<WriteAnswer>> write(TargetState const&, Op const&, Resource const*) override {
        net::steady_timer timer(ex_, write_time_);
        co_await timer.async_wait(net::use_awaitable);
        WriteAnswer a;
        a.etag = "\"" + std::to_string(++writes) + "\"";
        co_return a;
    }
    net::awaitable<Result<std::optional<std::string>>>
    version_now(TargetState const&, std::string const&) override {
        co_return std::nullopt;
    }

    int writes = 0;

  private:
    net::any_io_executor ex_;
    TargetClient client_;
    std::chrono::milliseconds write_time_;
};

std::string calendar_of(int events) {
    std::string ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//icsbridge//test//EN\r\n";
    for (int i = 0; i < events; ++i)
        ics += "BEGIN:VEVENT\r\nUID:event-" + std::to_string(i) +
               "@example.org\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20270301T100000Z\r\n"
               "DTEND:20270301T110000Z\r\nSUMMARY:Event " +
               std::to_string(i) + "\r\nEND:VEVENT\r\n";
    return ics + "END:VCALENDAR\r\n";
}

/** What the run saved: each save's number of items, in order. */
struct Saves {
    bool busy = false;
    KeptState loaded = std::make_shared<TargetState const>();
    std::vector<std::size_t> items;

    Persistence<KeptState> keeping() {
        return Persistence<KeptState>{
            [this]() -> Result<KeptState> { return loaded; },
            [this](KeptState const& s) -> Result<void> {
                items.push_back(s->items.size());
                return {};
            },
            [this] { return busy; }};
    }
};

/** One reconcile of `events` events, each write taking 150 ms (about 1.8 s for 12), to its outcome. */
Result<Outcome> reconcile_with(Saves& saves, int events) {
    net::io_context ioc;
    MemoryCalendar api(ioc.get_executor(), std::chrono::milliseconds(150));
    auto const body = std::make_shared<std::string const>(calendar_of(events));
    std::vector<FeedCalendar> const feeds{FeedCalendar{"f", body, *body, ""}};
    auto const keeping = saves.keeping();
    ReconcileOptions options;
    options.writer = "memory";
    std::optional<Result<Outcome>> outcome;
    net::co_spawn(ioc, reconcile(api, feeds, keeping, options), [&](std::exception_ptr e, Result<Outcome> r) {
        if (e)
            std::rethrow_exception(e);
        outcome = std::move(r);
    });
    ioc.run();
    BOOST_REQUIRE(outcome.has_value());
    BOOST_TEST(api.writes == events);
    return std::move(*outcome);
}

BOOST_AUTO_TEST_SUITE(push_reconcile_saves_test)

BOOST_AUTO_TEST_CASE(a_run_saves_as_its_writes_land_and_at_its_end) {
    Saves saves;
    auto const outcome = reconcile_with(saves, 12);
    BOOST_REQUIRE(outcome.has_value());
    BOOST_TEST(outcome->created == 12U);
    BOOST_TEST(saves.items.size() >= 2U); // at least one while writing (1.8 s of writes), and the last
    BOOST_TEST(saves.items.front() < 12U);
    BOOST_TEST(saves.items.back() == 12U);
    BOOST_TEST(saves.loaded->items.empty()); // the loaded state is the run's to copy, not to change
}

BOOST_AUTO_TEST_CASE(while_the_keeping_is_busy_a_run_saves_only_at_its_end_with_every_write) {
    Saves saves;
    saves.busy = true;
    auto const outcome = reconcile_with(saves, 12);
    BOOST_REQUIRE(outcome.has_value());
    BOOST_TEST(outcome->created == 12U);
    BOOST_TEST((saves.items == std::vector<std::size_t>{12}));
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace push_reconcile_saves_test
