// File: state.cpp
// TargetState <-> JSON (Boost.JSON) and its file: written by write_file_atomically, so a kill at any
// moment leaves the old state or the new one, never half of each.
#include "push/state.hpp"

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
                "delete it, storage.dir/push/TARGET.json or its row of icsbridge_push_state, and the calendar "
                "is found again)"
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

std::string text_at(json::object const& o, std::string_view key) {
    auto const* v = o.if_contains(key);
    if (!v || !v->is_string())
        throw std::invalid_argument(std::string(key) + " is not a string");
    return std::string(v->get_string());
}

json::object const& object_at(json::object const& o, std::string_view key) {
    auto const* v = o.if_contains(key);
    if (!v || !v->is_object())
        throw std::invalid_argument(std::string(key) + " is not an object");
    return v->get_object();
}

} // namespace

Result<TargetState> state_from_json(std::string_view text) {
    std::error_code ec;
    json::value const v = json::parse(text, ec);
    if (ec || !v.is_object())
        return fail(errc::io_error, "the push state is not a JSON object");
    try {
        auto const& root = v.get_object();
        TargetState s;
        s.collection = text_at(root, "collection");
        if (root.contains("identity"))
            s.identity = text_at(root, "identity");
        s.sync_token = text_at(root, "sync_token");
        if (auto const* todos = root.if_contains("todos"); todos && todos->is_bool())
            s.todos = todos->get_bool();
        if (auto const* made = root.if_contains("created"); made && made->is_bool())
            s.created = made->get_bool();
        for (auto const& [uid, w] : object_at(root, "items")) {
            if (!w.is_object())
                throw std::invalid_argument("an item is not an object");
            auto const& o = w.get_object();
            s.items[std::string(uid)] = Written{text_at(o, "name"), text_at(o, "etag"), text_at(o, "hash")};
        }
        for (auto const& [name, etag] : object_at(root, "listing")) {
            if (!etag.is_string())
                throw std::invalid_argument("a listed ETag is not a string");
            s.listing[std::string(name)] = std::string(etag.get_string());
        }
        // Written before ids existed: none to read.
        if (root.contains("ids"))
            for (auto const& [name, id] : object_at(root, "ids")) {
                if (!id.is_string())
                    throw std::invalid_argument("an id is not a string");
                s.ids[std::string(name)] = std::string(id.get_string());
            }
        return s;
    } catch (std::invalid_argument const& e) {
        return fail(errc::io_error, std::string("the push state is malformed: ") + e.what());
    }
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

Result<void> save_state(std::string const& path, TargetState const& s) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    if (ec)
        return fail(errc::io_error, "cannot create the directory of " + path + ": " + ec.message());
    return write_file_atomically(path, to_json(s), 0600);
}

} // namespace icsbridge::push
