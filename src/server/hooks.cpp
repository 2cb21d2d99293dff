// File: hooks.cpp
// Judging an incoming webhook: the secret (constant time), the body's shape, the api_url's host.
#include "server/hooks.hpp"

#include "util/ascii.hpp"
#include "views/feed_index.hpp"
#include <icsbridge/digest.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <boost/url/parse.hpp>

#include <algorithm>
#include <optional>

namespace icsbridge {

namespace {

constexpr std::string_view prefix = "/hooks/";

HookVerdict verdict(HookOutcome outcome, unsigned status, std::string message) {
    HookVerdict v;
    v.outcome = outcome;
    v.status = status;
    v.message = std::move(message);
    return v;
}

/**
 * @brief The host of an absolute http(s) URL exactly as written (lowercased), without port; empty if it is
 * none or has user info. Read from the text itself: Boost.URL 1.81 parses "127.0.0.1.evil.com" and
 * "127.0.0.1x" as the IPv4 host 127.0.0.1 and moves the rest into the path, so its host cannot be compared.
 */
std::string http_host(std::string_view url) {
    std::size_t skip = 0;
    if (ascii_iequals(url.substr(0, 7), "http://"))
        skip = 7;
    else if (ascii_iequals(url.substr(0, 8), "https://"))
        skip = 8;
    else
        return {};
    std::string_view rest = url.substr(skip);
    std::string_view const authority = rest.substr(0, rest.find_first_of("/?#"));
    // User info, escapes and backslashes in an authority are disguises, never a host of ours.
    if (authority.find_first_of("@%\\") != std::string_view::npos)
        return {};
    std::size_t colon = authority.rfind(':');
    if (authority.starts_with('[') && (colon == std::string_view::npos || colon < authority.find(']')))
        colon = std::string_view::npos; // an IPv6 literal without a port
    std::string_view const host = authority.substr(0, colon);
    if (colon != std::string_view::npos) {
        auto const port = authority.substr(colon + 1);
        if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return {};
    }
    if (host.empty())
        return {};
    return views::ascii_lower(host);
}

/** @brief Secret and source checked together, every byte compared, so timing shows neither. */
bool secret_matches(SourceConfig const* src, std::string_view presented) {
    // An unknown source or one without a secret still costs the same two digests.
    std::string_view const want =
        src && !src->webhook_secret.empty() ? std::string_view(src->webhook_secret) : std::string_view();
    return same_secret(want, presented) && !want.empty();
}

/** What a hook body says: `{"api_url": "...", "config": {"action": "..."}}`, both strings. */
struct HookBody {
    std::string api_url;
    std::string action;
};

std::optional<HookBody> hook_body(std::string_view body) {
    boost::system::error_code ec;
    auto doc = boost::json::parse(body, ec);
    auto const* root = ec ? nullptr : doc.if_object();
    auto const* api_url = root ? root->if_contains("api_url") : nullptr;
    auto const* conf = root ? root->if_contains("config") : nullptr;
    auto const* action = conf && conf->is_object() ? conf->as_object().if_contains("action") : nullptr;
    if (!api_url || !api_url->is_string() || !action || !action->is_string())
        return std::nullopt;
    return HookBody{std::string(api_url->as_string()), std::string(action->as_string())};
}

} // namespace

bool split_hook_path(std::string_view rest, std::string_view& source, std::string_view& secret) {
    auto slash = rest.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == rest.size())
        return false;
    source = rest.substr(0, slash);
    secret = rest.substr(slash + 1);
    return secret.find('/') == std::string_view::npos;
}

HookVerdict judge_hook(
    Config const& cfg,
    std::string_view source,
    std::string_view secret,
    std::string_view body,
    bool body_too_large
) {
    SourceConfig const* src = cfg.find_source(source);
    if (!secret_matches(src, secret) || src->type != SourceType::events)
        return verdict(HookOutcome::refused, 404, "not found");
    if (body_too_large)
        return verdict(
            HookOutcome::too_large,
            413,
            "a hook body is at most " + std::to_string(hook_body_limit / 1024) + " KiB"
        );
    auto hook = hook_body(body);
    if (!hook)
        return verdict(
            HookOutcome::malformed,
            400,
            "expected the events service's hook body: {\"api_url\": \"https://…\", \"config\": {\"action\": "
            "…}}"
        );
    // The body is anyone's words: a host other than the source's is refused, and api_url is never
    // fetched at all (the source's own feeds are refreshed instead), so no request goes where a hook says.
    auto const host = http_host(hook->api_url);
    if (host.empty() || host != http_host(src->base_url))
        return verdict(
            HookOutcome::foreign_url,
            400,
            "api_url is not on the host of [sources." + src->name + "]"
        );
    auto v = verdict(HookOutcome::accepted, 202, "accepted");
    v.source = src->name;
    v.action = loggable(hook->action, 64);
    v.event_id = hooked_event_id(hook->api_url);
    return v;
}

std::string hooked_event_id(std::string_view api_url) {
    auto const path = api_url.substr(0, api_url.find_first_of("?#"));
    auto const at = path.rfind("/events/");
    if (at == std::string_view::npos)
        return {};
    auto id = path.substr(at + 8);
    if (id.ends_with('/'))
        id.remove_suffix(1);
    bool const plain = !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    });
    return plain ? std::string(id) : std::string();
}

std::string redact_hook_target(std::string_view target) {
    if (target.substr(0, prefix.size()) != prefix)
        return std::string(target);
    auto rest = target.substr(prefix.size());
    auto slash = rest.find('/');
    if (slash == std::string_view::npos)
        return std::string(target);
    // Everything after the source: the secret, and whatever a sender appended to it.
    return std::string(target.substr(0, prefix.size() + slash + 1)) + "***";
}

} // namespace icsbridge
