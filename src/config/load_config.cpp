// File: load_config.cpp
// TOML -> Config: every key is checked, and every mistake is reported as `FILE:LINE:COL: what is wrong`
// at the offending key or value. Secrets are resolved here (inline, from the environment or a file) and never
// echoed; one this environment lacks is noted for the commands that need it (secrets.cpp).
#include "config/reader.hpp"
#include <icsbridge/config.hpp>

#include <boost/url/parse.hpp>

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>
#include <tuple>

namespace icsbridge {

FeedConfig const* Config::find_feed(std::string_view name) const {
    for (auto const& f : feeds)
        if (f.name == name)
            return &f;
    return nullptr;
}

SourceConfig const* Config::find_source(std::string_view name) const {
    auto it = sources.find(std::string(name));
    return it == sources.end() ? nullptr : &it->second;
}

EnvLookup process_env() {
    return [](std::string const& name) -> std::optional<std::string> {
        if (char const* v = std::getenv(name.c_str()))
            return std::string(v);
        return std::nullopt;
    };
}

std::string feed_url(Config const& cfg, FeedConfig const& feed) {
    return cfg.server.public_url + "/feeds/" + feed.name + ".ics";
}

namespace config_detail {

void Reader::read(toml::table const& root, Config& cfg) {
    if (!check_keys(
            root,
            "the top level",
            {"server", "storage", "dav", "cluster", "sources", "targets", "connect", "feeds"}
        ))
        return;
    for (std::string_view key :
         {"server", "storage", "dav", "cluster", "sources", "targets", "connect", "feeds"})
        if (auto const* n = root.get(key); n && !n->is_table()) {
            fail_at(n->source(), std::string(key) + " must be a table ([" + std::string(key) + "])");
            return;
        }

    if (auto const* t = root.get_as<toml::table>("server"))
        read_server(*t, cfg.server);
    else
        cfg.server.public_url = "http://" + cfg.server.host + ":" + std::to_string(cfg.server.port);
    if (failed())
        return;
    if (auto const* t = root.get_as<toml::table>("storage"))
        read_storage(*t, cfg.storage);
    if (failed())
        return;
    if (auto const* t = root.get_as<toml::table>("dav"))
        read_dav(*t, cfg.dav);
    if (failed())
        return;
    if (auto const* t = root.get_as<toml::table>("cluster")) {
        read_cluster(*t, cfg.cluster.emplace());
        if (failed())
            return;
    }

    if (auto const* sources = root.get_as<toml::table>("sources"))
        read_sources(*sources, cfg);
    if (failed())
        return;
    // Feeds name the targets they push to, so targets are read first, wherever they are written.
    if (auto const* targets = root.get_as<toml::table>("targets"))
        read_targets(*targets, cfg);
    if (failed())
        return;
    if (auto const* t = root.get_as<toml::table>("connect")) {
        read_connect(*t, cfg.connect.emplace());
        if (failed())
            return;
    }
    if (auto const* feeds = root.get_as<toml::table>("feeds"))
        read_feeds(*feeds, cfg);
}

void Reader::read_sources(toml::table const& sources, Config& cfg) {
    for (auto const& [k, v] : sources) {
        std::string const name(k.str());
        if (name.empty()) {
            fail_at(k.source(), "a source name must not be empty");
            return;
        }
        if (!v.is_table()) {
            fail_at(v.source(), "sources." + name + " must be a table ([sources." + name + "])");
            return;
        }
        SourceConfig src;
        src.name = name;
        read_source(name, *v.as_table(), src);
        if (failed())
            return;
        cfg.sources.emplace(name, std::move(src));
    }
}

void Reader::read_feeds(toml::table const& feeds, Config& cfg) {
    // The contract promises file order (the index page lists feeds that way).
    for (auto const& [k, v] : in_file_order(feeds)) {
        std::string const name(k->str());
        if (!valid_feed_name(name)) {
            fail_at(
                k->source(),
                "feed name '" + name +
                    "' may only contain letters, digits, '.', '_' and '-' (it becomes the URL path)"
            );
            return;
        }
        // The name becomes file names (NAME.snapshot and its temp file, under the usual 255 bytes).
        if (name.size() > max_feed_name_length) {
            fail_at(
                k->source(),
                "feed name '" + name.substr(0, 20) + "...' is " + std::to_string(name.size()) +
                    " characters long; the limit is " + std::to_string(max_feed_name_length)
            );
            return;
        }
        if (!v->is_table()) {
            fail_at(v->source(), "feeds." + name + " must be a table ([feeds." + name + "])");
            return;
        }
        FeedConfig feed;
        feed.name = name;
        read_feed(name, *v->as_table(), cfg, feed);
        if (failed())
            return;
        cfg.feeds.push_back(std::move(feed));
    }
    // A merge may name a feed written after it, so its parts are checked once every feed is read.
    check_merges(feeds, cfg);
}

void Reader::read_targets(toml::table const& targets, Config& cfg) {
    for (auto const& [k, v] : targets) {
        std::string const name(k.str());
        if (!valid_feed_name(name)) {
            fail_at(
                k.source(),
                "target name '" + name + "' may only contain letters, digits, '.', '_' and '-'"
            );
            return;
        }
        if (!v.is_table()) {
            fail_at(v.source(), "targets." + name + " must be a table ([targets." + name + "])");
            return;
        }
        TargetConfig target;
        target.name = name;
        read_target(name, *v.as_table(), target);
        if (failed())
            return;
        cfg.targets.emplace(name, std::move(target));
    }
    check_shared_calendars(targets, cfg);
}

void Reader::read_server(toml::table const& t, ServerConfig& s) {
    if (!check_keys(
            t,
            "[server]",
            {"listen",
             "public_url",
             "threads",
             "gzip",
             "max_connections",
             "max_connections_per_client",
             "trusted_proxies",
             "request_timeout",
             "idle_timeout",
             "admin_token",
             "admin_token_env"}
        ))
        return;
    read_address(t, s);
    if (failed())
        return;
    if (auto v = integer(t, "threads", 1, 1024))
        s.threads = static_cast<int>(*v);
    if (auto v = boolean(t, "gzip"))
        s.gzip = *v;
    if (auto v = integer(t, "max_connections", 1, 1000000))
        s.max_connections = static_cast<std::size_t>(*v);
    read_client_limits(t, s);
    if (auto v = duration(t, "request_timeout"))
        s.request_timeout = *v;
    if (auto v = duration(t, "idle_timeout"))
        s.idle_timeout = *v;
    // Optional: without it /healthz and /metrics show public feeds only.
    if (t.contains("admin_token") || t.contains("admin_token_env")) {
        if (auto sec = secret(t, "admin_token", "[server]")) {
            if (sec->empty())
                fail_at(key_pos(t, "admin_token"), "admin_token in [server] is empty");
            else
                s.admin_token = std::move(*sec);
        }
    }
}

// listen, and public_url (by default the listen address's).
void Reader::read_address(toml::table const& t, ServerConfig& s) {
    if (auto listen = str(t, "listen")) {
        auto hp = parse_listen(*listen);
        if (!hp) {
            fail_at(
                t.get("listen")->source(),
                "listen = \"" + *listen + "\" is not host:port (e.g. \"127.0.0.1:8080\", \"[::1]:8080\")"
            );
            return;
        }
        s.host = hp->first;
        s.port = hp->second;
    }
    if (failed())
        return;
    if (auto url = str(t, "public_url")) {
        auto checked = check_http_url(*url);
        if (!checked) {
            fail_at(t.get("public_url")->source(), "public_url " + checked.error().message);
            return;
        }
        s.public_url = *checked;
    } else if (!failed()) {
        bool const v6 = s.host.find(':') != std::string::npos;
        s.public_url = "http://" + (v6 ? "[" + s.host + "]" : s.host) + ":" + std::to_string(s.port);
    }
}

void Reader::read_client_limits(toml::table const& t, ServerConfig& s) {
    if (auto v = integer(t, "max_connections_per_client", 0, 1000000))
        s.max_connections_per_client = static_cast<std::size_t>(*v);
    auto const* list = typed(t, "trusted_proxies", toml::node_type::array);
    if (!list)
        return;
    for (auto const& v : *list->as_array()) {
        std::string const text = v.is_string() ? v.as_string()->get() : std::string();
        if (!valid_address_or_network(text)) {
            fail_at(
                v.source(),
                "trusted_proxies must list IP addresses or networks (\"127.0.0.1\", \"10.0.0.0/8\", "
                "\"::1\"), "
                "not " +
                    (v.is_string() ? "\"" + text + "\"" : std::string(type_name(v.type())))
            );
            return;
        }
        s.trusted_proxies.push_back(text);
    }
}

void Reader::read_storage(toml::table const& t, StorageConfig& s) {
    if (!check_keys(t, "[storage]", {"dir"}))
        return;
    if (auto dir = str(t, "dir"))
        s.dir = *dir;
}

void Reader::read_dav(toml::table const& t, DavConfig& d) {
    if (!check_keys(t, "[dav]", {"enabled", "history", "push", "push_subject", "push_allow_private"}))
        return;
    if (auto on = boolean(t, "enabled"))
        d.enabled = *on;
    if (auto h = duration(t, "history"))
        d.history = *h;
    if (auto on = boolean(t, "push"))
        d.push = *on;
    if (auto on = boolean(t, "push_allow_private"))
        d.push_allow_private = *on;
    if (auto sub = str(t, "push_subject")) {
        // RFC 8292 §2.1: a push service may contact the operator through it, so it must be a way to.
        if (!sub->starts_with("mailto:") && !sub->starts_with("https://")) {
            fail_at(
                t.get("push_subject")->source(),
                "push_subject = \"" + *sub + "\" is not a mailto: or https:// URI"
            );
            return;
        }
        d.push_subject = *sub;
    }
}

} // namespace config_detail

using config_detail::Reader;

Result<Config> parse_config(std::string_view text, std::string const& path, EnvLookup const& env) {
    toml::table root;
    try {
        root = toml::parse(text, path);
    } catch (toml::parse_error const& e) {
        Reader r(path, env);
        r.fail_at(e.source(), std::string(e.description()));
        return *r.error();
    }
    Config cfg;
    cfg.path = path;
    Reader r(path, env);
    r.read(root, cfg);
    if (r.error())
        return *r.error();
    cfg.missing_secrets = r.take_missing();
    cfg.secrets_in_file =
        r.inline_secret() ||
        std::any_of(cfg.feeds.begin(), cfg.feeds.end(), [](FeedConfig const& f) { return !f.is_public(); });
    return cfg;
}

Result<Config> load_config(std::string const& path, EnvLookup const& env) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return fail(
            errc::config_invalid,
            path + ":1:1: cannot read the config file: " + std::strerror(errno)
        );
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_config(ss.str(), path, env);
}

} // namespace icsbridge
