// File: push_state_saver_test.cpp
// StateSaver (issue 39): push states written off the push thread. A save returns before it is written, a
// load sees it at once (the very object saved), a target saved again while waiting is written once with the
// newest state, what is queued at the end is written by the destructor (into real state files), and state
// files are written in batches (write_files_atomically) that leave each with its newest state.
#include "push/reconcile.hpp"
#include "push/state_saver.hpp"
#include "support/fixtures.hpp"
#include <icsbridge/files.hpp>

#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
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
    bool fail_a = false; ///< a's writes fail, as on a full disk

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
                    if (target == "a" && fail_a)
                        return fail(errc::io_error, "cannot write a: No space left on device");
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

BOOST_AUTO_TEST_CASE(a_state_whose_write_failed_is_what_a_load_sees_until_one_is_written) {
    // Setup: the file holds "old"; a's writes fail
    Recorder inner;
    StateSaver saver(null_logger());
    auto a = saver.keeping(inner.persistence())("a");
    inner.kept["a"] = kept_with("old");
    inner.fail_a = true;
    auto const failed = kept_with("new");
    BOOST_TEST(a.save(failed).has_value());
    saver.flush();
    // Check: the next run goes on from what it wrote, not from the older file
    BOOST_TEST(inner.kept["a"]->sync_token == "old");
    BOOST_TEST(a.load().value().get() == failed.get());
    // Check: once a state of a's is written, the saver holds none
    {
        std::lock_guard lock(inner.mtx);
        inner.fail_a = false;
    }
    BOOST_TEST(a.save(kept_with("newer")).has_value());
    saver.flush();
    BOOST_TEST(inner.kept["a"]->sync_token == "newer");
    BOOST_TEST(failed.use_count() == 1);
}

BOOST_AUTO_TEST_CASE(the_saver_is_busy_while_many_states_wait_and_not_once_they_are_written) {
    // Setup: a's write held, so that everything saved after it waits in the queue
    Recorder inner;
    StateSaver saver(null_logger());
    auto const keeping = saver.keeping(inner.persistence());
    auto a = keeping("a");
    BOOST_REQUIRE(a.busy);
    BOOST_TEST(!a.busy());
    inner.hold_a = true;
    BOOST_TEST(a.save(kept_with("a1")).has_value());
    {
        std::unique_lock lock(inner.mtx);
        inner.changed.wait(lock, [&] { return inner.a_waiting; });
    }
    // Check: busy once 64 states wait (a's being written and 63 queued), whoever asks
    for (int i = 0; i < 62; ++i)
        BOOST_TEST(keeping("c" + std::to_string(i)).save(kept_with("t")).has_value());
    BOOST_TEST(!a.busy());
    BOOST_TEST(keeping("c62").save(kept_with("t")).has_value());
    BOOST_TEST(a.busy());
    BOOST_TEST(keeping("other").busy());
    BOOST_TEST(keeping("c0").save(kept_with("t2")).has_value()); // a save is still taken when busy
    // Check: written, the saver is not busy
    {
        std::lock_guard lock(inner.mtx);
        inner.hold_a = false;
    }
    inner.changed.notify_all();
    saver.flush();
    BOOST_TEST(!a.busy());
    std::lock_guard lock(inner.mtx);
    BOOST_TEST(inner.writes.size() == 64U);
    BOOST_TEST(inner.kept["c0"]->sync_token == "t2");
}

BOOST_AUTO_TEST_CASE(what_is_queued_at_the_end_reaches_the_state_files) {
    test::TempDir dir;
    PersistenceFor<KeptState> const files = [&dir](std::string const& target) {
        return state_file(dir.path(), target);
    };
    PersistenceFor<KeptState> keeping;
    {
        StateSaver saver(null_logger());
        keeping = saver.keeping(files, state_files(dir.path())); // in batches of files
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

/** Target "a"'s state files, whose batch write can be held while its bytes are made (on the saver's thread).
 */
struct HeldFiles {
    explicit HeldFiles(std::string d)
        : dir(std::move(d)) {}
    std::string dir;
    std::mutex mtx;
    std::condition_variable changed;
    bool hold_a = false;
    bool a_waiting = false;

    StateFiles files() {
        return [this, to = state_files(dir)](std::string const& target, TargetState const& s) {
            std::unique_lock lock(mtx);
            if (target == "a" && hold_a) {
                a_waiting = true;
                changed.notify_all();
                changed.wait(lock, [this] { return !hold_a; });
            }
            return to(target, s);
        };
    }
    void wait_for_a() {
        std::unique_lock lock(mtx);
        changed.wait(lock, [this] { return a_waiting; });
    }
    void let_go() {
        {
            std::lock_guard lock(mtx);
            hold_a = false;
        }
        changed.notify_all();
    }
};

PersistenceFor<KeptState> state_files_in(test::TempDir const& dir) {
    return [&dir](std::string const& target) { return state_file(dir.path(), target); };
}

std::set<std::string> names_in(std::string const& dir) {
    std::set<std::string> names;
    for (auto const& e : std::filesystem::directory_iterator(dir))
        names.insert(e.path().filename().string());
    return names;
}

BOOST_AUTO_TEST_CASE(a_state_saved_while_a_batch_is_written_is_written_after_it) {
    // Setup: a's first state held on its way into a batch of files
    test::TempDir dir;
    HeldFiles files(dir.path());
    StateSaver saver(null_logger());
    auto const keeping = saver.keeping(state_files_in(dir), files.files());
    auto a = keeping("a");
    auto b = keeping("b");
    files.hold_a = true;
    BOOST_TEST(a.save(kept_with("a1")).has_value());
    files.wait_for_a();
    // Run: saved while that batch is being written
    auto const newest = kept_with("a2");
    BOOST_TEST(a.save(newest).has_value());
    BOOST_TEST(b.save(kept_with("b1")).has_value());
    BOOST_TEST(a.load().value().get() == newest.get());
    files.let_go();
    saver.flush();
    // Check: every file holds its newest state, and no temp file is left
    BOOST_TEST(load_state(state_path(dir.path(), "a")).value().sync_token == "a2");
    BOOST_TEST((load_state(state_path(dir.path(), "b")).value() == state_with("b1")));
    BOOST_TEST(a.load().value()->sync_token == "a2"); // from the file now: the saver let go of it
    BOOST_TEST(newest.use_count() == 1);
    BOOST_TEST((names_in(dir.path() + "/push") == std::set<std::string>{"a.json", "b.json"}));
}

BOOST_AUTO_TEST_CASE(batches_of_many_state_files_leave_each_with_its_newest_state) {
    // Setup
    test::TempDir dir;
    StateSaver saver(null_logger());
    auto const keeping = saver.keeping(state_files_in(dir), state_files(dir.path()));
    // Run: more targets than one batch writes at a time, each saved three times
    std::set<std::string> expected;
    for (int round = 0; round < 3; ++round)
        for (int i = 0; i < 100; ++i) {
            auto const target = "connection-" + std::to_string(i);
            BOOST_TEST(keeping(target).save(kept_with(target + "/" + std::to_string(round))).has_value());
            expected.insert(target + ".json");
        }
    saver.flush();
    // Check
    for (int i = 0; i < 100; ++i) {
        auto const target = "connection-" + std::to_string(i);
        BOOST_TEST(load_state(state_path(dir.path(), target)).value().sync_token == target + "/2");
    }
    BOOST_TEST((names_in(dir.path() + "/push") == expected));
}

BOOST_AUTO_TEST_CASE(a_batch_of_files_replaces_every_file_and_a_failed_one_alone) {
    // Setup: one file there before, one into a directory that does not exist
    test::TempDir dir;
    BOOST_TEST_REQUIRE(write_file_atomically(dir.file("a.json"), "old").has_value());
    std::vector<FileWrite> const batch{
        {dir.file("a.json"), "new a", 0600},
        {dir.file("missing/b.json"), "b", 0600},
        {dir.file("c.json"), "c", 0600},
    };
    // Run
    auto const results = write_files_atomically(batch);
    // Check
    BOOST_TEST_REQUIRE(results.size() == 3u);
    BOOST_TEST(results[0].has_value());
    BOOST_TEST(!results[1].has_value());
    BOOST_TEST(results[2].has_value());
    BOOST_TEST(read_file(dir.file("a.json")).value() == "new a");
    BOOST_TEST(read_file(dir.file("c.json")).value() == "c");
    struct stat st {};
    BOOST_TEST_REQUIRE(::stat(dir.file("c.json").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    BOOST_TEST((names_in(dir.path()) == std::set<std::string>{"a.json", "c.json"})); // no temp file left
    BOOST_TEST(write_files_atomically({}).empty());
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace push_state_saver_test
