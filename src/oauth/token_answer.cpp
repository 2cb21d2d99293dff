// File: token_answer.cpp
// Form bodies and token answers (Boost.JSON), with the error mapping of RFC 6749 §5.2 to our errc.
#include "oauth/token_answer.hpp"

#include "util/json_fields.hpp"
#include <icsbridge/digest.hpp>
#include <icsbridge/log.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <cctype>
#include <limits>
#include <system_error>

namespace icsbridge::oauth {

namespace json = boost::json;

std::string form_encode(std::vector<std::pair<std::string, std::string>> const& fields) {
    std::string out;
    auto add = [&](std::string const& s) {
        for (char ch : s) {
            auto const c = static_cast<unsigned char>(ch);
            if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
                out += ch;
                continue;
            }
            // Upper-case digits, as RFC 3986 2.1 asks of producers.
            out += '%';
            for (char d : to_hex({&c, 1}))
                out += static_cast<char>(std::toupper(static_cast<unsigned char>(d)));
        }
    };
    for (auto const& [k, v] : fields) {
        if (!out.empty())
            out += '&';
        add(k);
        out += '=';
        add(v);
    }
    return out;
}

std::string code_exchange_body(
    TargetConfig const& t, std::string_view code, std::string_view redirect_uri, std::string_view verifier
) {
    std::vector<std::pair<std::string, std::string>> f{
        {"grant_type", "authorization_code"},
        {"code", std::string(code)},
        {"redirect_uri", std::string(redirect_uri)},
        {"client_id", t.client_id},
    };
    if (!t.client_secret.empty())
        f.emplace_back("client_secret", t.client_secret);
    f.emplace_back("code_verifier", std::string(verifier));
    return form_encode(f);
}

std::string refresh_body(TargetConfig const& t, std::string_view refresh_token) {
    std::vector<std::pair<std::string, std::string>> f{
        {"grant_type", "refresh_token"},
        {"refresh_token", std::string(refresh_token)},
        {"client_id", t.client_id},
    };
    if (!t.client_secret.empty())
        f.emplace_back("client_secret", t.client_secret);
    if (t.type == TargetType::microsoft)
        f.emplace_back("scope", scope_for(t));
    return form_encode(f);
}

namespace {

/** expires_in as a number or (some servers) a string of digits; nullopt when absent or not a count. */
std::optional<std::chrono::seconds> expires_in_of(json::object const& o) {
    auto const* v = o.if_contains("expires_in");
    if (!v)
        return std::nullopt;
    std::int64_t n = -1;
    if (v->is_int64())
        n = v->get_int64();
    else if (v->is_uint64() && v->get_uint64() < std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        n = static_cast<std::int64_t>(v->get_uint64());
    else if (v->is_double() && v->get_double() >= 0 && v->get_double() < 1e12)
        n = static_cast<std::int64_t>(v->get_double());
    else if (v->is_string()) {
        auto const& s = v->get_string();
        if (!s.empty() && s.size() < 12 &&
            std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
            n = std::stoll(std::string(s));
    }
    if (n < 0)
        return std::nullopt;
    return std::chrono::seconds(n);
}

Result<TokenAnswer> success(json::object const& o, TargetRef const& t) {
    auto const malformed = [&](std::string const& why) {
        return fail(errc::upstream_malformed, "target " + t.name + ": the token endpoint's answer " + why);
    };
    TokenAnswer a;
    a.access_token = text_or_empty(o, "access_token");
    if (a.access_token.empty())
        return malformed("has no access_token");
    if (auto type = text_or_empty(o, "token_type"); !type.empty()) {
        for (char& c : type)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (type != "bearer")
            return malformed("gives a token_type other than Bearer: " + loggable(type, 40));
    }
    if (o.contains("expires_in")) {
        auto const in = expires_in_of(o);
        if (!in)
            return malformed("has an expires_in that is not a number of seconds");
        a.expires_in = *in;
    }
    a.refresh_token = text_or_empty(o, "refresh_token");
    a.scope = text_or_empty(o, "scope");
    return a;
}

Error refusal(unsigned status, json::object const* o, Grant grant, TargetRef const& t) {
    std::string const code = o ? text_or_empty(*o, "error") : std::string();
    std::string const desc = o ? text_or_empty(*o, "error_description") : std::string();
    // The endpoint's words, fit for one line: an attacker-free server, but its text still reaches a terminal.
    std::string said = loggable(code.empty() ? "HTTP " + std::to_string(status) : code, 80);
    if (!desc.empty())
        said += ": " + loggable(desc, 300);
    std::string const who = "target " + t.name + ": the token endpoint ";
    if (code == "invalid_grant" && grant == Grant::refresh_token)
        return consent_ended(t);
    if (code == "invalid_grant")
        return fail(
            errc::upstream_auth,
            who + "refused the sign-in's code (" + said + "); run " + reconnect_command(t) + " again"
        );
    if (code == "invalid_client" || code == "unauthorized_client")
        return fail(
            errc::upstream_auth,
            who + "refused the client (" + said + "): check client_id and client_secret of [targets." +
                t.name + "]"
        );
    if (status == 429)
        return fail(errc::upstream_rate_limited, who + "asks to slow down (429)");
    return fail(errc::upstream_status, who + "answered " + std::to_string(status) + " (" + said + ")");
}

} // namespace

Result<TokenAnswer>
parse_token_answer(unsigned status, std::string_view body, Grant grant, TargetRef const& t) {
    std::error_code ec;
    json::value const v = json::parse(body, ec);
    json::object const* o = !ec && v.is_object() ? &v.get_object() : nullptr;
    if (status == 200) {
        if (!o)
            return fail(
                errc::upstream_malformed,
                "target " + t.name + ": the token endpoint's answer is not JSON"
            );
        return success(*o, t);
    }
    return refusal(status, o, grant, t);
}

} // namespace icsbridge::oauth
