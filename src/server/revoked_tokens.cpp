// File: revoked_tokens.cpp
// RevokedTokens: the digests of tokens a reload took away, with when; a JSON file written atomically and
// owner-only, read at start. The tokens themselves are never kept, logged or written.
#include <icsbridge/digest.hpp>
#include <icsbridge/files.hpp>
#include <icsbridge/revoked_tokens.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <set>

namespace icsbridge {

namespace json = boost::json;

namespace {

/** Every (feed, token) a config accepts. */
std::set<std::pair<std::string, std::string>> accepted(Config const& cfg) {
    std::set<std::pair<std::string, std::string>> out;
    for (auto const& f : cfg.feeds) {
        if (!f.token.empty())
            out.emplace(f.name, f.token);
        for (auto const& [name, token] : f.tokens)
            out.emplace(f.name, token);
    }
    return out;
}

} // namespace

RevokedTokens::RevokedTokens(std::string dir, sys_seconds now)
    : dir_(std::move(dir)) {
    auto text = read_file(path());
    if (!text)
        return;
    boost::system::error_code ec;
    auto doc = json::parse(*text, ec);
    auto const* list = ec || !doc.is_object() ? nullptr : doc.as_object().if_contains("revoked");
    if (!list || !list->is_array())
        return;
    for (auto const& e : list->as_array()) {
        auto const* o = e.if_object();
        auto const* h = o ? o->if_contains("sha256") : nullptr;
        auto const* at = o ? o->if_contains("at") : nullptr;
        Digest d{};
        if (!h || !h->is_string() || !at || !at->is_int64() || !from_hex(h->as_string(), d))
            continue;
        sys_seconds const when{std::chrono::seconds(at->as_int64())};
        if (now - when < revoked_token_days)
            revoked_.emplace(d, when);
    }
}

std::string RevokedTokens::path() const {
    return dir_ + "/revoked-tokens";
}

RevokedTokens::Digest RevokedTokens::digest(std::string_view feed, std::string_view token) {
    // Bound to the feed, and apart from any other use of SHA-256 over a token.
    std::string input = "icsbridge revoked token\n";
    input.append(feed).append("\n").append(token);
    return sha256(input);
}

Result<std::size_t> RevokedTokens::revoke_dropped(Config const& old, Config const& next, sys_seconds now) {
    auto const before = accepted(old);
    auto const after = accepted(next);
    std::set<std::string_view> still;
    for (auto const& [feed, token] : after)
        still.insert(token);
    std::size_t n = 0;
    std::lock_guard lock(mtx_);
    for (auto const& [feed, token] : before)
        if (!after.contains({feed, token})) {
            revoked_[digest(feed, token)] = now;
            ++n;
            if (!still.contains(token))
                revoked_[digest("", token)] = now; // it opens nothing any more, whatever feed is asked
        }
    // A token given back is valid again; it answers 200 before this list is ever asked, but need not stay.
    for (auto const& [feed, token] : after) {
        revoked_.erase(digest(feed, token));
        revoked_.erase(digest("", token));
    }
    if (auto saved = save_locked(now); !saved)
        return saved.error();
    return n;
}

bool RevokedTokens::revoked(std::string_view feed, std::string_view token, sys_seconds now) const {
    if (token.empty())
        return false;
    auto const d = digest(feed, token);
    std::lock_guard lock(mtx_);
    auto it = revoked_.find(d);
    return it != revoked_.end() && now - it->second < revoked_token_days;
}

Result<void> RevokedTokens::save_locked(sys_seconds now) const {
    json::array list;
    for (auto const& [d, at] : revoked_)
        if (now - at < revoked_token_days)
            list.push_back(json::object{{"sha256", to_hex(d)}, {"at", at.time_since_epoch().count()}});
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec)
        return fail(errc::io_error, "cannot create storage directory " + dir_ + ": " + ec.message());
    json::object root{{"format", 1}, {"revoked", std::move(list)}};
    return write_file_atomically(path(), json::serialize(root) + "\n", 0600);
}

} // namespace icsbridge
