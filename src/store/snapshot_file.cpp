// File: snapshot_file.cpp
// The last-good copy of a feed on disk: DIR/NAME.snapshot = one JSON header line + the body,
// written atomically; a file that does not check out (length, shape, hash) is never served.
#include <icsbridge/files.hpp>
#include <icsbridge/store.hpp>

#include <boost/json.hpp>

#include <filesystem>

namespace icsbridge {

namespace {

namespace json = boost::json;

std::string snapshot_path(std::string const& dir, std::string const& name) {
    return dir + "/" + name + ".snapshot";
}

} // namespace

Result<void> save_snapshot(
    std::string const& dir,
    std::string const& name,
    Snapshot const& snap,
    std::optional<sys_seconds> fetched_at
) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        return fail(errc::io_error, "cannot create storage directory " + dir + ": " + ec.message());
    json::object head;
    head["format"] = 1;
    head["etag"] = snap.etag;
    head["last_modified"] = snap.last_modified.time_since_epoch().count();
    head["fetched_at"] = fetched_at.value_or(snap.fetched_at).time_since_epoch().count();
    head["items"] = snap.items;
    head["bytes"] = snap.body.size();
    head["definition"] = snap.definition;
    std::string data = json::serialize(head);
    data += '\n';
    data.reserve(data.size() + snap.body.size());
    data += snap.body;
    // Owner-only: a token-protected feed's calendar must not be readable by other local users.
    return write_file_atomically(snapshot_path(dir, name), data, 0600);
}

Result<std::shared_ptr<Snapshot const>>
load_snapshot(std::string const& dir, std::string const& name, bool gzip, SnapshotFiles const* files) {
    auto path = snapshot_path(dir, name);
    auto data = read_file(path);
    if (!data)
        return data.error();
    auto corrupt = [&](std::string const& why) { return fail(errc::snapshot_corrupt, path + ": " + why); };
    auto nl = data->find('\n');
    if (nl == std::string::npos)
        return corrupt("no header line");
    boost::system::error_code ec;
    json::value head = json::parse(std::string_view(*data).substr(0, nl), ec);
    if (ec || !head.is_object())
        return corrupt("header is not a JSON object");
    auto const& o = head.as_object();
    auto etag = json::try_value_to<std::string>(o.contains("etag") ? o.at("etag") : json::value());
    auto lm =
        json::try_value_to<std::int64_t>(o.contains("last_modified") ? o.at("last_modified") : json::value());
    auto fa = json::try_value_to<std::int64_t>(o.contains("fetched_at") ? o.at("fetched_at") : json::value());
    auto items = json::try_value_to<std::size_t>(o.contains("items") ? o.at("items") : json::value());
    auto bytes = json::try_value_to<std::size_t>(o.contains("bytes") ? o.at("bytes") : json::value());
    // Absent in files kept before icsbridge kept definitions: not known, accepted.
    auto definition = json::try_value_to<std::string>(o.contains("definition") ? o.at("definition") : "");
    if (!etag || !lm || !fa || !items || !bytes || !definition)
        return corrupt("header lacks etag, last_modified, fetched_at, items or bytes");
    std::string body = data->substr(nl + 1);
    if (body.size() != *bytes)
        return corrupt("truncated body");
    // A body altered on disk must not be served under its old ETag, nor something that is no calendar.
    if (auto defect = kept_body_defect(body, *etag); !defect.empty())
        return corrupt("body " + defect);
    return make_snapshot(
        std::move(body),
        *items,
        sys_seconds{std::chrono::seconds{*lm}},
        sys_seconds{std::chrono::seconds{*fa}},
        gzip,
        std::move(*etag),
        std::move(*definition),
        files
    );
}

} // namespace icsbridge
