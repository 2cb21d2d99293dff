// File: request_body.cpp
// PROPFIND and REPORT bodies read with util/xml.hpp into plain values: which properties, which hrefs, which
// filter, which token. Anything unexpected inside is ignored; a body that is no such request is refused.
#include "dav/dav_detail.hpp"
#include "util/xml.hpp"

#include <chrono>

namespace icsbridge::dav::detail {

using namespace xml; // the WebDAV bodies are read and written with these

namespace {

PropRequest read_props(xmlNode const* parent) {
    PropRequest out;
    if (child(parent, dav_ns, "propname")) {
        out.kind = PropRequest::Kind::propname;
        return out;
    }
    xmlNode const* prop = child(parent, dav_ns, "prop");
    if (!prop)
        return out; // allprop, or nothing said: the same
    out.kind = PropRequest::Kind::prop;
    for (xmlNode const* p = prop->children; p; p = p->next)
        if (p->type == XML_ELEMENT_NODE)
            out.props.push_back(
                {p->ns && p->ns->href ? reinterpret_cast<char const*>(p->ns->href) : "",
                 reinterpret_cast<char const*>(p->name)}
            );
    return out;
}

std::optional<TimeRange> read_range(xmlNode const* n) {
    if (!n)
        return std::nullopt;
    TimeRange r;
    r.start = parse_utc(attribute(n, "start"));
    r.end = parse_utc(attribute(n, "end"));
    return r;
}

PropFilter read_prop_filter(xmlNode const* n) {
    PropFilter f;
    f.name = attribute(n, "name");
    f.not_defined = child(n, caldav_ns, "is-not-defined") != nullptr;
    if (xmlNode const* m = child(n, caldav_ns, "text-match")) {
        TextMatch t;
        t.text = text(m);
        t.negate = attribute(m, "negate-condition") == "yes";
        t.octet = attribute(m, "collation") == "i;octet";
        f.match = std::move(t);
    }
    return f;
}

CompFilter read_comp_filter(xmlNode const* n) {
    CompFilter f;
    f.name = attribute(n, "name");
    f.anyof = attribute(n, "test") == "anyof";
    f.not_defined = child(n, caldav_ns, "is-not-defined") != nullptr;
    f.range = read_range(child(n, caldav_ns, "time-range"));
    for (xmlNode const* c = n->children; c; c = c->next) {
        if (is(c, caldav_ns, "comp-filter"))
            f.comps.push_back(read_comp_filter(c)); // depth bounded by parse_xml
        else if (is(c, caldav_ns, "prop-filter"))
            f.props.push_back(read_prop_filter(c));
    }
    return f;
}

} // namespace

std::optional<long long> parse_utc(std::string_view t) {
    if (t.size() != 16 || t[8] != 'T' || t[15] != 'Z')
        return std::nullopt;
    int v[6] = {};
    std::size_t const at[6] = {0, 4, 6, 9, 11, 13}, len[6] = {4, 2, 2, 2, 2, 2};
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t k = at[i]; k < at[i] + len[i]; ++k) {
            if (t[k] < '0' || t[k] > '9')
                return std::nullopt;
            v[i] = v[i] * 10 + (t[k] - '0');
        }
    std::chrono::year_month_day const ymd{
        std::chrono::year(v[0]),
        std::chrono::month(static_cast<unsigned>(v[1])),
        std::chrono::day(static_cast<unsigned>(v[2]))};
    if (!ymd.ok() || v[3] > 23 || v[4] > 59 || v[5] > 60)
        return std::nullopt;
    auto const days = std::chrono::sys_days(ymd).time_since_epoch().count();
    return static_cast<long long>(days) * 86400 + v[3] * 3600LL + v[4] * 60LL + v[5];
}

Result<PropRequest> parse_propfind(std::string_view body) {
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return PropRequest{}; // RFC 4918 9.1: no body means allprop
    XmlDoc const doc = parse_xml(body);
    xmlNode const* root = doc ? xmlDocGetRootElement(doc.get()) : nullptr;
    if (!is(root, dav_ns, "propfind"))
        return fail(errc::usage, "the PROPFIND body is not a DAV:propfind document");
    return read_props(root);
}

Result<Report> parse_report(std::string_view body) {
    XmlDoc const doc = parse_xml(body);
    xmlNode const* root = doc ? xmlDocGetRootElement(doc.get()) : nullptr;
    if (!root)
        return fail(errc::usage, "the REPORT body is not well-formed XML");
    Report r;
    r.props = read_props(root);
    if (is(root, caldav_ns, "calendar-multiget")) {
        r.kind = Report::Kind::multiget;
        for (xmlNode const* h = root->children; h; h = h->next)
            if (is(h, dav_ns, "href"))
                r.hrefs.push_back(text(h));
    } else if (is(root, caldav_ns, "calendar-query")) {
        r.kind = Report::Kind::query;
        if (xmlNode const* f = child(root, caldav_ns, "filter"))
            if (xmlNode const* top = child(f, caldav_ns, "comp-filter"))
                r.filter = read_comp_filter(top);
    } else if (is(root, dav_ns, "sync-collection")) {
        r.kind = Report::Kind::sync;
        r.sync_token = text(child(root, dav_ns, "sync-token"));
    }
    return r;
}

} // namespace icsbridge::dav::detail
