// File: warnings.cpp
// config_warnings(): risky but valid settings, reported by `check` and `serve` without failing them.
#include <icsbridge/config.hpp>

#include <boost/url/parse.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace icsbridge {

namespace {

/** @brief True for localhost, 127.0.0.0/8 and ::1: traffic that never leaves the machine. */
bool is_loopback(boost::urls::url_view u) {
    switch (u.host_type()) {
    case boost::urls::host_type::ipv4:
        return u.host_ipv4_address().to_bytes()[0] == 127;
    case boost::urls::host_type::ipv6:
        return u.host_ipv6_address().is_loopback();
    default: {
        std::string host = u.host();
        for (char& c : host)
            c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        return host == "localhost" || host.ends_with(".localhost");
    }
    }
}

/** The host of a plain http:// URL to another machine; empty for https://, loopback or an unparsable URL. */
std::string plain_http_host(std::string const& url) {
    auto u = boost::urls::parse_uri(url);
    if (!u || u->scheme_id() != boost::urls::scheme::http || is_loopback(*u))
        return {};
    return u->host();
}

/** An OAuth endpoint of `table` that is plain http:// to another machine: what crosses it in the clear. */
void plain_http_warning(
    std::string const& table,
    std::string_view key,
    std::string const& url,
    std::string_view what,
    std::vector<std::string>& out
) {
    auto const host = plain_http_host(url);
    if (host.empty())
        return;
    out.push_back(
        table + " " + std::string(key) + " is plain http:// to " + host + ": " + std::string(what) +
        " cross the network unencrypted; use https://"
    );
}

void oauth_endpoint_warnings(std::string const& table, TargetConfig const& t, std::vector<std::string>& out) {
    plain_http_warning(table, "token_url", t.token_url, "the refresh token and client secret", out);
    plain_http_warning(table, "api_base", t.api_base, "the access tokens and the calendar's events", out);
    if (!t.revoke_url.empty())
        plain_http_warning(table, "revoke_url", t.revoke_url, "the refresh tokens", out);
}

void oauth_warnings(Config const& cfg, std::vector<std::string>& out) {
    for (auto const& [name, t] : cfg.targets)
        if (t.type != TargetType::caldav)
            oauth_endpoint_warnings("[targets." + name + "]", t, out);
}

/**
 * [connect]: its endpoints as a target's, and public_url, which the sign-in redirect URI is built on: Google
 * and Microsoft accept a plain http:// one for localhost only, and a loopback one reaches no subscriber.
 */
void connect_warnings(Config const& cfg, std::vector<std::string>& out) {
    if (!cfg.connect)
        return;
    for (auto const* provider : {&cfg.connect->google, &cfg.connect->microsoft})
        if (*provider)
            oauth_endpoint_warnings("[connect." + (*provider)->name + "]", **provider, out);
    auto u = boost::urls::parse_uri(cfg.server.public_url);
    if (!u || (u->scheme_id() == boost::urls::scheme::https && !is_loopback(*u)))
        return;
    std::string const redirect = cfg.server.public_url + "/connect/callback";
    out.push_back(
        is_loopback(*u)
            ? "[connect]: [server] public_url " + cfg.server.public_url +
                  " is this machine: subscribers' browsers are sent back to " + redirect +
                  ", which only reaches their own computer; set public_url to the server's public https:// "
                  "address"
            : "[connect]: [server] public_url is plain http://: Google and Microsoft refuse the sign-in "
              "redirect " +
                  redirect +
                  " (plain http:// is allowed for localhost only); serve icsbridge behind TLS and set "
                  "public_url to its https:// address"
    );
}

void unused_target_warnings(Config const& cfg, std::vector<std::string>& out) {
    for (auto const& [target, t] : cfg.targets) {
        auto const& name = target; // a lambda may not capture a structured binding (clang 14)
        bool const used = std::any_of(cfg.feeds.begin(), cfg.feeds.end(), [&](FeedConfig const& f) {
            return std::any_of(f.push.begin(), f.push.end(), [&](PushTo const& to) {
                return to.target == name;
            });
        });
        if (!used)
            out.push_back(
                cfg.path + ":" + std::to_string(t.line) + ": [targets." + name +
                "]: no feed pushes into it (push = [\"" + name +
                "\"] in a feed); push and serve leave its calendar alone"
            );
    }
}

} // namespace

std::vector<std::string> config_warnings(Config const& cfg) {
    std::vector<std::string> out;
    struct stat st {};
    if (cfg.secrets_in_file && ::stat(cfg.path.c_str(), &st) == 0 && (st.st_mode & 0044) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        out.push_back(
            cfg.path + " holds secrets (tokens or keys) and is readable by " +
            ((st.st_mode & 0004) ? "everyone" : "its group") + " (mode " + mode + "): chmod 600 " + cfg.path +
            ", or move the secrets to the environment (*_env keys)"
        );
    }
    for (auto const& [name, src] : cfg.sources) {
        auto u = boost::urls::parse_uri(src.base_url);
        if (!u || u->scheme_id() != boost::urls::scheme::http || is_loopback(*u))
            continue;
        out.push_back(
            "[sources." + name + "] base_url is plain http:// to " + std::string(u->host()) + ": its " +
            (src.type == SourceType::jobs ? "api_key" : "token") +
            " crosses the network unencrypted; use https://"
        );
    }
    oauth_warnings(cfg, out);
    connect_warnings(cfg, out);
    unused_target_warnings(cfg, out);
    return out;
}

} // namespace icsbridge
