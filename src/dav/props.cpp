// File: props.cpp
// Each property of each kind of resource, rendered as the element a multistatus carries; a property a
// resource does not have is nullopt (the response lists it under 404).
#include "dav/props.hpp"

#include "dav/push_detail.hpp"
#include "util/html_escape.hpp"
#include "util/xml.hpp"

#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include <optional>

namespace icsbridge::dav::detail {

using namespace xml; // the WebDAV bodies are read and written with these

namespace {

using Kind = Node::Kind;

std::string href_in(std::string_view element, std::string const& href) {
    return "<" + std::string(element) + "><D:href>" + xml_escape(href) + "</D:href></" +
           std::string(element) + ">";
}

std::string element(std::string_view name, std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2 * name.size() + 8);
    out.append("<").append(name).append(">");
    append_html_escaped(out, text);
    out.append("</").append(name).append(">");
    return out;
}

std::string resourcetype(Kind k) {
    switch (k) {
    case Kind::principal:
        return "<D:resourcetype><D:collection/><D:principal/></D:resourcetype>";
    case Kind::home:
        return "<D:resourcetype><D:collection/></D:resourcetype>";
    case Kind::collection:
        return "<D:resourcetype><D:collection/><C:calendar/></D:resourcetype>";
    case Kind::item:
        break;
    }
    return "<D:resourcetype/>";
}

std::string components(FeedEntry const& feed) {
    std::string out = "<C:supported-calendar-component-set>";
    for (auto const& c : feed.components)
        out += "<C:comp name=\"" + xml_escape(c) + "\"/>";
    return out + "</C:supported-calendar-component-set>";
}

constexpr std::string_view privileges =
    "<D:current-user-privilege-set><D:privilege><D:read/></D:privilege><D:privilege>"
    "<D:read-current-user-privilege-set/></D:privilege></D:current-user-privilege-set>";
constexpr std::string_view reports =
    "<D:supported-report-set><D:supported-report><D:report><C:calendar-multiget/></D:report>"
    "</D:supported-report><D:supported-report><D:report><C:calendar-query/></D:report></D:supported-report>"
    "<D:supported-report><D:report><D:sync-collection/></D:report></D:supported-report>"
    "</D:supported-report-set>";

std::optional<std::string> dav_prop(Node const& n, std::string_view name, Tree const& tree) {
    Collection const* c = n.feed ? n.feed->collection.get() : nullptr;
    if (name == "resourcetype")
        return resourcetype(n.kind);
    if (name == "current-user-principal")
        return href_in("D:current-user-principal", current_principal_href(tree));
    if (name == "current-user-privilege-set")
        return std::string(privileges);
    if (name == "displayname" && n.kind != Kind::item)
        return element(
            "D:displayname",
            n.kind == Kind::principal ? (tree.owner.empty() ? std::string("icsbridge") : tree.owner)
                                      : (n.feed ? n.feed->title : "Feeds")
        );
    if (name == "principal-URL" && n.kind == Kind::principal)
        return href_in("D:principal-URL", principal_href(tree));
    if (name == "supported-report-set" && n.kind == Kind::collection)
        return std::string(reports);
    if (name == "sync-token" && n.kind == Kind::collection && c)
        return element("D:sync-token", c->token());
    if (n.kind != Kind::item)
        return std::nullopt;
    if (name ==
        "getetag") // in the default namespace, DAV: (multistatus.cpp); quotes and hex need no escaping
        return "<getetag>" + n.item->etag + "</getetag>";
    if (name == "getcontenttype")
        return element(
            "D:getcontenttype",
            n.item->todo ? "text/calendar; charset=utf-8; component=vtodo"
                         : "text/calendar; charset=utf-8; component=vevent"
        );
    if (name == "getcontentlength")
        return element("D:getcontentlength", std::to_string(n.item->length));
    return std::nullopt;
}

std::optional<std::string> caldav_prop(Node const& n, std::string_view name, Tree const& tree) {
    if (name == "calendar-home-set" && n.kind == Kind::principal)
        return href_in("C:calendar-home-set", home_href(tree));
    if (name == "supported-calendar-component-set" && n.kind == Kind::collection)
        return components(*n.feed);
    if (name == "supported-calendar-data" && n.kind == Kind::collection)
        return std::string("<C:supported-calendar-data><C:calendar-data content-type=\"text/calendar\" "
                           "version=\"2.0\"/></C:supported-calendar-data>");
    return std::nullopt;
}

std::optional<std::string> render(Node const& n, QName const& q, Tree const& tree) {
    if (q.ns == dav_ns)
        return dav_prop(n, q.name, tree);
    if (q.ns == caldav_ns)
        return caldav_prop(n, q.name, tree);
    if (q.ns == push_ns && n.kind == Kind::collection)
        return push_prop(q.name, tree, *n.feed);
    Collection const* c = n.feed ? n.feed->collection.get() : nullptr;
    if (q.ns == "http://calendarserver.org/ns/" && q.name == "getctag" && n.kind == Kind::collection && c)
        return element("CS:getctag", c->token());
    // Apple's property, which DAVx⁵, Thunderbird and Evolution read too; only when the feed sets `color`.
    if (q.ns == "http://apple.com/ns/ical/" && q.name == "calendar-color" && n.kind == Kind::collection &&
        !n.feed->color.empty())
        return element("A:calendar-color", n.feed->color);
    return std::nullopt;
}

/** What allprop returns (and propname names): the cheap live properties, never calendar-data. */
std::vector<QName> allprops(Kind k) {
    std::vector<QName> out{{dav_ns, "resourcetype"}, {dav_ns, "current-user-principal"}};
    switch (k) {
    case Kind::principal:
        out.insert(
            out.end(),
            {{dav_ns, "displayname"}, {dav_ns, "principal-URL"}, {caldav_ns, "calendar-home-set"}}
        );
        break;
    case Kind::home:
        out.push_back({dav_ns, "displayname"});
        break;
    case Kind::collection:
        out.insert(
            out.end(),
            {{dav_ns, "displayname"},
             {dav_ns, "sync-token"},
             {"http://calendarserver.org/ns/", "getctag"},
             {caldav_ns, "supported-calendar-component-set"}}
        );
        break;
    case Kind::item:
        out.insert(
            out.end(),
            {{dav_ns, "getetag"}, {dav_ns, "getcontenttype"}, {dav_ns, "getcontentlength"}}
        );
        break;
    }
    return out;
}

} // namespace

namespace {

/** A subscriber's principal: their name is any TOML key, so it is percent-encoded as one path segment. */
std::string user_principal(std::string_view base, std::string_view user) {
    if (user.empty())
        return std::string(base) + "/dav/";
    return std::string(base) + "/dav/users/" + boost::urls::encode(user, boost::urls::unreserved_chars) + "/";
}

} // namespace

std::string principal_href(Tree const& tree) {
    return user_principal(tree.base, tree.owner);
}

std::string current_principal_href(Tree const& tree) {
    return user_principal(tree.base, tree.user);
}

std::string home_href(Tree const& tree) {
    return principal_href(tree) + "feeds/";
}

std::string collection_href(Tree const& tree, FeedEntry const& feed) {
    return home_href(tree) + feed.name + "/";
}

void write_node(MultistatusWriter& w, Node const& node, PropRequest const& req, Tree const& tree) {
    std::vector<QName> all;
    if (req.kind != PropRequest::Kind::prop)
        all = allprops(node.kind);
    auto const& asked = req.kind == PropRequest::Kind::prop ? req.props : all;
    std::vector<QName const*> missing;
    w.begin(node.href);
    for (auto const& q : asked) {
        if (req.kind == PropRequest::Kind::propname)
            w.found(q.ns == dav_ns ? "<D:" + q.name + "/>" : "<X:" + q.name + " xmlns:X=\"" + q.ns + "\"/>");
        else if (node.kind == Kind::item && q.ns == caldav_ns && q.name == "calendar-data")
            w.calendar_data(*node.item); // the item's bytes where they lie, when the answer is streamed
        else if (auto v = render(node, q, tree))
            w.found(*v);
        else if (req.kind == PropRequest::Kind::prop)
            missing.push_back(&q);
    }
    w.end(missing);
}

} // namespace icsbridge::dav::detail

namespace icsbridge::dav {

std::string address(std::string_view public_url, std::string_view feed, std::string_view user) {
    while (public_url.ends_with('/'))
        public_url.remove_suffix(1);
    std::string out = detail::user_principal(public_url, user);
    if (!feed.empty())
        out.append("feeds/").append(feed).append("/");
    return out;
}

} // namespace icsbridge::dav
