// File: multistatus.cpp
// The 207 Multi-Status body (RFC 4918 13), written a response at a time: into one string, or (gather) as
// parts that reference the items' calendar-data where it lies instead of copying it.
#include "dav/dav_detail.hpp"
#include "util/html_escape.hpp"

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

// DAV: is also the default namespace, as Radicale writes it: what every response repeats (response, href,
// propstat, prop, status, and getetag) carries no prefix, 24 bytes an item fewer; the other properties keep
// D:, which names the same namespace. Text is escaped with html_escape, whose five entities are XML's own.
MultistatusWriter::MultistatusWriter(bool gather)
    : gather_(gather) {
    out_ = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<multistatus xmlns=\"DAV:\" xmlns:D=\"DAV:\" "
           "xmlns:C=\"urn:ietf:params:xml:ns:caldav\" xmlns:CS=\"http://calendarserver.org/ns/\" "
           "xmlns:A=\"http://apple.com/ns/ical/\">\n";
}

void MultistatusWriter::begin(std::string_view href) {
    out_ += "<response><href>";
    append_html_escaped(out_, href);
    out_ += "</href>";
    open_ = false;
}

void MultistatusWriter::open() {
    if (!open_)
        out_ += "<propstat><prop>";
    open_ = true;
}

void MultistatusWriter::found(std::string_view element) {
    open();
    out_ += element;
}

void MultistatusWriter::shared(std::string_view bytes) {
    if (gather_)
        refs_.emplace_back(out_.size(), bytes);
    else
        out_ += bytes;
    shared_bytes_ += bytes.size();
}

void MultistatusWriter::calendar_data(Item const& item) {
    open();
    std::string_view data = item.data;
    if (item.plain) {
        out_ += "<C:calendar-data>";
        shared(data);
        out_ += "</C:calendar-data>";
        return;
    }
    // CDATA: the bytes as they are, not an entity for every < & of an HTML description. A "]]>" in them ends
    // one section and starts the next.
    out_ += "<C:calendar-data><![CDATA[";
    for (auto p = data.find("]]>"); p != std::string_view::npos; p = data.find("]]>")) {
        shared(data.substr(0, p + 2));
        out_ += "]]><![CDATA[";
        data.remove_prefix(p + 2);
    }
    shared(data);
    out_ += "]]></C:calendar-data>";
}

void MultistatusWriter::end(std::vector<QName const*> const& missing) {
    if (open_)
        out_ += "</prop><status>HTTP/1.1 200 OK</status></propstat>";
    open_ = false;
    if (!missing.empty()) {
        out_ += "<propstat><prop>";
        for (auto const* m : missing) {
            if (m->ns.empty()) {
                out_.append("<").append(m->name).append(" xmlns=\"\"/>");
                continue;
            }
            out_.append("<X:").append(m->name).append(" xmlns:X=\"");
            append_html_escaped(out_, m->ns);
            out_ += "\"/>";
        }
        out_ += "</prop><status>HTTP/1.1 404 Not Found</status></propstat>";
    }
    out_ += "</response>";
}

void MultistatusWriter::status(std::string_view href, unsigned code) {
    out_ += "<response><href>";
    append_html_escaped(out_, href);
    out_ += "</href><status>" + status_line(code) + "</status></response>";
}

void MultistatusWriter::finish(std::string_view sync_token) {
    if (!sync_token.empty()) {
        out_ += "\n<sync-token>";
        append_html_escaped(out_, sync_token);
        out_ += "</sync-token>";
    }
    out_ += "\n</multistatus>\n";
}

std::string MultistatusWriter::take() {
    return std::move(out_);
}

std::size_t MultistatusWriter::pending() const {
    return out_.size() + shared_bytes_;
}

void MultistatusWriter::parts(std::vector<std::string_view>& out) {
    std::string_view const own = out_;
    std::size_t at = 0;
    for (auto const& [offset, bytes] : refs_) {
        out.push_back(own.substr(at, offset - at));
        out.push_back(bytes);
        at = offset;
    }
    out.push_back(own.substr(at));
    handed_ = true;
}

void MultistatusWriter::next_batch() {
    if (!handed_)
        return;
    out_.clear();
    refs_.clear();
    shared_bytes_ = 0;
    handed_ = false;
}

} // namespace icsbridge::dav::detail
