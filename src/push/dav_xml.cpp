// File: dav_xml.cpp
// A server's multistatus read through util/xml.hpp (libxml2 without network access or entity expansion)
// into plain values, and the bodies of the requests the CalDAV target sends.
#include "push/dav_xml.hpp"

#include "util/xml.hpp"

#include <libxml/tree.h>

#include <utility>

namespace icsbridge::push {

namespace {

using xml::caldav_ns;
using xml::child;
using xml::dav_ns;
using xml::is;
using xml::text;
using xml::xml_escape;

/** "HTTP/1.1 404 Not Found" -> 404; 0 when unreadable. */
unsigned status_code(std::string const& line) {
    auto const sp = line.find(' ');
    if (sp == std::string::npos || sp + 4 > line.size())
        return 0;
    unsigned v = 0;
    for (std::size_t i = sp + 1; i < sp + 4; ++i) {
        if (line[i] < '0' || line[i] > '9')
            return 0;
        v = v * 10 + static_cast<unsigned>(line[i] - '0');
    }
    return v;
}

void read_prop(xmlNode const* prop, DavEntry& e) {
    for (xmlNode* p = prop->children; p; p = p->next) {
        if (is(p, dav_ns, "getetag"))
            e.etag = text(p);
        else if (is(p, dav_ns, "displayname"))
            e.displayname = text(p);
        else if (is(p, dav_ns, "resourcetype")) {
            e.is_calendar = child(p, caldav_ns, "calendar") != nullptr;
            e.is_collection = child(p, dav_ns, "collection") != nullptr;
        } else if (is(p, dav_ns, "current-user-principal"))
            e.current_user_principal = text(child(p, dav_ns, "href"));
        else if (is(p, caldav_ns, "calendar-home-set"))
            e.calendar_home_set = text(child(p, dav_ns, "href"));
        else if (is(p, caldav_ns, "supported-calendar-component-set")) {
            e.components_given = true;
            for (xmlNode* c = p->children; c; c = c->next)
                if (is(c, caldav_ns, "comp"))
                    if (auto name = xml::attribute(c, "name"); !name.empty())
                        e.components.push_back(std::move(name));
        }
    }
}

DavEntry read_response(xmlNode const* r) {
    DavEntry e;
    e.href = text(child(r, dav_ns, "href"));
    if (auto const* st = child(r, dav_ns, "status"))
        e.status = status_code(text(st));
    for (xmlNode* ps = r->children; ps; ps = ps->next) {
        if (!is(ps, dav_ns, "propstat"))
            continue;
        // Properties the server does not have come back in a 404 propstat: only 200s count.
        if (status_code(text(child(ps, dav_ns, "status"))) != 200)
            continue;
        if (auto const* prop = child(ps, dav_ns, "prop"))
            read_prop(prop, e);
    }
    return e;
}

} // namespace

Result<Multistatus> parse_multistatus(std::string_view body) {
    // The body comes from a server we do not control: parse_xml's options and limits.
    xml::XmlDoc const doc = xml::parse_xml(body);
    xmlNode const* root = doc ? xmlDocGetRootElement(doc.get()) : nullptr;
    if (!is(root, dav_ns, "multistatus"))
        return fail(errc::upstream_malformed, "the server's answer is not a WebDAV multistatus document");
    Multistatus out;
    for (xmlNode* r = root->children; r; r = r->next) {
        if (is(r, dav_ns, "response"))
            out.responses.push_back(read_response(r));
        else if (is(r, dav_ns, "sync-token"))
            out.sync_token = text(r);
    }
    return out;
}

std::string propfind_body() {
    return R"(<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:resourcetype/><d:displayname/><d:getetag/><d:current-user-principal/>
    <c:calendar-home-set/><c:supported-calendar-component-set/></d:prop>
</d:propfind>
)";
}

std::string sync_collection_body(std::string_view token) {
    return R"(<?xml version="1.0" encoding="utf-8"?>
<d:sync-collection xmlns:d="DAV:"><d:sync-token>)" +
           xml_escape(token) + R"(</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop>
</d:sync-collection>
)";
}

std::string mkcalendar_body(std::string_view displayname) {
    return R"(<?xml version="1.0" encoding="utf-8"?>
<c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop>
  <d:displayname>)" +
           xml_escape(displayname) + R"(</d:displayname>
  <c:supported-calendar-component-set><c:comp name="VEVENT"/><c:comp name="VTODO"/></c:supported-calendar-component-set>
</d:prop></d:set></c:mkcalendar>
)";
}

std::string_view last_segment(std::string_view href) {
    while (href.ends_with('/'))
        href.remove_suffix(1);
    auto const slash = href.rfind('/');
    return slash == std::string_view::npos ? href : href.substr(slash + 1);
}

} // namespace icsbridge::push
