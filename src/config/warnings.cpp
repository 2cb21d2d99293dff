// File: warnings.cpp
// config_warnings(): risky but valid settings, reported by `check` and `serve` without failing them.
#include <icsbridge/config.hpp>

#include <boost/url/parse.hpp>

#include <sys/stat.h>

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

/** A target's endpoint that is plain http:// to another machine: what crosses it in the clear. */
void plain_http_warning(
    std::string const& target,
    std::string_view key,
    std::string const& url,
    std::string_view what,
    std::vector<std::string>& out
) {
    auto u = boost::urls::parse_uri(url);
    if (!u || u->scheme_id() != boost::urls::scheme::http || is_loopback(*u))
        return;
    out.push_back(
        "[targets." + target + "] " + std::string(key) + " is plain http:// to " + std::string(u->host()) +
        ": " + std::string(what) + " cross the network unencrypted; use https://"
    );
}

void oauth_warnings(Config const& cfg, std::vector<std::string>& out) {
    for (auto const& [name, t] : cfg.targets) {
        if (t.type == TargetType::caldav)
            continue;
        plain_http_warning(name, "token_url", t.token_url, "the refresh token and client secret", out);
        plain_http_warning(name, "api_base", t.api_base, "the access tokens and the calendar's events", out);
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
    return out;
}

} // namespace icsbridge
