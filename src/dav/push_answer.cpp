// File: push_answer.cpp
// WebDAV-Push in answer(): POST push-register on a collection (201 new, 204 the same push resource again),
// DELETE /dav/push/ID, and the collection's transports, supported-triggers and topic.
#include "dav/answer_detail.hpp"
#include "dav/push_detail.hpp"
#include "net/http_date.hpp"
#include "util/xml.hpp"

namespace icsbridge::dav::detail {

using namespace xml; // the WebDAV bodies are read and written with these

namespace {

/** A precondition of the push namespace, in the DAV:error body (draft-bitfire-webdav-push). */
Response push_error(std::string_view condition) {
    return dav_error(403, "<P:" + std::string(condition) + " xmlns:P=\"" + push_ns + "\"/>");
}

std::string push_element(std::string_view name, std::string_view inner) {
    return "<P:" + std::string(name) + " xmlns:P=\"" + push_ns + "\">" + std::string(inner) +
           "</P:" + std::string(name) + ">";
}

PushRegistration registration_of(PushRegister const& reg, Tree const& tree, FeedEntry const& feed) {
    PushRegistration r;
    r.feed = feed.name;
    r.push_resource = reg.push_resource;
    r.keys = {decode_push_key(reg.public_key).value_or(""), decode_push_key(reg.auth_secret).value_or("")};
    r.depth = reg.depth.value_or("1");
    r.expires = reg.expires.value_or(sys_seconds{});
    if (feed.token) {
        r.subscriber = tree.user;
        r.token_digest = push_token_digest(feed.name, tree.user, tree.password);
    }
    return r;
}

} // namespace

Response register_push(Request const& req, Tree const& tree, FeedEntry const& feed) {
    if (!tree.push)
        return push_error("push-not-available");
    if (req.body_too_large)
        return plain(413, "the push-register body is too large");
    auto const reg = parse_push_register(req.body);
    if (!reg)
        return plain(400, reg.error().message);
    if (!reg->depth)
        return push_error("no-supported-trigger");
    if (auto problem = subscription_problem(*reg, tree.push_allow_private)) {
        auto r = push_error("invalid-subscription");
        r.headers.emplace_back("X-Push-Refusal", *problem); // says why to a developer; names no secret
        return r;
    }
    auto added = tree.push->add(registration_of(*reg, tree, feed), tree.now);
    if (!added && added.error().code == errc::usage)
        return plain(507, added.error().message);
    if (!added)
        return plain(500, "the registration could not be kept: try again later");
    Response r;
    r.status = added->first == PushAdded::created ? 201 : 204;
    r.headers.emplace_back("Location", tree.base + "/dav/push/" + added->second.id);
    r.headers.emplace_back("Expires", format_http_date(added->second.expires));
    return r;
}

Response push_resource_request(Request const& req, Tree const& tree) {
    constexpr std::string_view prefix = "/dav/push/";
    std::string_view id = req.path.starts_with(prefix) ? req.path.substr(prefix.size()) : std::string_view();
    if (!tree.push || id.empty() || id.find('/') != std::string_view::npos)
        return plain(404, "no such push registration");
    if (req.method != "DELETE") {
        auto r = plain(405, "method not allowed");
        r.headers.emplace_back("Allow", "DELETE");
        return r;
    }
    // The id is the capability: 128 random bits only the registering client was told (in Location). An
    // expired one the upkeep has not dropped yet is gone for the client as well (it is removed all the same).
    bool const live = tree.push->find(id, tree.now).has_value();
    if (!tree.push->remove(id) || !live)
        return plain(404, "no such push registration");
    Response r;
    r.status = 204;
    return r;
}

std::optional<std::string> push_prop(std::string_view name, Tree const& tree, FeedEntry const& feed) {
    if (!tree.push)
        return std::nullopt;
    if (name == "transports")
        return push_element(
            "transports",
            "<P:web-push><P:vapid-public-key type=\"p256ecdsa\">" +
                xml_escape(tree.push->vapid_public_key()) + "</P:vapid-public-key></P:web-push>"
        );
    if (name == "supported-triggers")
        return push_element(
            "supported-triggers",
            "<P:content-update><D:depth>1</D:depth></P:content-update>"
        );
    if (name == "topic")
        return push_element("topic", tree.push->topic(feed.name));
    return std::nullopt;
}

} // namespace icsbridge::dav::detail
