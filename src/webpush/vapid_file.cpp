// File: vapid_file.cpp
// The VAPID key file of a single box: read when it is there; otherwise a new key written to a temp name
// (write_file_atomically: 0600, fsynced) and link()ed to the real one, which fails when another process
// was first: then its key is the key.
#include "util/base64url.hpp"
#include <icsbridge/files.hpp>
#include <icsbridge/webpush.hpp>

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace icsbridge::webpush {

namespace {

Error cannot(std::string const& what, std::string const& path, int err) {
    return fail(errc::io_error, "cannot " + what + " " + path + ": " + std::strerror(err));
}

Result<VapidKey> load(std::string const& path) {
    auto pem = read_file(path);
    if (!pem)
        return pem.error();
    auto key = VapidKey::from_pem(*pem);
    OPENSSL_cleanse(pem->data(), pem->size());
    if (!key)
        return fail(
            errc::io_error,
            "the VAPID key file " + path + ": " + key.error().message +
                " (move it away to have a new key made; every push registration then has to be made again)"
        );
    return key;
}

/** @brief The directory, owner-only when made here: only the service's user reads the key. */
Result<void> make_directory(std::filesystem::path const& dir) {
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec))
        return {};
    std::filesystem::create_directories(dir, ec);
    if (ec)
        return fail(errc::io_error, "cannot create " + dir.string() + ": " + ec.message());
    if (::chmod(dir.c_str(), 0700) != 0)
        return cannot("restrict", dir.string(), errno);
    return {};
}

/** @brief fsync of the directory, so that the link made in it outlives a power cut. */
Result<void> sync_directory(std::filesystem::path const& dir) {
    int const fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return cannot("open", dir.string(), errno);
    int const synced = ::fsync(fd);
    int const err = errno;
    ::close(fd);
    if (synced != 0)
        return cannot("sync", dir.string(), err);
    return {};
}

/** @brief A new key at `path`, or the one another process put there first. */
Result<VapidKey> make(std::string const& path) {
    auto const dir = std::filesystem::path(path).parent_path();
    if (auto made = make_directory(dir); !made)
        return made.error();
    auto key = VapidKey::generate();
    if (!key)
        return key.error();
    auto pem = key->to_pem();
    if (!pem)
        return pem.error();
    // A name of this attempt's own: two threads of one process share a pid.
    std::array<unsigned char, 9> tag{};
    if (RAND_bytes(tag.data(), static_cast<int>(tag.size())) != 1)
        return fail(errc::io_error, "OpenSSL: the random number generator (RAND_bytes) failed");
    std::string const temp =
        path + ".new-" + base64url(std::string_view(reinterpret_cast<char const*>(tag.data()), tag.size()));
    auto written = write_file_atomically(temp, *pem, 0600);
    OPENSSL_cleanse(pem->data(), pem->size());
    if (!written)
        return written.error();
    int const linked = ::link(temp.c_str(), path.c_str());
    int const err = errno;
    ::unlink(temp.c_str());
    if (linked != 0 && err == EEXIST)
        return load(path);
    if (linked != 0)
        return cannot("create", path, err);
    if (auto synced = sync_directory(dir); !synced)
        return synced.error();
    return key;
}

} // namespace

std::string vapid_key_path(std::string const& storage_dir) {
    return storage_dir + "/webpush/vapid.pem";
}

Result<VapidKey> load_or_make_vapid_key(std::string const& storage_dir) {
    auto const path = vapid_key_path(storage_dir);
    std::error_code ec;
    bool const there = std::filesystem::exists(std::filesystem::symlink_status(path, ec));
    if (ec && ec != std::errc::no_such_file_or_directory)
        return fail(errc::io_error, "cannot look at " + path + ": " + ec.message());
    return there ? load(path) : make(path);
}

} // namespace icsbridge::webpush
