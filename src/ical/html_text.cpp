// File: html_text.cpp
// html_to_text(): upstream HTML descriptions -> readable plain text for DESCRIPTION.
// One forward pass with bounded look-ahead, so malformed or hostile HTML stays linear in time.
#include "ical/text.hpp"
#include <icsbridge/calendar.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

namespace icsbridge {

namespace {

struct NamedEntity {
    std::string_view name;
    char32_t cp;
};

// The entities real descriptions use; anything else stays as written.
constexpr std::array<NamedEntity, 48> named_entities{{
    {"amp", U'&'},         {"lt", U'<'},          {"gt", U'>'},          {"quot", U'"'},
    {"apos", U'\''},       {"nbsp", U' '},        {"rsquo", U'\u2019'},  {"lsquo", U'\u2018'},
    {"rdquo", U'\u201D'},  {"ldquo", U'\u201C'},  {"sbquo", U'\u201A'},  {"bdquo", U'\u201E'},
    {"ndash", U'\u2013'},  {"mdash", U'\u2014'},  {"hellip", U'\u2026'}, {"bull", U'\u2022'},
    {"middot", U'\u00B7'}, {"copy", U'\u00A9'},   {"reg", U'\u00AE'},    {"trade", U'\u2122'},
    {"euro", U'\u20AC'},   {"pound", U'\u00A3'},  {"yen", U'\u00A5'},    {"cent", U'\u00A2'},
    {"laquo", U'\u00AB'},  {"raquo", U'\u00BB'},  {"times", U'\u00D7'},  {"divide", U'\u00F7'},
    {"deg", U'\u00B0'},    {"para", U'\u00B6'},   {"sect", U'\u00A7'},   {"eacute", U'\u00E9'},
    {"egrave", U'\u00E8'}, {"aacute", U'\u00E1'}, {"agrave", U'\u00E0'}, {"iacute", U'\u00ED'},
    {"oacute", U'\u00F3'}, {"uacute", U'\u00FA'}, {"ntilde", U'\u00F1'}, {"ccedil", U'\u00E7'},
    {"auml", U'\u00E4'},   {"ouml", U'\u00F6'},   {"uuml", U'\u00FC'},   {"Auml", U'\u00C4'},
    {"Ouml", U'\u00D6'},   {"Uuml", U'\u00DC'},   {"szlig", U'\u00DF'},  {"shy", U'\u00AD'},
}};

// Longest named entity plus room for "#x10FFFF".
constexpr std::size_t max_entity_length = 10;
// A tag longer than this whose quotes don't balance is treated as ending at the next '>'.
constexpr std::size_t max_quoted_tag_scan = 4096;

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

// Position of `needle` (lower-case ASCII) in `hay` from `from`, case-insensitively; npos if absent.
std::size_t ifind(std::string_view hay, std::string_view needle, std::size_t from) {
    if (needle.empty() || hay.size() < needle.size())
        return std::string_view::npos;
    for (std::size_t i = from; i + needle.size() <= hay.size(); ++i) {
        if (lower(hay[i]) != needle[0])
            continue;
        if (iequals(hay.substr(i, needle.size()), needle))
            return i;
    }
    return std::string_view::npos;
}

enum class TagKind { other, paragraph, line, list_item, cell, link, pre, br, hr, skip_content };

TagKind classify(std::string_view name) {
    static constexpr std::array<std::string_view, 23> paragraphs{
        "p",   "ul",    "ol",         "h1",      "h2",      "h3",      "h4",     "h5",
        "h6",  "table", "blockquote", "section", "article", "header",  "footer", "main",
        "nav", "aside", "figure",     "dl",      "address", "details", "form"};
    static constexpr std::array<std::string_view, 7>
        lines{"div", "tr", "dt", "dd", "figcaption", "summary", "caption"};
    if (iequals(name, "br"))
        return TagKind::br;
    if (iequals(name, "li"))
        return TagKind::list_item;
    if (iequals(name, "a"))
        return TagKind::link;
    if (iequals(name, "td") || iequals(name, "th"))
        return TagKind::cell;
    if (iequals(name, "pre"))
        return TagKind::pre;
    if (iequals(name, "hr"))
        return TagKind::hr;
    if (iequals(name, "script") || iequals(name, "style") || iequals(name, "head") ||
        iequals(name, "template") || iequals(name, "noscript"))
        return TagKind::skip_content;
    for (auto p : paragraphs)
        if (iequals(name, p))
            return TagKind::paragraph;
    for (auto l : lines)
        if (iequals(name, l))
            return TagKind::line;
    return TagKind::other;
}

// Value of attribute `attr` in the inside of a tag (between the name and '>'), or empty.
std::string_view attribute(std::string_view inside, std::string_view attr) {
    std::size_t i = 0;
    while (i < inside.size()) {
        while (i < inside.size() && (is_space(inside[i]) || inside[i] == '/'))
            ++i;
        std::size_t const name_start = i;
        while (i < inside.size() && !is_space(inside[i]) && inside[i] != '=' && inside[i] != '/')
            ++i;
        std::string_view const name = inside.substr(name_start, i - name_start);
        while (i < inside.size() && is_space(inside[i]))
            ++i;
        std::string_view value;
        if (i < inside.size() && inside[i] == '=') {
            ++i;
            while (i < inside.size() && is_space(inside[i]))
                ++i;
            if (i < inside.size() && (inside[i] == '"' || inside[i] == '\'')) {
                char const q = inside[i++];
                std::size_t const end = inside.find(q, i);
                std::size_t const stop = end == std::string_view::npos ? inside.size() : end;
                value = inside.substr(i, stop - i);
                i = stop + 1;
            } else {
                std::size_t const start = i;
                while (i < inside.size() && !is_space(inside[i]))
                    ++i;
                value = inside.substr(start, i - start);
            }
        }
        if (iequals(name, attr))
            return value;
        if (name.empty() && value.empty())
            ++i; // stray character: make progress
    }
    return {};
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

// Decodes the entity starting at s[i] == '&'; returns the code point and its length, or length 0.
std::pair<char32_t, std::size_t> decode_entity(std::string_view s, std::size_t i) {
    std::size_t const semi = s.substr(i, max_entity_length + 2).find(';');
    if (semi == std::string_view::npos || semi < 2)
        return {0, 0};
    std::string_view const body = s.substr(i + 1, semi - 1);
    if (body[0] == '#') {
        std::uint32_t cp = 0;
        bool const hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
        std::string_view const digits = body.substr(hex ? 2 : 1);
        if (digits.empty() || digits.size() > 7)
            return {0, 0};
        for (char c : digits) {
            int d;
            if (c >= '0' && c <= '9')
                d = c - '0';
            else if (hex && lower(c) >= 'a' && lower(c) <= 'f')
                d = lower(c) - 'a' + 10;
            else
                return {0, 0};
            cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(d);
        }
        // Windows-1252 quotes sent as &#146; and friends are common in old CMS output.
        if (cp >= 0x91 && cp <= 0x94)
            cp = std::array<std::uint32_t, 4>{0x2018, 0x2019, 0x201C, 0x201D}[cp - 0x91];
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || (cp < 0x20 && cp != '\n' && cp != '\t') ||
            (cp >= 0x7F && cp < 0xA0))
            cp = 0xFFFD;
        return {static_cast<char32_t>(cp), semi + 1};
    }
    for (auto const& e : named_entities)
        if (e.name == body)
            return {e.cp, semi + 1};
    return {0, 0};
}

} // namespace

std::string html_to_text(std::string_view html) {
    TextWriter w(html.size());
    // Plain text (no markup at all) keeps its own line breaks.
    w.set_keep_newlines(html.find('<') == std::string_view::npos);

    std::size_t link_text_start = 0;
    std::string link_href;
    bool no_more_gt = false; // once a '>' search fails, every later one would too

    std::size_t i = 0;
    while (i < html.size()) {
        char const c = html[i];
        if (c == '&') {
            auto const [cp, len] = decode_entity(html, i);
            if (len == 0) {
                w.character('&');
                ++i;
            } else {
                w.code_point(cp);
                i += len;
            }
            continue;
        }
        if (c != '<') {
            std::size_t const stop = html.find_first_of("<&", i + 1);
            std::size_t const run_end = stop == std::string_view::npos ? html.size() : stop;
            w.text(html.substr(i, run_end - i));
            i = run_end;
            continue;
        }
        if (i + 1 >= html.size() || no_more_gt) {
            w.character(c);
            ++i;
            continue;
        }
        char const next = html[i + 1];
        if (html.substr(i, 4) == "<!--") {
            std::size_t const end = html.find("-->", i + 4);
            i = end == std::string_view::npos ? html.size() : end + 3;
            continue;
        }
        bool const closing = next == '/';
        std::size_t const name_start = i + (closing ? 2 : 1);
        bool const markup = next == '!' || next == '?';
        if (!markup &&
            (name_start >= html.size() || !((html[name_start] >= 'a' && html[name_start] <= 'z') ||
                                            (html[name_start] >= 'A' && html[name_start] <= 'Z')))) {
            w.character(c); // "a < b", "<3"
            ++i;
            continue;
        }
        // Find the end of the tag, honouring quoted attribute values within a bounded window.
        std::size_t end = std::string_view::npos;
        {
            char quote = 0;
            std::size_t const limit = std::min(html.size(), i + max_quoted_tag_scan);
            for (std::size_t k = name_start; k < limit; ++k) {
                char const ch = html[k];
                if (quote) {
                    if (ch == quote)
                        quote = 0;
                } else if (ch == '"' || ch == '\'') {
                    quote = ch;
                } else if (ch == '>') {
                    end = k;
                    break;
                }
            }
            if (end == std::string_view::npos)
                end = html.find('>', name_start);
        }
        if (end == std::string_view::npos) {
            no_more_gt = true;
            w.character(c);
            ++i;
            continue;
        }
        std::size_t name_end = name_start;
        while (name_end < end && !is_space(html[name_end]) && html[name_end] != '/' && html[name_end] != '>')
            ++name_end;
        std::string_view const name =
            markup ? std::string_view{} : html.substr(name_start, name_end - name_start);
        std::string_view const inside = html.substr(name_end, end - name_end);
        i = end + 1;
        if (markup)
            continue;

        switch (classify(name)) {
        case TagKind::paragraph:
            w.request_break(2);
            break;
        case TagKind::line:
            w.request_break(1);
            break;
        case TagKind::br:
            w.request_break(1);
            break;
        case TagKind::hr:
            w.request_break(2);
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
                link_href = std::string(attribute(inside, "href"));
                link_text_start = w.size();
            } else if (!link_href.empty()) {
                std::string href = html_to_text(link_href); // decode entities such as &amp;
                std::string_view text = w.since(std::min(link_text_start, w.size()));
                while (!text.empty() && is_space(text.front()))
                    text.remove_prefix(1);
                while (!text.empty() && is_space(text.back()))
                    text.remove_suffix(1);
                bool const useful = href.starts_with("http://") || href.starts_with("https://") ||
                                    href.starts_with("mailto:") || href.starts_with("tel:");
                std::string_view bare = href;
                if (bare.starts_with("mailto:") || bare.starts_with("tel:"))
                    bare = bare.substr(bare.find(':') + 1);
                if (useful && text != href && text != bare) {
                    if (text.empty()) {
                        w.text(href);
                    } else {
                        w.character(' ');
                        w.marker("(" + href + ")");
                    }
                }
                link_href.clear();
            }
            break;
        case TagKind::skip_content:
            if (!closing && !inside.ends_with("/")) {
                std::string lname(name);
                std::transform(lname.begin(), lname.end(), lname.begin(), lower);
                std::size_t const stop = ifind(html, "</" + lname, i);
                if (stop == std::string_view::npos) {
                    i = html.size();
                } else {
                    std::size_t const gt = html.find('>', stop);
                    i = gt == std::string_view::npos ? html.size() : gt + 1;
                }
            }
            break;
        case TagKind::other:
            break;
        }
    }
    return std::move(w).finish();
}

} // namespace icsbridge
