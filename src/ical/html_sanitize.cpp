// File: html_sanitize.cpp
// sanitize_html(): the upstream's HTML description rebuilt from an allow-list for X-ALT-DESC (Outlook
// shows it). Nothing is copied through: every tag kept is written anew, every text run re-escaped.
#include "ical/html_scan.hpp"
#include "ical/text.hpp"
#include "util/ascii.hpp"
#include "util/html_escape.hpp"
#include <icsbridge/ical.hpp>

#include <algorithm>
#include <array>
#include <vector>

namespace icsbridge {

namespace {

// Formatting a mail client renders safely; attributes are dropped, except a checked href on <a>.
constexpr std::array<std::string_view, 33> allowed_tags{
    "a",   "b",   "strong", "i",   "em",   "u",          "s",    "strike", "del",   "ins", "small",
    "sub", "sup", "p",      "br",  "hr",   "ul",         "ol",   "li",     "h1",    "h2",  "h3",
    "h4",  "h5",  "h6",     "pre", "code", "blockquote", "span", "div",    "table", "tr",  "td"};
constexpr std::array<std::string_view, 6> allowed_table_parts{"thead", "tbody", "th", "dl", "dt", "dd"};
// Whose content is code or chrome, not text: dropped whole.
constexpr std::array<std::string_view, 18> dropped_with_content{
    "script",
    "style",
    "iframe",
    "object",
    "embed",
    "noscript",
    "template",
    "head",
    "title",
    "textarea",
    "select",
    "svg",
    "math",
    "frame",
    "frameset",
    "applet",
    "noembed",
    "xmp"};
constexpr std::size_t max_depth = 64;

template <std::size_t N>
std::string_view canonical(std::array<std::string_view, N> const& names, std::string_view name) {
    for (auto n : names)
        if (ascii_iequals(n, name))
            return n;
    return {};
}

// An href kept only with a scheme that cannot run code; browsers ignore whitespace and controls inside
// "java\tscript:", so those are removed before the scheme is read.
std::string safe_href(std::string_view raw) {
    std::string decoded;
    for (std::size_t i = 0; i < raw.size();) {
        if (raw[i] == '&') {
            auto const [cp, len] = html::decode_entity(raw, i);
            if (len > 0) {
                ical::append_utf8(decoded, cp);
                i += len;
                continue;
            }
        }
        decoded.push_back(raw[i++]);
    }
    std::string url;
    for (char c : decoded)
        if (static_cast<unsigned char>(c) > 0x20 && c != 0x7F)
            url.push_back(c);
    return ical::is_web_url(url) ? url : std::string();
}

/** @brief The output so far and the allowed elements open in it, innermost last. */
struct Sanitized {
    std::string body;
    std::vector<std::string_view> open;
    bool has_text = false;

    // A closing tag closes up to the matching open element, so the output always nests.
    void close(std::string_view name) {
        auto it = std::find(open.rbegin(), open.rend(), name);
        if (it == open.rend())
            return;
        for (auto k = open.rbegin(); k != std::next(it); ++k)
            body.append("</").append(*k).append(">");
        open.erase(std::next(it).base(), open.end());
    }

    void open_element(std::string_view name, html::Tag const& tag) {
        if (open.size() >= max_depth)
            return;
        body.append("<").append(name);
        if (name == "a")
            if (std::string const href = safe_href(html::attribute(tag.inside, "href")); !href.empty()) {
                body.append(" href=\"");
                append_html_escaped(body, href);
                body.append("\"");
            }
        body.append(">");
        open.push_back(name);
    }

    /** @brief One element: kept (canonical name, safe href only), dropped with its content, or dropped
     * alone. Returns where reading goes on. */
    std::size_t element(html::Tag const& tag, std::string_view in) {
        if (!canonical(dropped_with_content, tag.name).empty())
            return !tag.closing && !tag.inside.ends_with("/") ? html::skip_content(in, tag.name, tag.next)
                                                              : tag.next;
        std::string_view name = canonical(allowed_tags, tag.name);
        if (name.empty())
            name = canonical(allowed_table_parts, tag.name);
        if (name.empty())
            return tag.next; // unknown or unsafe markup: its text stays, the tag goes
        if (name == "br" || name == "hr") {
            if (!tag.closing)
                body.append("<").append(name).append(">");
        } else if (tag.closing) {
            close(name);
        } else {
            open_element(name, tag);
        }
        return tag.next;
    }
};

} // namespace

namespace {

/** Where the text run from `i` ends: the next '<' or '&', or the end. */
std::size_t run_end(std::string_view in, std::size_t i) {
    while (i < in.size() && in[i] != '<' && in[i] != '&')
        ++i;
    return i;
}

} // namespace

std::string sanitize_html(std::string_view in) {
    constexpr std::string_view head = "<html><body>", tail = "</body></html>";
    Sanitized out;
    out.body.reserve(in.size() + head.size() + tail.size());
    out.body.append(head);
    bool no_more_gt = false;
    std::size_t i = 0;
    while (i < in.size()) {
        char const c = in[i];
        if (c == '&') {
            auto const [cp, len] = html::decode_entity(in, i);
            std::string decoded;
            if (len > 0)
                ical::append_utf8(decoded, cp);
            append_html_escaped(out.body, len > 0 ? std::string_view(decoded) : std::string_view("&"));
            out.has_text = true;
            i += len > 0 ? len : 1;
            continue;
        }
        if (c != '<') {
            std::size_t const end = run_end(in, i + 1);
            std::string_view const run = in.substr(i, end - i);
            out.has_text = out.has_text || run.find_first_not_of(" \t\r\n") != std::string_view::npos;
            append_html_escaped(out.body, run);
            i = end;
            continue;
        }
        html::Tag const tag = html::scan_tag(in, i, no_more_gt);
        if (tag.kind == html::Tag::literal)
            out.body.append("&lt;");
        i = tag.kind == html::Tag::element ? out.element(tag, in) : tag.next;
    }
    for (auto k = out.open.rbegin(); k != out.open.rend(); ++k)
        out.body.append("</").append(*k).append(">");
    if (!out.has_text)
        return {};
    out.body.append(tail);
    return ical::clean_text(out.body);
}

} // namespace icsbridge
