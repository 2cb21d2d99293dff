// File: read_cluster.cpp
// [cluster]: the database URL (inline or from the environment, never echoed), the node name and the lease,
// each mistake reported at its FILE:LINE:COL; and the masked form of a database URL for anything shown.
#include "config/reader.hpp"
#include "util/libpq_loader.hpp"

#include <libpq-fe.h>
#include <unistd.h>

#include <memory>
#include <vector>

namespace icsbridge {

namespace {

/** The URL's passwords, as written (user info and `password=`): what must never reach a message. */
std::vector<std::string> passwords_of(std::string_view url) {
    std::vector<std::string> out;
    if (auto const scheme_end = url.find("://"); scheme_end != std::string_view::npos) {
        auto const rest = url.substr(scheme_end + 3);
        auto const authority = rest.substr(0, rest.find_first_of("/?"));
        // The last '@': a password with an unescaped '@' still ends at the host.
        if (auto const at = authority.rfind('@'); at != std::string_view::npos) {
            auto const userinfo = authority.substr(0, at);
            if (auto const colon = userinfo.find(':'); colon != std::string_view::npos && colon + 1 < at)
                out.emplace_back(userinfo.substr(colon + 1));
        }
    }
    for (auto p = url.find("password="); p != std::string_view::npos; p = url.find("password=", p + 9)) {
        auto const value = url.substr(p + 9, url.find('&', p) - (p + 9));
        if (!value.empty())
            out.emplace_back(value);
    }
    return out;
}

} // namespace

std::string mask_database_url(std::string_view url) {
    std::string out(url);
    auto const scheme_end = out.find("://");
    if (scheme_end != std::string::npos) {
        auto const host_start = scheme_end + 3;
        auto const authority_end = std::min(out.find_first_of("/?", host_start), out.size());
        auto const at = out.rfind('@', authority_end == out.size() ? std::string::npos : authority_end);
        if (at != std::string::npos && at > host_start) {
            auto const colon = out.find(':', host_start);
            if (colon != std::string::npos && colon < at)
                out.replace(colon + 1, at - colon - 1, "***");
        }
    }
    // libpq also takes the password as a query parameter.
    for (auto q = out.find('?'); q != std::string::npos && q < out.size();) {
        auto const start = q + 1;
        auto const end = std::min(out.find('&', start), out.size());
        if (out.compare(start, 9, "password=") == 0 && end > start + 9)
            out.replace(start + 9, end - start - 9, "***");
        q = out.find('&', start);
    }
    return out;
}

std::string scrub_database_password(std::string text, std::string_view url) {
    for (auto const& pw : passwords_of(url))
        for (auto p = text.find(pw); p != std::string::npos; p = text.find(pw, p + 3))
            text.replace(p, pw.size(), "***");
    return text;
}

std::string cluster_node(ClusterConfig const& c) {
    if (!c.node.empty())
        return c.node;
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
        std::snprintf(host, sizeof host, "localhost");
    return std::string(host) + "-" + std::to_string(::getpid());
}

namespace config_detail {

void Reader::read_cluster(toml::table const& t, ClusterConfig& c) {
    if (!check_keys(t, "[cluster]", {"database_url", "database_url_env", "node", "lease"}))
        return;
    bool const inline_before = inline_secret_;
    auto url = secret(t, "database_url", "[cluster]");
    if (failed())
        return;
    if (url && !read_database_url(t, std::move(*url), c, inline_before))
        return;
    read_cluster_node(t, c);
}

bool Reader::read_database_url(toml::table const& t, std::string url, ClusterConfig& c, bool inline_before) {
    auto const& where = key_pos(t, t.contains("database_url") ? "database_url" : "database_url_env");
    if (!url.starts_with("postgresql://") && !url.starts_with("postgres://"))
        return fail_at(where, "database_url must be a libpq URI such as postgresql://USER@HOST/DATABASE");
    // Let libpq itself judge the URI, so `check` catches what a start would; its message may quote any part
    // of the URI, so the password is masked in it.
    if (auto lib = libpq_loaded(); !lib)
        return fail_at(where, lib.error().message);
    char* err = nullptr;
    std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> parsed(
        PQconninfoParse(url.c_str(), &err),
        &PQconninfoFree
    );
    std::unique_ptr<char, decltype(&PQfreemem)> err_owner(err, &PQfreemem);
    if (!parsed) {
        std::string why = err ? err : "libpq cannot parse it";
        while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
            why.pop_back();
        return fail_at(where, "database_url is not a valid libpq URI: " + scrub_database_password(why, url));
    }
    // A URL without a password (peer auth, .pgpass) is no secret in the file.
    if (passwords_of(url).empty())
        inline_secret_ = inline_before;
    c.database_url = std::move(url);
    return true;
}

void Reader::read_cluster_node(toml::table const& t, ClusterConfig& c) {
    if (auto node = str(t, "node")) {
        // The feed-name alphabet: it shows in log lines, /healthz and the lease rows as it is.
        if (node->size() > 63 || !config_detail::valid_feed_name(*node)) {
            fail_at(
                t.get("node")->source(),
                "node = \"" + *node + "\" may only hold 1 to 63 letters, digits, '.', '_' and '-'"
            );
            return;
        }
        c.node = std::move(*node);
    }
    if (auto lease = duration(t, "lease")) {
        // Renewed at a third of it: shorter, and one slow database answer would hand the feed to another
        // replica in the middle of a refresh.
        if (*lease < std::chrono::seconds(2)) {
            fail_at(t.get("lease")->source(), "lease must be at least \"2s\"");
            return;
        }
        c.lease = *lease;
    }
}

} // namespace config_detail

} // namespace icsbridge
