// File: html_text.cpp
// html_to_text(): upstream HTML descriptions -> readable plain text for DESCRIPTION.
// One forward pass with bounded look-ahead, so malformed or hostile HTML stays linear in time.
#include "ical/html_scan.hpp"
#include "ical/text.hpp"
#include "util/ascii.hpp"
#include "util/trim.hpp"
#include <icsbridge/ical.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

namespace icsbridge {

namespace {

using html::is_space;

enum class TagKind { other, paragraph, line, list_item, cell, link, pre, br, hr, skip_content };

TagKind classify(std::string_view name) {
    static constexpr std::array<std::string_view, 23> paragraphs{
        "p",   "ul",    "ol",         "h1",      "h2",      "h3",      "h4",     "h5",
        "h6",  "table", "blockquote", "section", "article", "header",  "footer", "main",
        "nav", "aside", "figure",     "dl",      "address", "details", "form"};
    static constexpr std::array<std::string_view, 7>
        lines{"div", "tr", "dt", "dd", "figcaption", "summary", "caption"};
    if (ascii_iequals(name, "br"))
        return TagKind::br;
    if (ascii_iequals(name, "li"))
        return TagKind::list_item;
    if (ascii_iequals(name, "a"))
        return TagKind::link;
    if (ascii_iequals(name, "td") || ascii_iequals(name, "th"))
        return TagKind::cell;
    if (ascii_iequals(name, "pre"))
        return TagKind::pre;
    if (ascii_iequals(name, "hr"))
        return TagKind::hr;
    if (ascii_iequals(name, "script") || ascii_iequals(name, "style") || ascii_iequals(name, "head") ||
        ascii_iequals(name, "template") || ascii_iequals(name, "noscript"))
        return TagKind::skip_content;
    for (auto p : paragraphs)
        if (ascii_iequals(name, p))
            return TagKind::paragraph;
    for (auto l : lines)
        if (ascii_iequals(name, l))
            return TagKind::line;
    return TagKind::other;
}

class TextWriter {
  public:
    explicit TextWriter(std::size_t reserve) { out_.reserve(reserve); }

    void text(std::string_view s) {
        if (pre_depth_ > 0 || keep_newlines_) {
            for (char c : s)
                character(c);
            return;
        }
        // Whole words at a time: this loop sees nearly every byte of a description.
        std::size_t i = 0;
        while (i < s.size()) {
            if (is_space(s[i])) {
                space_ = true;
                ++i;
                continue;
            }
            std::size_t j = i + 1;
            while (j < s.size() && !is_space(s[j]))
                ++j;
            flush();
            out_.append(s.data() + i, j - i);
            i = j;
        }
    }

    void character(char c) {
        if (pre_depth_ > 0 || keep_newlines_) {
            if (c == '\n') {
                // A second newline in a row is a paragraph break.
                request_break(std::min(2, break_ + 1));
                return;
            }
            if (pre_depth_ > 0 && c != '\r') {
                flush();
                out_.push_back(c == '\t' || c == '\f' || c == '\v' ? ' ' : c);
                return;
            }
        }
        if (is_space(c)) {
            space_ = true;
            return;
        }
        flush();
        out_.push_back(c);
    }

    void code_point(char32_t cp) {
        if (cp == U' ' || cp == U'\u00A0') {
            space_ = true;
            return;
        }
        if (cp == U'\u00AD') // soft hyphen: invisible unless a line breaks there
            return;
        flush();
        ical::append_utf8(out_, cp);
    }

    void request_break(int n) { break_ = std::max(break_, n); }
    void line_break() { break_ = std::min(2, break_ + 1); }

    // Writes literal text right away, without a space after it (list bullets).
    void marker(std::string_view s) {
        flush();
        out_.append(s);
        space_ = false;
    }

    void enter_pre() { ++pre_depth_; }
    void leave_pre() { pre_depth_ = std::max(0, pre_depth_ - 1); }
    void set_keep_newlines(bool keep) { keep_newlines_ = keep; }

    std::size_t size() const { return out_.size(); }
    std::string_view since(std::size_t pos) const { return std::string_view(out_).substr(pos); }

    std::string finish() && {
        // Drop spaces at line ends (an empty "• " item, text before a <br>).
        std::string result;
        result.reserve(out_.size());
        std::size_t line_start = 0;
        while (line_start <= out_.size()) {
            std::size_t end = out_.find('\n', line_start);
            bool const last = end == std::string::npos;
            if (last)
                end = out_.size();
            std::size_t trimmed = end;
            while (trimmed > line_start && out_[trimmed - 1] == ' ')
                --trimmed;
            result.append(out_, line_start, trimmed - line_start);
            if (last)
                break;
            result.push_back('\n');
            line_start = end + 1;
        }
        return result;
    }

  private:
    void flush() {
        if (!out_.empty() && break_ > 0) {
            out_.append(break_ >= 2 ? "\n\n" : "\n");
            space_ = false;
        } else if (space_ && !out_.empty() && out_.back() != '\n' && out_.back() != ' ') {
            out_.push_back(' ');
        }
        break_ = 0;
        space_ = false;
    }

    std::string out_;
    int break_ = 0;
    bool space_ = false;
    int pre_depth_ = 0;
    bool keep_newlines_ = false;
};

/** @brief The <a> being written: its href and where its text began in the output. */
struct OpenLink {
    std::string href;
    std::size_t text_start = 0;
};

// At </a>: the link's target after its text, unless the text already says it.
void end_link(TextWriter& w, OpenLink& link) {
    if (link.href.empty())
        return;
    std::string href = html_to_text(link.href); // decode entities such as &amp;
    std::string_view text = w.since(std::min(link.text_start, w.size()));
    text = trim_if(text, is_space);
    // Web links as they are; a mail address or phone number as text, without its scheme
    // (only http(s) URLs are written into a calendar).
    bool const web = ical::is_web_url(href);
    if (!web && (href.starts_with("mailto:") || href.starts_with("tel:")))
        href.erase(0, href.find(':') + 1);
    else if (!web)
        href.clear();
    if (!href.empty() && text != href) {
        if (text.empty()) {
            w.text(href);
        } else {
            w.character(' ');
            w.marker("(" + href + ")");
        }
    }
    link.href.clear();
}

/** @brief One element's effect on the text; returns where reading goes on (past a skipped element's
 * content, else `next`). */
std::size_t
apply_element(TextWriter& w, OpenLink& link, html::Tag const& tag, std::string_view html, std::size_t next) {
    bool const closing = tag.closing;
    switch (classify(tag.name)) {
    case TagKind::paragraph:
    case TagKind::hr:
        w.request_break(2);
        break;
    case TagKind::line:
        w.request_break(1);
        break;
    case TagKind::br:
        // Editors write paragraphs as <br><br>: the second one in a row makes an empty line.
        w.line_break();
        break;
    case TagKind::list_item:
        w.request_break(1);
        if (!closing)
            w.marker("\u2022 ");
        break;
    case TagKind::cell:
        if (closing)
            w.character(' ');
        break;
    case TagKind::pre:
        w.request_break(2);
        if (closing)
            w.leave_pre();
        else
            w.enter_pre();
        break;
    case TagKind::link:
        if (!closing) {
            link.href = std::string(html::attribute(tag.inside, "href"));
            link.text_start = w.size();
        } else {
            end_link(w, link);
        }
        break;
    case TagKind::skip_content:
        if (!closing && !tag.inside.ends_with("/"))
            return html::skip_content(html, tag.name, next);
        break;
    case TagKind::other:
        break;
    }
    return next;
}

} // namespace

std::string html_to_text(std::string_view html) {
    TextWriter w(html.size());
    // Plain text (no markup at all) keeps its own line breaks.
    w.set_keep_newlines(html.find('<') == std::string_view::npos);

    OpenLink link;
    bool no_more_gt = false; // once a '>' search fails, every later one would too

    std::size_t i = 0;
    while (i < html.size()) {
        char const c = html[i];
        if (c == '&') {
            auto const [cp, len] = html::decode_entity(html, i);
            if (len == 0)
                w.character('&');
            else
                w.code_point(cp);
            i += len == 0 ? 1 : len;
            continue;
        }
        if (c != '<') {
            std::size_t const stop = html.find_first_of("<&", i + 1);
            std::size_t const run_end = stop == std::string_view::npos ? html.size() : stop;
            w.text(html.substr(i, run_end - i));
            i = run_end;
            continue;
        }
        html::Tag const tag = html::scan_tag(html, i, no_more_gt);
        if (tag.kind == html::Tag::literal)
            w.character(c);
        i = tag.kind == html::Tag::element ? apply_element(w, link, tag, html, tag.next) : tag.next;
    }
    return std::move(w).finish();
}

} // namespace icsbridge
