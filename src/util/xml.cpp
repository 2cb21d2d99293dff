// File: xml.cpp
// The one libxml2 parse of WebDAV bodies: options chosen for input we do not control, then a DTD and the
// nesting depth checked before anyone walks the tree.
#include "util/xml.hpp"

#include "util/html_escape.hpp"

#include <libxml/parser.h>

#include <cstring>
#include <utility>
#include <vector>

namespace icsbridge::xml {

namespace {

struct XmlCharFree {
    void operator()(xmlChar* p) const { xmlFree(p); }
};

/** The deepest element nesting under `root`, walked without recursion (a hostile body cannot grow the
 * stack), stopping as soon as it passes `limit`. */
std::size_t depth_of(xmlNode const* root, std::size_t limit) {
    std::vector<std::pair<xmlNode const*, std::size_t>> todo{{root, 1}};
    std::size_t deepest = 0;
    while (!todo.empty() && deepest <= limit) {
        auto [n, d] = todo.back();
        todo.pop_back();
        deepest = std::max(deepest, d);
        for (xmlNode const* c = n->children; c; c = c->next)
            if (c->type == XML_ELEMENT_NODE)
                todo.emplace_back(c, d + 1);
    }
    return deepest;
}

} // namespace

XmlDoc parse_xml(std::string_view body, std::size_t max_depth) {
    if (body.size() > static_cast<std::size_t>(INT32_MAX))
        return nullptr;
    // No XML_PARSE_NOENT (entities stay references), no XML_PARSE_DTDLOAD, no XML_PARSE_HUGE (libxml2's
    // own limits on depth and text sizes stay on), no network.
    XmlDoc doc(xmlReadMemory(
        body.data(),
        static_cast<int>(body.size()),
        "body.xml",
        nullptr,
        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING
    ));
    if (!doc || doc->intSubset || doc->extSubset)
        return nullptr;
    xmlNode const* root = xmlDocGetRootElement(doc.get());
    if (!root || depth_of(root, max_depth) > max_depth)
        return nullptr;
    return doc;
}

bool is(xmlNode const* n, char const* ns, char const* name) {
    return n && n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
           std::strcmp(reinterpret_cast<char const*>(n->ns->href), ns) == 0 &&
           std::strcmp(reinterpret_cast<char const*>(n->name), name) == 0;
}

xmlNode* child(xmlNode const* n, char const* ns, char const* name) {
    for (xmlNode* c = n ? n->children : nullptr; c; c = c->next)
        if (is(c, ns, name))
            return c;
    return nullptr;
}

std::string text(xmlNode const* n) {
    if (!n)
        return {};
    std::unique_ptr<xmlChar, XmlCharFree> const content(xmlNodeGetContent(n));
    std::string s = content ? reinterpret_cast<char const*>(content.get()) : "";
    auto const b = s.find_first_not_of(" \t\r\n");
    auto const e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string attribute(xmlNode const* n, char const* name) {
    std::unique_ptr<xmlChar, XmlCharFree> const v(
        n ? xmlGetProp(n, reinterpret_cast<xmlChar const*>(name)) : nullptr
    );
    return v ? std::string(reinterpret_cast<char const*>(v.get())) : std::string();
}

std::string xml_escape(std::string_view in) {
    return html_escape(in); // its five entities are XML's own
}

} // namespace icsbridge::xml
