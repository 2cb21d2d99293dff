// File: push_state_saver_test.cpp
// StateSaver (issue 39): push states written off the push thread. A save returns before it is written, a
// load sees it at once, a target saved again while waiting is written once with the newest state, and what
// is queued at the end is written by the destructor (into real state files).
#include "push/reconcile.hpp"
#include "push/state_saver.hpp"
#include "support/fixtures.hpp"

#include <boost/test/unit_test.hpp>

#include <condition_variable>
#include <map>
#include <mutex>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::push;

namespace push_state_saver_test {

TargetState state_with(std::string const& token) {
    TargetState s;
    s.collection = "https://dav.example/cal/";
    s.sync_token = token;
    s.items["uid-1"] = Written{"icsbridge-1.ics", "\"e1\"", "h1"};
    return s;
}

KeptState kept_with(std::string const& token) {
    return std::make_shared<TargetState const>(state_with(token));
}

/** An inner store in memory that records each write, and can hold target "a"'s writes until let go. */
struct Recorder {
    std::mutex mtx;
    std::condition_variable changed;
    std::map<std::string, KeptState> kept;
    std::vector<std::pair<std::string, std::string>> writes; ///< (target, sync token) in the order written
    bool hold_a = false;
    bool a_waiting = false;

    PersistenceFor<KeptState> persistence() {
        return [this](std::string const& target) {
            return Persistence<KeptState>{
                [this, target]() -> Result<KeptState> {
                    std::lock_guard lock(mtx);
                    auto it = kept.find(target);
                    return it == kept.end() ? std::make_shared<TargetState const>() : it->second;
                },
                [this, target](KeptState const& s) -> Result<void> {
                    std::unique_lock lock(mtx);
                    if (target == "a" && hold_a) {
                        a_waiting = true;
                        changed.notify_all();
                        changed.wait(lock, [this] { return !hold_a; });
                    }
                    kept[target] = s;
                    writes.emplace_back(target, s->sync_token);
                    return {};
                }};
        };
    }
};

BOOST_AUTO_TEST_SUITE(push_state_saver_test)

BOOST_AUTO_TEST_CASE(a_target_saved_again_while_waiting_is_written_once_with_the_newest_state) {
    Recorder inner;
    StateSaver saver(null_logger());
    auto const keeping = saver.keeping(inner.persistence());
    auto a = keeping("a");
    auto b = keeping("b");
    inner.hold_a = true;
    BOOST_TEST(a.save(kept_with("a1")).has_value());
    {
        std::unique_lock lock(inner.mtx); // the saver's thread is writing a1 now, and waits
        inner.changed.wait(lock, [&] { return inner.a_waiting; });
    }
    // Returned at once although nothing more can be written; the loads see what was saved.
    BOOST_TEST(a.save(kept_with("a2")).has_value());
    BOOST_TEST(b.save(kept_with("b1")).has_value());
    BOOST_TEST(a.save(kept_with("a3")).has_value());
    BOOST_TEST(a.load().value()->sync_token == "a3");
    BOOST_TEST(b.load().value()->sync_token == "b1");
    {
        std::lock_guard lock(inner.mtx);
        BOOST_TEST(inner.writes.empty());
        inner.hold_a = false;
    }
    inner.changed.notify_all();
    saver.flush();
    std::lock_guard lock(inner.mtx);
    using Writes = std::vector<std::pair<std::string, std::string>>;
    BOOST_TEST((inner.writes == Writes{{"a", "a1"}, {"a", "a3"}, {"b", "b1"}})); // a2 never written
    BOOST_TEST(inner.kept["a"]->sync_token == "a3");
    BOOST_TEST((*inner.kept["b"] == state_with("b1")));
}

BOOST_AUTO_TEST_CASE(a_load_while_its_state_is_being_written_sees_that_state) {
    Recorder inner;
    StateSaver saver(null_logger());
    auto a = saver.keeping(inner.persistence())("a");
    inner.kept["a"] = kept_with("old");
    inner.hold_a = true;
    BOOST_TEST(a.save(kept_with("new")).has_value());
    {
        std::unique_lock lock(inner.mtx);
        inner.changed.wait(lock, [&] { return inner.a_waiting; });
    }
    BOOST_TEST(a.load().value()->sync_token == "new"); // the file still holds "old"
    {
        std::lock_guard lock(inner.mtx);
        inner.hold_a = false;
    }
    inner.changed.notify_all();
    saver.flush();
    BOOST_TEST(a.load().value()->sync_token == "new");
}

BOOST_AUTO_TEST_CASE(a_save_is_the_object_the_next_load_returns_and_the_inner_save_writes) {
    // Setup: a's first state held in its write
    Recorder inner;
    StateSaver saver(null_logger());
    auto a = saver.keeping(inner.persistence())("a");
    inner.hold_a = true;
    auto const first = kept_with("a1");
    BOOST_TEST(a.save(first).has_value());
    {
        std::unique_lock lock(inner.mtx);
        inner.changed.wait(lock, [&] { return inner.a_waiting; });
    }
    // Check: being written, then queued, a state is the caller's object, never a copy
    BOOST_TEST(a.load().value().get() == first.get());
    auto const second = kept_with("a2");
    BOOST_TEST(a.save(second).has_value());
    BOOST_TEST(a.load().value().get() == second.get());
    BOOST_TEST(second.use_count() == 2); // the caller's and the queue's
    {
        std::lock_guard lock(inner.mtx);
        inner.hold_a = false;
    }
    inner.changed.notify_all();
    saver.flush();
    // Check: the inner save got that object, and the saver keeps no state once it is written
    BOOST_TEST(inner.kept["a"].get() == second.get());
    BOOST_TEST(first.use_count() == 1);
    BOOST_TEST(second.use_count() == 2); // the caller's and the inner store's
}

BOOST_AUTO_TEST_CASE(what_is_queued_at_the_end_reaches_the_state_files) {
    test::TempDir dir;
    PersistenceFor<KeptState> const files = [&dir](std::string const& target) {
        return state_file(dir.path(), target);
    };
    PersistenceFor<KeptState> keeping;
    {
        StateSaver saver(null_logger());
        keeping = saver.keeping(files);
        for (int i = 0; i < 50; ++i)
            BOOST_TEST(keeping("connection-" + std::to_string(i))
                           .save(kept_with("t" + std::to_string(i)))
                           .has_value());
    }
    for (int i = 0; i < 50; ++i) {
        auto const kept = load_state(state_path(dir.path(), "connection-" + std::to_string(i)));
        BOOST_REQUIRE(kept.has_value());
        BOOST_TEST((*kept == state_with("t" + std::to_string(i))));
    }
    // The saver gone, a save is written by its caller before it returns.
    BOOST_TEST(keeping("late").save(kept_with("late")).has_value());
    BOOST_TEST(load_state(state_path(dir.path(), "late"))->sync_token == "late");
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace push_state_saver_test
