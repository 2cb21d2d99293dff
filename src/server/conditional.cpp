// File: conditional.cpp
// If-None-Match / If-Modified-Since evaluation and Accept-Encoding parsing.
#include "server/conditional.hpp"

#include "net/http_date.hpp"
#include "util/ascii.hpp"
#include "util/trim.hpp"

#include <cctype>

namespace icsbridge {

namespace {

/** @brief The opaque-tag of an entity-tag: `"x"` for both `"x"` and `W/"x"`. */
std::string_view opaque(std::string_view tag) {
    tag = trim_ows(tag);
    if (tag.substr(0, 2) == "W/")
        tag.remove_prefix(2);
    return tag;
}

/** @brief q of a coding's parameters (";q=0.5"); 1 when absent, 0 when malformed (be conservative). */
double qvalue(std::string_view params) {
    while (!params.empty()) {
        auto semi = params.find(';');
        auto p = trim_ows(params.substr(0, semi));
        params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
        if (p.size() < 2 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=')
            continue;
        auto v = trim_ows(p.substr(2));
        if (v.empty() || (v[0] != '0' && v[0] != '1'))
            return 0;
        double q = v[0] - '0';
        double scale = 0.1;
        for (std::size_t i = 2; i < v.size() && v[1] == '.'; ++i, scale /= 10) {
            if (!std::isdigit(static_cast<unsigned char>(v[i])))
                return 0;
            q += (v[i] - '0') * scale;
        }
        return q > 1 ? 1 : q;
    }
    return 1;
}

} // namespace

bool etag_list_matches(std::string_view inm, std::string_view etag) {
    inm = trim_ows(inm);
    if (inm == "*")
        return true;
    auto want = opaque(etag);
    // Tags are quoted strings that cannot hold a quote, so a comma inside quotes cannot occur
    // in a valid tag; scanning quote to quote still keeps a malformed list from matching by accident.
    std::size_t i = 0;
    while (i < inm.size()) {
        while (i < inm.size() && (is_ows(inm[i]) || inm[i] == ','))
            ++i;
        std::size_t start = i;
        if (inm.substr(i, 2) == "W/")
            i += 2;
        if (i >= inm.size() || inm[i] != '"')
            return false;
        auto close = inm.find('"', i + 1);
        if (close == std::string_view::npos)
            return false;
        if (opaque(inm.substr(start, close + 1 - start)) == want)
            return true;
        i = close + 1;
    }
    return false;
}

bool not_modified(
    std::optional<std::string_view> if_none_match,
    std::optional<std::string_view> if_modified_since,
    std::string_view etag,
    sys_seconds last_modified,
    sys_seconds now
) {
    if (if_none_match)
        return etag_list_matches(*if_none_match, etag);
    if (if_modified_since) {
        auto t = parse_http_date(*if_modified_since);
        // A date from the future (a client's clock ahead, or a forged header) proves nothing about the copy
        // the client holds: ignore it rather than freeze the client on a 304.
        return t && *t <= now && *t >= last_modified;
    }
    return false;
}

std::string gzip_etag(std::string_view etag) {
    if (etag.size() < 2 || etag.back() != '"')
        return std::string(etag) + "-gz";
    std::string out(etag.substr(0, etag.size() - 1));
    out += "-gz\"";
    return out;
}

bool accepts_gzip(std::string_view ae) {
    std::optional<double> gzip_q, star_q;
    while (!ae.empty()) {
        auto comma = ae.find(',');
        auto item = ae.substr(0, comma);
        ae = comma == std::string_view::npos ? std::string_view() : ae.substr(comma + 1);
        auto semi = item.find(';');
        auto coding = trim_ows(item.substr(0, semi));
        double q = semi == std::string_view::npos ? 1.0 : qvalue(item.substr(semi + 1));
        if (ascii_iequals(coding, "gzip") || ascii_iequals(coding, "x-gzip"))
            gzip_q = q;
        else if (coding == "*")
            star_q = q;
    }
    if (gzip_q)
        return *gzip_q > 0;
    return star_q && *star_q > 0;
}

} // namespace icsbridge
