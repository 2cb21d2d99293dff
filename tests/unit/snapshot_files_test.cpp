// File: snapshot_files_test.cpp
// SnapshotFiles: a large snapshot body is an unlinked O_TMPFILE in storage.dir (for a refresh, a restored
// copy and a view alike), never linked; where the directory gives none, a sealed memfd, and the bytes are
// whole every time (with no descriptor to spare, the heap: served_feeds_test).
#include "support/fixtures.hpp"
#include "support/server_fixtures.hpp"
#include <icsbridge/store.hpp>

#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

BOOST_AUTO_TEST_SUITE(snapshot_files_test)

namespace snapshot_files_test {

using namespace icsbridge;

auto const t0 = std::chrono::sys_seconds{std::chrono::hours{500000}};

/** @brief What /proc/self/fd/FD names: "/memfd:icsbridge-snapshot (deleted)", "DIR/#123 (deleted)". */
std::string target_of(int fd) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
    return ec ? std::string() : target.string();
}

bool is_memfd(SealedFile const* file) {
    return file != nullptr && target_of(file->fd()).starts_with("/memfd:icsbridge-snapshot");
}

/** @brief An unlinked file directly in `dir`, with no name there and no link count. */
bool is_tmpfile_in(SealedFile const* file, std::string const& dir) {
    if (file == nullptr)
        return false;
    struct stat st {};
    auto const target = target_of(file->fd());
    return ::fstat(file->fd(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0 &&
           target.starts_with(std::filesystem::canonical(dir).string() + "/#") &&
           target.ends_with(" (deleted)");
}

/** @brief The file's bytes as read through its descriptor (not the mapping). */
std::string read_back(SealedFile const* file, std::size_t size) {
    std::string copy(size + 1, '\0');
    auto const n = ::pread(file->fd(), copy.data(), copy.size(), 0);
    copy.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
    return copy;
}

BOOST_AUTO_TEST_CASE(a_large_body_and_its_gzip_form_are_unlinked_files_in_storage_dir) {
    // Setup
    test::TempDir dir;
    SnapshotFiles const files(dir.path());
    auto const text = test::calendar_body(20000);
    // Run
    auto snap = make_snapshot(text, 20000, t0, t0, true, {}, {}, &files);
    // Check: both files in the directory, unnamed, holding exactly the bytes; the mapping is what is read.
    BOOST_TEST_REQUIRE(is_tmpfile_in(snap->body.file(), dir.path()));
    BOOST_TEST_REQUIRE(is_tmpfile_in(snap->gzip_file.get(), dir.path()));
    BOOST_TEST(snap->body.data() == snap->body.file()->bytes().data());
    BOOST_TEST(snap->body == text);
    BOOST_TEST((read_back(snap->body.file(), text.size()) == text));
    BOOST_TEST((read_back(snap->gzip_file.get(), snap->gzip_body.size()) == snap->gzip_body));
    BOOST_TEST(std::filesystem::is_empty(dir.path())); // nothing named in the operator's directory
    // O_EXCL: the file can never be given a name, so no one else ever reaches it.
    auto const proc = "/proc/self/fd/" + std::to_string(snap->body.file()->fd());
    BOOST_TEST(
        ::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, dir.file("linked").c_str(), AT_SYMLINK_FOLLOW) == -1
    );
    BOOST_TEST(std::filesystem::is_empty(dir.path()));
    // A small body stays on the heap.
    BOOST_TEST(
        make_snapshot(test::calendar_body(3), 3, t0, t0, true, {}, {}, &files)->body.file() == nullptr
    );
}

BOOST_AUTO_TEST_CASE(refreshes_restored_copies_and_views_use_the_served_tables_directory) {
    // Setup: storage.dir is the served table's directory.
    test::TempDir dir;
    auto cfg = test::server_test_config();
    cfg.storage.dir = dir.path();
    ServedFeeds store(cfg);
    auto const text = test::calendar_body(2000);
    // Run: a refresh, then the same bytes kept and restored by another table.
    auto [published, changed] = test::publish(store, "pub", text, 2000, t0);
    BOOST_TEST_REQUIRE(save_snapshot(dir.path(), "pub", *published).has_value());
    ServedFeeds restarted(cfg);
    Publisher publisher(restarted, nullptr, null_logger(), true);
    DiskSnapshots disk(dir.path(), restarted.files());
    BOOST_TEST(restore_snapshots(publisher, restarted, disk, null_logger()) == 1u);
    auto loaded = DiskSnapshots(dir.path()).load("pub", true); // a backend of its own opens the directory too
    // Check
    BOOST_TEST(is_tmpfile_in(published->body.file(), dir.path()));
    BOOST_TEST(is_tmpfile_in(restarted.get("pub")->body.file(), dir.path()));
    BOOST_TEST(restarted.get("pub")->body == text);
    BOOST_TEST_REQUIRE(loaded.has_value());
    BOOST_TEST(is_tmpfile_in((*loaded)->body.file(), dir.path()));
    BOOST_TEST((*loaded)->body == text);
}

BOOST_AUTO_TEST_CASE(where_the_directory_gives_no_file_the_body_is_a_sealed_memfd_and_whole) {
    // Setup: a directory that does not exist, a path that is no directory, and a directory whose filesystem
    // has no O_TMPFILE (procfs: the descriptor opens, the file does not).
    test::TempDir dir;
    std::ofstream(dir.file("plain")) << "x";
    auto const text = test::calendar_body(2000);
    for (std::string const& where : {dir.file("missing"), dir.file("plain"), std::string("/proc/self")}) {
        BOOST_TEST_CONTEXT(where) {
            SnapshotFiles const files(where);
            // Run
            auto snap = make_snapshot(text, 2000, t0, t0, true, {}, {}, &files);
            // Check
            BOOST_TEST(is_memfd(snap->body.file()));
            BOOST_TEST(snap->body == text);
            BOOST_TEST_REQUIRE(snap->body.file() != nullptr);
            BOOST_TEST((read_back(snap->body.file(), text.size()) == text));
            BOOST_TEST(::pwrite(snap->body.file()->fd(), "x", 1, 0) == -1); // sealed
            BOOST_TEST(test::gunzipped(snap->gzip_body) == text);
        }
    }
}

bool on_tmpfs(std::string const& dir) {
    struct statfs fs {};
    return ::statfs(dir.c_str(), &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

BOOST_AUTO_TEST_CASE(a_disk_file_goes_whole_with_sendfile_and_shmem_only_up_to_its_limit) {
    // Setup: storage.dir on the disk the tests run on, a memfd, and (where /dev/shm is tmpfs) a directory
    // there.
    test::TempDir dir;
    auto const text = test::calendar_body(2000);
    SnapshotFiles const disk_files(dir.path());
    // Run
    auto const disk = disk_files.make(text);
    auto const memfd = SealedFile::make(text);
    // Check: a disk filesystem's page cache has no per-page cost to avoid; shmem's 4 KiB pages do (9.8 MB:
    // slower than a copy from the mapping).
    BOOST_TEST_REQUIRE(is_tmpfile_in(disk.get(), dir.path()));
    BOOST_TEST(
        disk->sendfile_max() ==
        (on_tmpfs(dir.path()) ? sendfile_max_shmem_bytes : std::numeric_limits<std::size_t>::max())
    );
    BOOST_TEST_REQUIRE(is_memfd(memfd.get()));
    BOOST_TEST(memfd->sendfile_max() == sendfile_max_shmem_bytes);
    if (!on_tmpfs("/dev/shm")) {
        BOOST_TEST_MESSAGE("/dev/shm is not tmpfs here: the tmpfs case is not checked");
        return;
    }
    std::string shm_dir = "/dev/shm/icsbridge-test-XXXXXX";
    BOOST_TEST_REQUIRE(::mkdtemp(shm_dir.data()) != nullptr);
    auto const shm = SnapshotFiles(shm_dir).make(text);
    std::filesystem::remove(shm_dir);
    BOOST_TEST_REQUIRE(shm != nullptr);
    BOOST_TEST(shm->sendfile_max() == sendfile_max_shmem_bytes); // a tmpfile on tmpfs is shmem too
    BOOST_TEST(shm->bytes() == text);
}

} // namespace snapshot_files_test

BOOST_AUTO_TEST_SUITE_END()
