// File: xml.hpp
// libxml2 behind RAII owners, for both sides of WebDAV: the push targets' answers (src/push/) and the
// request bodies of our own CalDAV collections (src/dav/), which is why it lives below both. A document is
// read by (namespace, local name), so any prefix the other side picks works, and parsed without network
// access, entity substitution or DTD loading, under a depth limit.
#pragma once

#include <libxml/tree.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace icsbridge::xml {

inline constexpr char const* dav_ns = "DAV:";
inline constexpr char const* caldav_ns = "urn:ietf:params:xml:ns:caldav";

struct DocFree {
    void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
using XmlDoc = std::unique_ptr<xmlDoc, DocFree>;

/** @brief Deeper than any WebDAV body we read (a calendar-query filter is about 8 levels). */
inline constexpr std::size_t max_xml_depth = 64;

/**
 * @brief Parses `body`; null when it is not well-formed XML, declares a DTD (where entity bombs and external
 * entities live: no WebDAV body needs one), or nests deeper than `max_depth` elements.
 */
XmlDoc parse_xml(std::string_view body, std::size_t max_depth = max_xml_depth);

/** @brief Whether `n` is the element `ns`:`name`. */
bool is(xmlNode const* n, char const* ns, char const* name);
/** @brief The first child element `ns`:`name`, or null. */
xmlNode* child(xmlNode const* n, char const* ns, char const* name);
/** @brief The text content of `n`, trimmed of XML white space; empty for null. */
std::string text(xmlNode const* n);
/** @brief The attribute `name` of `n`, or empty. */
std::string attribute(xmlNode const* n, char const* name);
/** @brief Text safe inside an element or a double-quoted attribute. */
std::string xml_escape(std::string_view in);

} // namespace icsbridge::xml
