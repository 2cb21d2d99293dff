// File: multistatus.cpp
// The 207 Multi-Status body (RFC 4918 13), written into one string with the namespaces declared once.
#include "dav/dav_detail.hpp"
#include "dav/xml.hpp"

namespace icsbridge::dav::detail {

std::string status_line(unsigned code) {
    switch (code) {
    case 200:
        return "HTTP/1.1 200 OK";
    case 403:
        return "HTTP/1.1 403 Forbidden";
    case 404:
        return "HTTP/1.1 404 Not Found";
    default:
        return "HTTP/1.1 " + std::to_string(code) + " Status";
    }
}

MultistatusWriter::MultistatusWriter(std::size_t reserve) {
    out_.reserve(reserve + 256);
    out_ = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:multistatus xmlns:D=\"DAV:\" "
           "xmlns:C=\"urn:ietf:params:xml:ns:caldav\" xmlns:CS=\"http://calendarserver.org/ns/\" "
           "xmlns:A=\"http://apple.com/ns/ical/\">\n";
}

void MultistatusWriter::response(
    std::string_view href, std::vector<std::string> const& found, std::vector<QName> const& missing
) {
    out_ += "<D:response><D:href>";
    out_ += xml_escape(href);
    out_ += "</D:href>";
    if (!found.empty()) {
        out_ += "<D:propstat><D:prop>";
        for (auto const& f : found)
            out_ += f;
        out_ += "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>";
    }
    if (!missing.empty()) {
        out_ += "<D:propstat><D:prop>";
        for (auto const& m : missing)
            out_ += m.ns.empty() ? "<" + m.name + " xmlns=\"\"/>"
                                 : "<X:" + m.name + " xmlns:X=\"" + xml_escape(m.ns) + "\"/>";
        out_ += "</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>";
    }
    out_ += "</D:response>\n";
}

void MultistatusWriter::status(std::string_view href, unsigned code) {
    out_ += "<D:response><D:href>";
    out_ += xml_escape(href);
    out_ += "</D:href><D:status>" + status_line(code) + "</D:status></D:response>\n";
}

std::string MultistatusWriter::finish(std::string_view sync_token) {
    if (!sync_token.empty())
        out_ += "<D:sync-token>" + xml_escape(sync_token) + "</D:sync-token>\n";
    out_ += "</D:multistatus>\n";
    return std::move(out_);
}

} // namespace icsbridge::dav::detail
