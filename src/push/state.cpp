// File: state.cpp
// TargetState <-> JSON (Boost.JSON) and its file: written by write_file_atomically, so a kill at any
// moment leaves the old state or the new one, never half of each.
#include "push/state.hpp"

#include "util/json_fields.hpp"
#include <icsbridge/files.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <system_error>

namespace icsbridge::push {

namespace json = boost::json;

Result<void>
check_kept_urls(TargetState const& s, std::function<Result<void>(std::string_view url)> const& allowed) {
    // Google and Graph keep a calendar id: no URL, nothing to check. (A sync token is no address even when it
    // looks like one, as Radicale's do; Graph's delta link is, and TargetClient refuses it when sent.)
    if (!s.collection.starts_with("http://") && !s.collection.starts_with("https://"))
        return Result<void>{};
    if (auto ok = allowed(s.collection); !ok)
        return fail(
            ok.error().code,
            ok.error().message +
                " (the target's kept push state points there, written by an earlier version: it is not used; "
                "delete it, storage.dir/push/TARGET.json or its row of icsbridge_push_state, and the "
                "calendar is found again)"
        );
    return Result<void>{};
}

std::string state_path(std::string const& storage_dir, std::string_view target) {
    return storage_dir + "/push/" + std::string(target) + ".json";
}

std::string to_json(TargetState const& s) {
    json::object items;
    for (auto const& [uid, w] : s.items)
        items[uid] = json::object{{"name", w.name}, {"etag", w.etag}, {"hash", w.hash}};
    json::object listing;
    for (auto const& [name, etag] : s.listing)
        listing[name] = etag;
    json::object ids;
    for (auto const& [name, id] : s.ids)
        ids[name] = id;
    json::object root{
        {"version", 1},
        {"identity", s.identity},
        {"collection", s.collection},
        {"sync_token", s.sync_token},
        {"todos", s.todos},
        {"created", s.created},
        {"items", std::move(items)},
        {"listing", std::move(listing)},
        {"ids", std::move(ids)}};
    return json::serialize(root);
}

namespace {

void read_items(FieldReader& r, TargetState& s) {
    auto const* items = r.object("items");
    if (!items)
        return;
    for (auto const& [uid, w] : *items) {
        if (!w.is_object()) {
            r.fail("an item is not an object");
            return;
        }
        FieldReader item(w.get_object(), FieldReader::Absent::wrong_kind);
        Written written{item.text("name"), item.text("etag"), item.text("hash")};
        if (!item.ok()) {
            r.fail(item.error());
            return;
        }
        s.items[std::string(uid)] = std::move(written);
    }
}

/** A map of names to strings ("listing", "ids"); `what` names one of its values in the error. */
void read_names(
    FieldReader& r, std::string_view key, std::string_view what, std::map<std::string, std::string>& out
) {
    auto const* names = r.object(key);
    if (!names)
        return;
    for (auto const& [name, value] : *names) {
        if (!value.is_string()) {
            r.fail(std::string(what) + " is not a string");
            return;
        }
        out[std::string(name)] = std::string(value.get_string());
    }
}

} // namespace

Result<TargetState> state_from_json(std::string_view text) {
    std::error_code ec;
    json::value const v = json::parse(text, ec);
    if (ec || !v.is_object())
        return fail(errc::io_error, "the push state is not a JSON object");
    auto const& root = v.get_object();
    FieldReader r(root, FieldReader::Absent::wrong_kind);
    TargetState s;
    s.collection = r.text("collection");
    if (r.has("identity"))
        s.identity = r.text("identity");
    s.sync_token = r.text("sync_token");
    if (auto const* todos = root.if_contains("todos"); todos && todos->is_bool())
        s.todos = todos->get_bool();
    if (auto const* made = root.if_contains("created"); made && made->is_bool())
        s.created = made->get_bool();
    read_items(r, s);
    read_names(r, "listing", "a listed ETag", s.listing);
    // Written before ids existed: none to read.
    if (r.has("ids"))
        read_names(r, "ids", "an id", s.ids);
    if (!r.ok())
        return fail(errc::io_error, "the push state is malformed: " + r.error());
    return s;
}

Result<KeptState> kept(Result<TargetState> s) {
    if (!s)
        return s.error();
    return std::make_shared<TargetState const>(std::move(*s));
}

Result<TargetState> load_state(std::string const& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return TargetState{};
    auto text = read_file(path);
    if (!text)
        return text.error();
    auto s = state_from_json(*text);
    if (!s)
        return fail(errc::io_error, path + ": " + s.error().message);
    return s;
}

Result<FileWrite> state_write(std::string const& path, TargetState const& s) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    if (ec)
        return fail(errc::io_error, "cannot create the directory of " + path + ": " + ec.message());
    return FileWrite{path, to_json(s), 0600};
}

Result<void> save_state(std::string const& path, TargetState const& s) {
    auto w = state_write(path, s);
    if (!w)
        return w.error();
    return write_file_atomically(w->path, w->data, w->mode);
}

} // namespace icsbridge::push
