// File: redirect.cpp
// classify_redirect() over Boost.URL's parse of the origin-form target, and the pages.
#include "oauth/redirect.hpp"

#include "util/html_escape.hpp"
#include <icsbridge/digest.hpp>

#include <boost/url/parse.hpp>

#include <optional>

namespace icsbridge::oauth {

namespace {

/** The decoded value of the first `key` parameter; nullopt when there is none. */
std::optional<std::string> param(boost::urls::url_view const& u, std::string_view key) {
    auto params = u.params();
    auto it = params.find(key);
    if (it == params.end())
        return std::nullopt;
    return std::string((*it).value);
}

} // namespace

RedirectVerdict classify_redirect(std::string_view method, std::string_view target, std::string_view state) {
    using Kind = RedirectVerdict::Kind;
    RedirectVerdict v;
    if (method != "GET") {
        v.status = 405;
        return v;
    }
    auto u = boost::urls::parse_origin_form(target);
    if (!u || u->path() != "/") {
        v.status = 404;
        return v;
    }
    auto code = param(*u, "code");
    auto error = param(*u, "error");
    if (!code && !error)
        return v;
    auto given = param(*u, "state");
    if (!given || !same_secret(state, *given)) {
        v.kind = Kind::wrong_state;
        return v;
    }
    if (error) {
        v.kind = Kind::denied;
        v.error = *error;
        v.error_description = param(*u, "error_description").value_or("");
        v.status = 200;
        return v;
    }
    if (code->empty())
        return v;
    v.kind = Kind::code;
    v.code = std::move(*code);
    v.status = 200;
    return v;
}

std::string redirect_page(std::string_view heading, std::string_view text) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>icsbridge connect</title>"
           "<meta name=\"referrer\" content=\"no-referrer\"></head>\n<body><h1>" +
           html_escape(heading) + "</h1>\n<p>" + html_escape(text) + "</p></body></html>\n";
}

} // namespace icsbridge::oauth
