// File: token_store.cpp
// StoredToken <-> JSON (Boost.JSON) and its file, written by write_file_atomically: a kill at any moment
// leaves the old token or the new one.
#include "oauth/token_store.hpp"

#include "util/json_fields.hpp"
#include <icsbridge/files.hpp>

#include <boost/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <system_error>

namespace icsbridge::oauth {

namespace json = boost::json;

std::string token_path(std::string const& storage_dir, std::string_view target) {
    return storage_dir + "/oauth/" + std::string(target) + ".json";
}

std::string to_json(StoredToken const& t) {
    json::object root{
        {"version", 1},
        {"provider", t.provider},
        {"client_id", t.client_id},
        {"scope", t.scope},
        {"refresh_token", t.refresh_token},
        {"connected_at", rfc3339(t.connected_at)}};
    if (t.refused_at)
        root["refused_at"] = rfc3339(*t.refused_at);
    return json::serialize(root);
}

Result<StoredToken> token_from_json(std::string_view text) {
    std::error_code ec;
    json::value const v = json::parse(text, ec);
    if (ec || !v.is_object())
        return fail(errc::io_error, "the stored token is not a JSON object");
    auto const& root = v.get_object();
    FieldReader r(root, FieldReader::Absent::wrong_kind);
    StoredToken t;
    t.provider = r.text("provider");
    t.client_id = r.text("client_id");
    t.scope = r.text("scope");
    t.refresh_token = r.text("refresh_token");
    auto at = parse_rfc3339(r.text("connected_at"));
    if (r.ok() && !at)
        r.fail("connected_at is not a UTC time (YYYY-MM-DDTHH:MM:SSZ)");
    t.connected_at = at.value_or(std::chrono::sys_seconds{});
    if (r.has("refused_at")) {
        t.refused_at = parse_rfc3339(r.text("refused_at"));
        if (r.ok() && !t.refused_at)
            r.fail("refused_at is not a UTC time (YYYY-MM-DDTHH:MM:SSZ)");
    }
    if (!r.ok())
        return fail(errc::io_error, "the stored token is malformed: " + r.error());
    return t;
}

Result<std::optional<StoredToken>> load_token(std::string const& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return std::optional<StoredToken>{};
    auto text = read_file(path);
    if (!text)
        return text.error();
    auto t = token_from_json(*text);
    if (!t)
        return fail(errc::io_error, path + ": " + t.error().message);
    return std::optional<StoredToken>{std::move(*t)};
}

namespace {

/**
 * Run as root (`sudo icsbridge connect` on a packaged install), the directory and the file go to the owner
 * of storage.dir: the service's user, who must read the token, and who could not read a root's 0600 file.
 */
Result<void> give_to_storage_owner(std::filesystem::path const& dir, std::string const& path) {
    struct stat storage {};
    if (::geteuid() != 0 || ::stat(dir.parent_path().c_str(), &storage) != 0 || storage.st_uid == 0)
        return {};
    for (auto const* p : {dir.c_str(), path.c_str()})
        if (::chown(p, storage.st_uid, storage.st_gid) != 0)
            return fail(
                errc::io_error,
                std::string("cannot give ") + p + " to the owner of " + dir.parent_path().string() +
                    " (the service's user): " + std::strerror(errno)
            );
    return {};
}

} // namespace

Result<void> save_token(std::string const& path, StoredToken const& t) {
    auto const dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
        std::filesystem::create_directories(dir, ec);
        if (ec)
            return fail(errc::io_error, "cannot create the directory of " + path + ": " + ec.message());
        // Only its owner may list whose tokens are kept.
        ::chmod(dir.c_str(), 0700);
    }
    if (auto written = write_file_atomically(path, to_json(t), 0600); !written)
        return written;
    return give_to_storage_owner(dir, path);
}

Persistence<std::optional<StoredToken>, StoredToken>
token_file(std::string const& storage_dir, std::string const& target) {
    auto const path = token_path(storage_dir, target);
    return Persistence<std::optional<StoredToken>, StoredToken>{
        [path] { return load_token(path); },
        [path](StoredToken const& t) { return save_token(path, t); }};
}

Result<StoredToken>
usable_token(std::optional<StoredToken> const& stored, TargetConfig const& t, TargetRef const& ref) {
    if (!stored || stored->refresh_token.empty())
        return not_connected(ref);
    if (stored->provider != provider_name(t.type))
        return not_connected(
            ref,
            "its stored sign-in is for " + stored->provider + ", not " + std::string(provider_name(t.type))
        );
    if (stored->client_id != t.client_id)
        return not_connected(ref, "its stored sign-in is for another client_id");
    if (stored->refused_at)
        return fail(
            errc::not_connected,
            "target " + ref.name + ": " +
                std::string(t.type == TargetType::microsoft ? "Microsoft" : "Google") +
                " refused its sign-in on " + rfc3339(*stored->refused_at) +
                " (invalid_grant: the consent was revoked or has expired); run " + reconnect_command(ref) +
                " again"
        );
    if (stored->scope != scope_for(t))
        return not_connected(
            ref,
            "it was connected for the scope " + stored->scope + "; the config now needs " + scope_for(t)
        );
    return *stored;
}

std::string rfc3339(std::chrono::sys_seconds t) {
    std::time_t const tt = t.time_since_epoch().count();
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::optional<std::chrono::sys_seconds> parse_rfc3339(std::string const& s) {
    std::tm tm{};
    int consumed = 0;
    if (std::sscanf(
            s.c_str(),
            "%4d-%2d-%2dT%2d:%2d:%2dZ%n",
            &tm.tm_year,
            &tm.tm_mon,
            &tm.tm_mday,
            &tm.tm_hour,
            &tm.tm_min,
            &tm.tm_sec,
            &consumed
        ) != 6 ||
        static_cast<std::size_t>(consumed) != s.size())
        return std::nullopt;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    auto const t = std::chrono::sys_seconds(std::chrono::seconds(timegm(&tm)));
    // timegm() carries a month 13 or a minute 61 over; only the text rfc3339() would write is one.
    if (rfc3339(t) != s)
        return std::nullopt;
    return t;
}

} // namespace icsbridge::oauth
