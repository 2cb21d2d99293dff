// File: dav_xml.hpp
// WebDAV/CalDAV XML (RFC 4918, 4791, 6578) read with libxml2 into plain values, and the request bodies
// the CalDAV target sends. Parsing walks the element tree by namespace and name, never by string search.
#pragma once

#include <icsbridge/error.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::push {

/** @brief One <D:response> of a 207 Multi-Status: its href and the properties found (200 propstats). */
struct DavEntry {
    std::string href;
    unsigned status = 200; ///< the response-level status (404: removed, in a sync-collection report)
    std::string etag;
    std::string displayname;
    bool is_calendar = false;            ///< resourcetype holds C:calendar
    bool is_collection = false;          ///< resourcetype holds D:collection
    std::vector<std::string> components; ///< supported-calendar-component-set names (VEVENT, VTODO)
    bool components_given = false;       ///< the server listed the set (absent: any component)
    std::string current_user_principal;  ///< href inside current-user-principal
    std::string calendar_home_set;       ///< first href inside calendar-home-set
};

struct Multistatus {
    std::vector<DavEntry> responses;
    std::string sync_token; ///< <D:sync-token> of a sync-collection report
};

/** @brief Parses a 207 body; errc::upstream_malformed when it is not a DAV:multistatus document. */
Result<Multistatus> parse_multistatus(std::string_view body);

/** @brief PROPFIND asking for the discovery and listing properties above. */
std::string propfind_body();
/** @brief REPORT sync-collection from `token` (empty: initial sync), asking for getetag. */
std::string sync_collection_body(std::string_view token);
/** @brief MKCALENDAR with a display name and VEVENT+VTODO components. */
std::string mkcalendar_body(std::string_view displayname);

/** @brief The last path segment of an href (percent-decoding not needed: our names are plain ASCII). */
std::string_view last_segment(std::string_view href);

} // namespace icsbridge::push
