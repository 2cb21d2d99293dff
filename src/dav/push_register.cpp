// File: push_register.cpp
// A push-register body read with util/xml.hpp (any prefix, the same parse limits as PROPFIND's) and checked
// before anything is kept: the keys as the webpush room would encrypt to them, and a push resource that
// cannot point the server at the operator's own network (the delivery side checks the resolved address
// again, this is the early, cheap refusal of a literal one).
#include "dav/push_detail.hpp"
#include "net/http_date.hpp"
#include "util/base64url.hpp"
#include "util/xml.hpp"
#include "webpush/address.hpp"

#include <boost/url/parse.hpp>

#include <algorithm>

namespace icsbridge::dav::detail {

using namespace xml; // the WebDAV bodies are read and written with these

namespace {

/** The content-update trigger's depth: `depth` (the draft's DAV:depth; the push namespace's too) or
 * `sync-level` (what dav4jvm once sent); "1" when it names none. */
std::string trigger_depth(xmlNode const* update) {
    for (xmlNode const* c = update->children; c; c = c->next) {
        bool const named = is(c, dav_ns, "depth") || is(c, push_ns, "depth") ||
                           is(c, push_ns, "sync-level") || is(c, dav_ns, "sync-level");
        if (!named)
            continue;
        auto t = text(c);
        if (t == "0" || t == "1")
            return t;
        return "infinity"; // "infinity", dav4jvm's "infinite", anything deeper: a flat collection is all one
    }
    return "1";
}

void read_subscription(xmlNode const* sub, PushRegister& out) {
    xmlNode const* web = child(child(sub, push_ns, "subscription"), push_ns, "web-push-subscription");
    if (!web)
        return;
    out.push_resource = text(child(web, push_ns, "push-resource"));
    xmlNode const* key = child(web, push_ns, "subscription-public-key");
    out.key_type = key ? attribute(key, "type") : std::string();
    out.public_key = text(key);
    out.auth_secret = text(child(web, push_ns, "auth-secret"));
    out.content_encoding = text(child(web, push_ns, "content-encoding"));
}

/** A hostname's last label all digits is no DNS name but an address in a form inet_pton does not take
 * ("127.1", "2130706433", "0x7f.1"), which a resolver would still turn into an address. */
bool looks_numeric(std::string_view host) {
    while (host.ends_with('.'))
        host.remove_suffix(1);
    auto const dot = host.rfind('.');
    auto const last = dot == std::string_view::npos ? host : host.substr(dot + 1);
    if (last.empty())
        return true;
    bool const hex = last.size() > 2 && (last.starts_with("0x") || last.starts_with("0X"));
    return std::all_of(last.begin() + (hex ? 2 : 0), last.end(), [hex](char c) {
        return (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
    });
}

} // namespace

std::optional<std::string> decode_push_key(std::string_view text) {
    // Clients differ: padded, or the standard alphabet. One value, one text again for the strict decoder.
    std::string t(text);
    while (t.ends_with('='))
        t.pop_back();
    std::replace(t.begin(), t.end(), '+', '-');
    std::replace(t.begin(), t.end(), '/', '_');
    return from_base64url(t);
}

Result<PushRegister> parse_push_register(std::string_view body) {
    XmlDoc const doc = parse_xml(body);
    xmlNode const* root = doc ? xmlDocGetRootElement(doc.get()) : nullptr;
    if (!root)
        return fail(errc::usage, "the request body is not well-formed XML (or declares a DTD)");
    if (!is(root, push_ns, "push-register"))
        return fail(errc::usage, "the request body is not a push-register document");
    PushRegister out;
    read_subscription(root, out);
    out.depth = "1";
    if (xmlNode const* trigger = child(root, push_ns, "trigger")) {
        out.trigger = true;
        xmlNode const* update = child(trigger, push_ns, "content-update");
        out.depth = update ? std::optional(trigger_depth(update)) : std::nullopt;
    }
    if (xmlNode const* expires = child(root, push_ns, "expires")) {
        out.expires = parse_http_date(text(expires));
        if (!out.expires)
            return fail(errc::usage, "expires is not an HTTP date");
    }
    return out;
}

std::optional<std::string> push_resource_problem(std::string_view url, bool allow_private) {
    auto const u = boost::urls::parse_uri(url);
    if (!u || !u->has_authority() || u->encoded_host().empty())
        return "the push resource is not an absolute URL";
    bool const https = u->scheme_id() == boost::urls::scheme::https;
    if (!https && !(allow_private && u->scheme_id() == boost::urls::scheme::http))
        return "the push resource is not an https URL";
    if (u->has_userinfo())
        return "the push resource carries a user name or password";
    if (allow_private)
        return std::nullopt;
    std::string const host =
        u->host_type() == boost::urls::host_type::name ? u->host() : std::string(u->encoded_host());
    if (host.find('%') != std::string::npos)
        return "the push resource's host is not a plain name or address";
    auto const address = webpush::literal_address(host);
    if (!address) {
        if (u->host_type() != boost::urls::host_type::name || looks_numeric(host))
            return "the push resource's host is an address in an unusual form";
        std::string lower = host;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
            return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        });
        if (lower == "localhost" || lower.ends_with(".localhost") || lower == "localhost.")
            return "the push resource's host is loopback";
        return std::nullopt; // a name: its addresses are checked when a message is sent
    }
    auto const kind = webpush::classify(*address);
    if (kind != webpush::AddressKind::global)
        return "the push resource's host is a " + std::string(webpush::to_string(kind)) + " address";
    return std::nullopt;
}

std::optional<std::string> subscription_problem(PushRegister const& reg, bool allow_private) {
    if (reg.push_resource.empty())
        return "the subscription has no web-push-subscription with a push-resource";
    if (!reg.key_type.empty() && reg.key_type != "p256dh")
        return "the subscription-public-key is not of type p256dh";
    if (!reg.content_encoding.empty() && reg.content_encoding != "aes128gcm")
        return "only the aes128gcm content-encoding is supported";
    auto key = decode_push_key(reg.public_key);
    auto auth = decode_push_key(reg.auth_secret);
    if (!key || !auth)
        return "the subscription-public-key or auth-secret is not base64url";
    if (auto checked = webpush::check_keys({*key, *auth}); !checked)
        return checked.error().message;
    return push_resource_problem(reg.push_resource, allow_private);
}

} // namespace icsbridge::dav::detail
