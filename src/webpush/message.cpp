// File: message.cpp
// The push-message XML, the request around its encrypted body, and the per-origin VAPID cache.
#include "webpush/message.hpp"

#include "net/credential_guard.hpp"
#include "util/html_escape.hpp"
#include "webpush/ece.hpp"

#include <algorithm>

namespace icsbridge::webpush {

namespace {

bool base64url_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

} // namespace

std::string push_message_xml(std::string_view topic, std::string_view sync_token) {
    std::string out = R"(<?xml version="1.0" encoding="utf-8"?>)"
                      "\n"
                      R"(<P:push-message xmlns:D="DAV:" xmlns:P=")";
    out.append(push_namespace).append("\"><P:topic>");
    append_html_escaped(out, topic);
    out += "</P:topic><P:content-update><D:sync-token>";
    append_html_escaped(out, sync_token);
    out += "</D:sync-token></P:content-update></P:push-message>\n";
    return out;
}

bool valid_topic(std::string_view topic) {
    return !topic.empty() && topic.size() <= 32 && std::all_of(topic.begin(), topic.end(), base64url_char);
}

Result<PushRequest> push_request(
    Recipient const& to, std::string_view topic, std::string_view sync_token, std::string authorization
) {
    auto ece = Ece::make();
    if (!ece)
        return ece.error();
    return push_request(*ece, to, topic, sync_token, std::move(authorization));
}

Result<PushRequest> push_request(
    Ece& ece,
    Recipient const& to,
    std::string_view topic,
    std::string_view sync_token,
    std::string authorization
) {
    if (!valid_topic(topic))
        return fail(errc::usage, "a push message's topic must be 1 to 32 base64url characters");
    auto body = ece.encrypt(push_message_xml(topic, sync_token), to.keys);
    if (!body)
        return body.error();
    PushRequest req;
    req.url = to.push_resource;
    req.body = std::move(*body);
    req.headers = {
        {"Content-Encoding", "aes128gcm"},
        {"Content-Type", "application/octet-stream"},
        {"TTL", std::to_string(message_ttl.count())},
        {"Urgency", "normal"},
        {"Topic", std::string(topic)},
        {"Authorization", std::move(authorization)},
    };
    return req;
}

VapidCache::VapidCache(VapidKey key, std::string subject, std::chrono::seconds lifetime)
    : key_(std::move(key))
    , subject_(std::move(subject))
    , lifetime_(lifetime) {}

Result<std::string> VapidCache::authorization(std::string_view push_resource, std::chrono::sys_seconds now) {
    auto const origin = origin_of(push_resource);
    if (!origin)
        return fail(errc::usage, "a push resource must be an absolute http or https URL");
    auto const key = origin->text();
    // Half the token's life: a message queued or retried for a while still carries one far from its exp.
    if (auto it = by_origin_.find(key);
        it != by_origin_.end() && now >= it->second.at && now - it->second.at < lifetime_ / 2)
        return it->second.value;
    auto made = vapid_authorization(key_, push_resource, subject_, now, lifetime_);
    if (!made)
        return made.error();
    by_origin_.insert_or_assign(key, Made{*made, now});
    return std::move(*made);
}

} // namespace icsbridge::webpush
