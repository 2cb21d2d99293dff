// File: history_kept.cpp
// The change history's points and trimming, its kept form (one JSON object), and the file beside the
// snapshot that holds it on disk.
#include "dav/history_files.hpp"
#include "dav/history_state.hpp"
#include <icsbridge/files.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>

namespace icsbridge::dav {

namespace detail {

namespace json = boost::json;

std::optional<std::uint64_t> HistoryState::point_of(std::string_view etag) const {
    for (auto it = entries.rbegin(); it != entries.rend(); ++it)
        if (it->etag == etag)
            return it->seq;
    if (floor_etag == etag)
        return floor;
    return std::nullopt;
}

bool HistoryState::is_point(std::uint64_t seq) const {
    auto it =
        std::lower_bound(entries.begin(), entries.end(), seq, [](HistoryEntry const& e, std::uint64_t s) {
            return e.seq < s;
        });
    return seq == floor || (it != entries.end() && it->seq == seq);
}

void HistoryState::truncate_after(std::uint64_t seq) {
    while (!entries.empty() && entries.back().seq > seq)
        entries.pop_back();
}

void HistoryState::trim(sys_seconds oldest) {
    while (!entries.empty() && entries.front().at < oldest) {
        floor = entries.front().seq;
        floor_etag = std::move(entries.front().etag);
        entries.pop_front();
    }
}

std::string to_kept(HistoryState const& state, std::uint64_t upto) {
    json::object o;
    o["format"] = 1;
    // As text: a 64-bit epoch does not survive every JSON reader as a number.
    o["epoch"] = std::to_string(state.epoch);
    o["floor"] = state.floor;
    o["floor_etag"] = state.floor_etag;
    json::array entries;
    for (auto const& e : state.entries) {
        if (e.seq > upto)
            break;
        json::array names;
        names.reserve(e.names.size());
        for (auto const& n : e.names)
            names.emplace_back(n);
        entries.push_back(json::object{
            {"seq", e.seq},
            {"at", e.at.time_since_epoch().count()},
            {"etag", e.etag},
            {"names", std::move(names)},
        });
    }
    o["entries"] = std::move(entries);
    return json::serialize(o);
}

namespace {

std::optional<HistoryEntry> entry_from(json::value const& v) {
    auto const* o = v.if_object();
    if (!o)
        return std::nullopt;
    auto seq = json::try_value_to<std::uint64_t>(o->contains("seq") ? o->at("seq") : json::value());
    auto at = json::try_value_to<std::int64_t>(o->contains("at") ? o->at("at") : json::value());
    auto etag = json::try_value_to<std::string>(o->contains("etag") ? o->at("etag") : json::value());
    auto names =
        json::try_value_to<std::vector<std::string>>(o->contains("names") ? o->at("names") : json::value());
    if (!seq || !at || !etag || !names)
        return std::nullopt;
    return HistoryEntry{*seq, sys_seconds{std::chrono::seconds{*at}}, std::move(*etag), std::move(*names)};
}

} // namespace

std::optional<HistoryState> from_kept(std::string_view kept) {
    boost::system::error_code ec;
    auto v = json::parse(kept, ec);
    auto const* o = ec ? nullptr : v.if_object();
    if (!o)
        return std::nullopt;
    auto format = json::try_value_to<int>(o->contains("format") ? o->at("format") : json::value());
    if (!format || *format != 1)
        return std::nullopt;
    auto epoch = json::try_value_to<std::string>(o->contains("epoch") ? o->at("epoch") : json::value());
    auto floor = json::try_value_to<std::uint64_t>(o->contains("floor") ? o->at("floor") : json::value());
    auto floor_etag =
        json::try_value_to<std::string>(o->contains("floor_etag") ? o->at("floor_etag") : json::value());
    auto const* entries = o->contains("entries") ? o->at("entries").if_array() : nullptr;
    if (!epoch || !floor || !floor_etag || !entries || epoch->empty() || epoch->size() > 20 ||
        !std::all_of(epoch->begin(), epoch->end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    HistoryState s;
    s.epoch = std::stoull(*epoch);
    s.floor = *floor;
    s.floor_etag = std::move(*floor_etag);
    for (auto const& e : *entries) {
        auto entry = entry_from(e);
        // Sequences rise from the floor on: anything else was not written by a History.
        if (!entry || entry->seq <= (s.entries.empty() ? s.floor : s.entries.back().seq))
            return std::nullopt;
        s.entries.push_back(std::move(*entry));
    }
    return s;
}

} // namespace detail

std::string history_path(std::string const& dir, std::string const& feed) {
    return dir + "/" + feed + ".davhistory";
}

Result<void> save_history_file(std::string const& dir, std::string const& feed, std::string_view kept) {
    // Owner-only like the snapshot: a token feed's item names are its UIDs' hashes, but still its own.
    return write_file_atomically(history_path(dir, feed), kept, 0600);
}

std::string HistoryFiles::kept(std::string const& feed) const {
    std::error_code ec;
    if (!std::filesystem::exists(history_path(dir_, feed), ec))
        return {};
    auto data = read_file(history_path(dir_, feed));
    return data ? std::move(*data) : std::string();
}

void HistoryFiles::forget(std::string const& feed) const {
    std::error_code ec;
    std::filesystem::remove(history_path(dir_, feed), ec);
}

void HistoryFiles::forget_all_but(std::vector<std::string> const& feeds) const {
    std::error_code ec;
    std::filesystem::directory_iterator it(dir_, ec);
    for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        auto const& path = it->path();
        if (path.extension() == ".davhistory" &&
            std::find(feeds.begin(), feeds.end(), path.stem().string()) == feeds.end()) {
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
        }
    }
}

Result<void> HistoryBeside::save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) {
    if (auto saved = inner_->save(feed, snap, fetched_at); !saved)
        return saved;
    auto kept = of_ ? of_(feed, snap) : std::string();
    if (kept.empty())
        return {};
    if (auto saved = save_history_file(dir_, feed, kept); !saved)
        return fail(errc::io_error, "the snapshot is kept, its CalDAV history not: " + saved.error().message);
    return {};
}

} // namespace icsbridge::dav
