// File: flow_state.cpp
// The sign-in state as sealed JSON (Boost.JSON), its checks on the way back, the CSRF token and the stored
// digests of secrets.
#include "connect/flow_state.hpp"

#include "oauth/pkce.hpp"
#include "push/plan.hpp"
#include "util/json_fields.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <openssl/crypto.h>

#include <optional>

namespace icsbridge::connect {

namespace json = boost::json;

namespace {

constexpr std::string_view state_purpose = "state";
constexpr std::string_view csrf_purpose = "csrf";

Error forged() {
    return fail(
        errc::usage,
        "the sign-in link is not one of ours (forged or damaged): start again from the feed's page"
    );
}

/** @brief The state in a sealed state's JSON; nullopt when a field is missing or of the wrong kind. */
std::optional<FlowState> from_json(std::string_view text) {
    boost::system::error_code ec;
    json::value const v = json::parse(text, ec);
    if (ec || !v.is_object())
        return std::nullopt;
    FieldReader r(v.as_object());
    FlowState s;
    s.provider = r.text("provider");
    s.feed = r.text("feed");
    s.view = r.text("view");
    s.token = r.text("token");
    s.verifier = r.text("verifier");
    s.nonce = r.text("nonce");
    auto const* expires = r.at("expires", "an integer");
    if (!r.ok() || !expires->is_int64())
        return std::nullopt;
    if ((s.provider != "google" && s.provider != "microsoft") || s.feed.empty() || s.verifier.empty() ||
        s.nonce.empty())
        return std::nullopt;
    s.expires = std::chrono::sys_seconds(std::chrono::seconds(expires->as_int64()));
    return s;
}

} // namespace

FlowState new_flow(
    std::string provider, std::string feed, std::string view, std::string token, std::chrono::sys_seconds now
) {
    FlowState s;
    s.provider = std::move(provider);
    s.feed = std::move(feed);
    s.view = std::move(view);
    s.token = std::move(token);
    s.verifier = oauth::make_verifier();
    s.nonce = ConnectKey::random_id(16);
    s.expires = now + state_lifetime;
    return s;
}

std::string seal_state(ConnectKey const& key, FlowState const& s) {
    json::object const o{
        {"provider", s.provider},
        {"feed", s.feed},
        {"view", s.view},
        {"token", s.token},
        {"verifier", s.verifier},
        {"nonce", s.nonce},
        {"expires", static_cast<std::int64_t>(s.expires.time_since_epoch().count())},
    };
    std::string text = json::serialize(o);
    auto sealed = key.seal(state_purpose, text, state_aad);
    OPENSSL_cleanse(text.data(), text.size());
    return sealed;
}

Result<FlowState> open_state(ConnectKey const& key, std::string_view sealed, std::chrono::sys_seconds now) {
    // Bounded before any work: the callback's query is anyone's to fill.
    if (sealed.size() > longest_state)
        return forged();
    auto text = key.open(state_purpose, sealed, state_aad);
    if (!text)
        return forged();
    auto s = from_json(*text);
    OPENSSL_cleanse(text->data(), text->size());
    if (!s)
        return forged();
    if (now >= s->expires)
        return fail(
            errc::usage,
            "the sign-in took longer than " + std::to_string(state_lifetime.count()) +
                " minutes: start again from the feed's page"
        );
    return std::move(*s);
}

std::string csrf_token(ConnectKey const& key, std::string_view connection_id) {
    return key.sign(csrf_purpose, connection_id);
}

bool csrf_ok(ConnectKey const& key, std::string_view connection_id, std::string_view presented) {
    return key.verify(csrf_purpose, connection_id, presented);
}

std::string secret_hash(std::string_view secret) {
    return push::hex_sha256(secret);
}

} // namespace icsbridge::connect
