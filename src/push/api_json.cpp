// File: api_json.cpp
// JSON answers of the Google and Graph APIs read with Boost.JSON; URL pieces escaped with Boost.URL.
#include "push/api_json.hpp"

#include "util/json_fields.hpp"
#include <icsbridge/log.hpp>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/pchars.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace icsbridge::push {

namespace json = boost::json;

std::optional<json::object> json_object_of(HttpResponse const& r) {
    // A delta listing's page is a hundred events or more, thousands of small values read once and dropped:
    // one arena sized by the body takes them (the object holds it) instead of a malloc and a free each.
    std::error_code ec;
    auto v = json::parse(r.body, ec, json::make_shared_resource<json::monotonic_resource>(r.body.size()));
    if (ec || !v.is_object())
        return std::nullopt;
    return std::move(v.as_object());
}

std::string path_segment(std::string_view s) {
    // pchars leaves '@' and ':' as they are, which both APIs read in a path; '#', '/', '?' are escaped.
    return boost::urls::encode(s, boost::urls::pchars);
}

std::string query_value(std::string_view s) {
    return boost::urls::encode(s, boost::urls::unreserved_chars);
}

namespace {

/** The answer's "error" object; nullopt when it has none. */
std::optional<json::object> error_object(HttpResponse const& r) {
    auto o = json_object_of(r);
    auto* e = o ? o->if_contains("error") : nullptr;
    if (!e || !e->is_object())
        return std::nullopt;
    return std::move(e->as_object());
}

} // namespace

std::string error_reason(HttpResponse const& r) {
    auto const e = error_object(r);
    if (!e)
        return {};
    auto const& error = *e;
    if (auto const* errors = error.if_contains("errors"); errors && errors->is_array()) {
        auto const& list = errors->get_array();
        if (!list.empty() && list.front().is_object())
            return text_or_empty(list.front().get_object(), "reason");
    }
    return text_or_empty(error, "code");
}

std::string error_message(HttpResponse const& r) {
    auto const e = error_object(r);
    return e ? loggable(text_or_empty(*e, "message"), 200) : std::string();
}

Error api_refusal(
    std::string_view target,
    std::string_view method,
    std::string_view url,
    HttpResponse const& r,
    bool slow_down
) {
    auto said = error_message(r);
    auto const reason = error_reason(r);
    if (!reason.empty())
        said = reason + (said.empty() ? "" : ": " + said);
    std::string const head = std::string(target) + ": " + std::to_string(r.status) + " from " +
                             std::string(method) + " " + redact_url(url) +
                             (said.empty() ? "" : " (" + said + ")") + ": ";
    // Google says "slow down" with a 403 too: throttling after the backoff's tries, not a missing right.
    bool const throttled =
        r.status == 429 || slow_down ||
        (r.status == 403 && (reason == "rateLimitExceeded" || reason == "userRateLimitExceeded"));
    if (throttled)
        return fail(
            errc::upstream_rate_limited,
            head + "the service is throttling the account's requests (over its request rate or quota) and "
                   "still was "
                   "after backing off; icsbridge backs off and tries again next period (lower the target's "
                   "rate if "
                   "this persists)"
        );
    switch (r.status) {
    case 401:
        return fail(
            errc::upstream_auth,
            head + "the access token was refused, a freshly refreshed one too; reconnect the account with "
                   "icsbridge connect"
        );
    case 403:
        return fail(
            errc::upstream_auth,
            head +
                "the account may not do this: check that the calendar is one icsbridge may write (a calendar "
                "it created, or calendar_id with the events scope granted)"
        );
    case 404:
        return fail(
            errc::upstream_not_found,
            head + "no such calendar or event; check the target's calendar"
        );
    default:
        break;
    }
    if (r.status >= 500)
        return fail(errc::upstream_status, head + "the service failed; trying again next period");
    return fail(errc::upstream_status, head + "the service would not take it");
}

} // namespace icsbridge::push
