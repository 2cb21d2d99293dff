// File: upstream_error.cpp
// Maps upstream error answers of both services to errc values and one-line messages.
#include "sources/upstream_error.hpp"

#include "sources/json_read.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <cctype>
#include <optional>

namespace icsbridge {

namespace json = boost::json;

namespace {

struct UpstreamFault {
    std::string code; ///< events: "NO_AUTH"; jobs: "5"
    std::string description;
};

std::optional<UpstreamFault> read_fault(std::string_view body, Api api) {
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec || !v.is_object())
        return std::nullopt;
    auto const& o = v.get_object();
    UpstreamFault f;
    if (api == Api::events) {
        // Only the v3 envelope carries a constant code string; the v1 leftover `{"error": {...}}` has none.
        f.code = jsonr::text(o, "error");
        f.description = jsonr::text(o, "error_description");
    } else {
        if (jsonr::text(o, "stat") != "fail")
            return std::nullopt;
        f.code = jsonr::text(o, "code");
        f.description = jsonr::text(o, "desc");
    }
    if (f.code.empty() && f.description.empty())
        return std::nullopt;
    f.code = clean_upstream_text(f.code, 40);
    f.description = clean_upstream_text(f.description);
    return f;
}

bool mentions_key(std::string_view desc) {
    std::string lower(desc);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
        return std::tolower(c);
    });
    return lower.find("key") != std::string::npos;
}

std::string for_request(std::string_view path) {
    return path.empty() ? std::string() : " for GET " + std::string(path);
}

Error events_error(unsigned status, std::optional<UpstreamFault> const& f, std::string_view path) {
    std::string const name(api_name(Api::events));
    std::string const status_code = std::to_string(status) + (f && !f->code.empty() ? " " + f->code : "");
    std::string const desc = f && !f->description.empty() ? ": " + f->description : "";
    bool const bad_token =
        f && (f->code == "INVALID_AUTH" || f->code == "NO_AUTH" || f->code == "INVALID_AUTH_HEADER");
    if (status == 401 || (status == 400 && bad_token))
        return fail(errc::upstream_auth, name + " rejected the token (" + status_code + ")" + desc);
    if (status == 403) {
        std::string msg = name + " refused access (" + status_code + ")" + for_request(path) + desc;
        // Organization-migrated accounts cannot use /users/me/events/ any more (UPSTREAM.md 1.1).
        if (f && f->description.find("legacy user endpoints") != std::string::npos)
            msg += " (set select = \"organization\" for this feed)";
        return fail(errc::upstream_auth, msg);
    }
    if (status == 404) {
        std::string msg = name + " answered " + status_code + for_request(path) + desc;
        if (path.find("/events/search/") != std::string::npos)
            msg += " (the public /events/search/ endpoint was shut down in December 2019, for organizers' "
                   "own keys in "
                   "February 2020; use select = \"organization\")";
        return fail(errc::upstream_not_found, msg);
    }
    if (status == 429)
        return fail(
            errc::upstream_rate_limited,
            name + " rate limit reached (" + status_code + ")" + for_request(path) + desc
        );
    return fail(errc::upstream_status, name + " answered " + status_code + for_request(path) + desc);
}

Error jobs_error(unsigned status, std::optional<UpstreamFault> const& f, std::string_view path) {
    std::string const name(api_name(Api::jobs));
    bool const ok_status = status >= 200 && status < 300;
    std::string const code = f && !f->code.empty() ? "code " + f->code : "";
    std::string const desc = f ? f->description : "";
    if (status == 401 || status == 403 || mentions_key(desc)) {
        // The board reports failures inside a 200, so then its own code is the useful number.
        std::string detail = ok_status ? (code.empty() ? "stat fail" : code) : std::to_string(status);
        return fail(
            errc::upstream_auth,
            name + " rejected the api_key (" + detail + (desc.empty() ? "" : ": " + desc) + ")"
        );
    }
    std::string const tail =
        (code.empty() ? "" : " (" + code + ")") + for_request(path) + (desc.empty() ? "" : ": " + desc);
    if (ok_status)
        return fail(errc::upstream_status, name + " reported a failure" + tail);
    std::string const msg = name + " answered " + std::to_string(status) + tail;
    if (status == 404)
        return fail(errc::upstream_not_found, msg);
    if (status == 429)
        return fail(errc::upstream_rate_limited, msg);
    return fail(errc::upstream_status, msg);
}

} // namespace

std::string_view api_name(Api api) {
    return api == Api::events ? "events API" : "job board API";
}

std::string clean_upstream_text(std::string_view s, std::size_t max) {
    std::string out;
    bool space = false;
    for (char c : s) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == ' ') {
            space = !out.empty();
            continue;
        }
        if (space)
            out += ' ';
        space = false;
        out += c;
    }
    if (out.size() > max) {
        // Cut on a UTF-8 boundary so the line stays valid text.
        std::size_t cut = max;
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80)
            --cut;
        out.resize(cut);
        out += "...";
    }
    return out;
}

Error upstream_error(unsigned status, std::string_view body, Api api, std::string_view path) {
    auto f = read_fault(body, api);
    return api == Api::events ? events_error(status, f, path) : jobs_error(status, f, path);
}

} // namespace icsbridge
