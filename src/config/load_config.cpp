// File: load_config.cpp
// TOML -> Config: every key is checked, and every mistake is reported as `FILE:LINE:COL: what is wrong`
// at the offending key or value. Secrets are resolved here (inline or from the environment) and never echoed.
#include "config/suggest.hpp"
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

namespace {

using Keys = std::initializer_list<std::string_view>;

// "0s", "0m", "0h0m": a well-formed duration of zero length, which only some keys (keep_past) accept.
bool is_zero_duration(std::string_view text) {
    if (text.find_first_of("123456789") != std::string_view::npos)
        return false;
    // Same syntax as any duration: every run of zeros read as a one must parse.
    std::string ones(text);
    std::replace(ones.begin(), ones.end(), '0', '1');
    return parse_duration(ones).has_value();
}

std::string_view type_name(toml::node_type t) {
    switch (t) {
    case toml::node_type::table:
        return "a table";
    case toml::node_type::array:
        return "an array";
    case toml::node_type::string:
        return "a string";
    case toml::node_type::integer:
        return "an integer";
    case toml::node_type::floating_point:
        return "a floating-point number";
    case toml::node_type::boolean:
        return "a boolean";
    case toml::node_type::date:
        return "a date";
    case toml::node_type::time:
        return "a time";
    case toml::node_type::date_time:
        return "a date-time";
    default:
        return "nothing";
    }
}

std::string join(std::vector<std::string_view> const& names) {
    std::string out;
    for (auto n : names) {
        if (!out.empty())
            out += ", ";
        out += n;
    }
    return out;
}

bool valid_feed_name(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '_' || c == '-';
    });
}

/** Parses "host:port" ("[::1]:8080" for IPv6); the host is returned without brackets. */
std::optional<std::pair<std::string, std::uint16_t>> parse_listen(std::string_view s) {
    auto const colon = s.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == s.size())
        return std::nullopt;
    std::string_view host = s.substr(0, colon);
    std::string_view const port = s.substr(colon + 1);
    if (host.front() == '[') {
        if (host.size() < 3 || host.back() != ']')
            return std::nullopt;
        host = host.substr(1, host.size() - 2);
    } else if (host.find(':') != std::string_view::npos) {
        return std::nullopt; // an IPv6 address needs brackets
    }
    bool const host_ok = std::all_of(host.begin(), host.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '-' || c == ':' || c == '_';
    });
    if (!host_ok || port.size() > 5)
        return std::nullopt;
    unsigned value = 0;
    for (char c : port) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value > 65535)
        return std::nullopt;
    return std::make_pair(std::string(host), static_cast<std::uint16_t>(value));
}

/** Checks an http(s) base URL; returns it without a trailing slash, or an explanation. */
Result<std::string> check_http_url(std::string_view text) {
    auto u = boost::urls::parse_absolute_uri(text);
    if (!u)
        return fail(errc::config_invalid, "must be an absolute URL starting with http:// or https://");
    if (u->scheme_id() != boost::urls::scheme::http && u->scheme_id() != boost::urls::scheme::https)
        return fail(errc::config_invalid, "must start with http:// or https://");
    if (u->encoded_host().empty())
        return fail(errc::config_invalid, "has no host");
    if (u->has_query() || u->has_fragment())
        return fail(errc::config_invalid, "must not have a query or fragment");
    if (u->has_userinfo())
        return fail(errc::config_invalid, "must not carry a user name or password");
    std::string out(text);
    while (!out.empty() && out.back() == '/')
        out.pop_back();
    return out;
}

/** The entries of a table in the order they were written (toml++ keeps its keys sorted). */
std::vector<std::pair<toml::key const*, toml::node const*>> in_file_order(toml::table const& t) {
    std::vector<std::pair<toml::key const*, toml::node const*>> out;
    for (auto const& [k, v] : t)
        out.emplace_back(&k, &v);
    std::sort(out.begin(), out.end(), [](auto const& a, auto const& b) {
        auto const& pa = a.first->source().begin;
        auto const& pb = b.first->source().begin;
        return std::tie(pa.line, pa.column) < std::tie(pb.line, pb.column);
    });
    return out;
}

/** Reads one config document, remembering only the first mistake (that is what the user fixes first). */
class Reader {
  public:
    Reader(std::string path, EnvLookup const& env)
        : path_(std::move(path))
        , env_(env) {}

    std::optional<Error> const& error() const { return error_; }
    bool failed() const { return error_.has_value(); }
    /** @brief True once a secret was read from the file itself rather than the environment. */
    bool inline_secret() const { return inline_secret_; }

    bool fail_at(toml::source_region const& where, std::string const& msg) {
        if (!error_) {
            auto const line = where.begin.line ? where.begin.line : 1;
            auto const col = where.begin.column ? where.begin.column : 1;
            error_ = Error{
                errc::config_invalid,
                path_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg};
        }
        return false;
    }

    void read(toml::table const& root, Config& cfg);

  private:
    /** Where a key of `t` was written (its key, not its value); the table's own position if absent. */
    static toml::source_region const& key_pos(toml::table const& t, std::string_view key) {
        auto it = t.find(key);
        return it == t.end() ? t.source() : it->first.source();
    }

    bool check_keys(toml::table const& t, std::string const& where, Keys allowed, Keys elsewhere = {}) {
        std::vector<std::string_view> const names(allowed);
        for (auto const& [k, v] : t) {
            std::string_view const key = k.str();
            if (std::find(names.begin(), names.end(), key) != names.end())
                continue;
            if (std::find(elsewhere.begin(), elsewhere.end(), key) != elsewhere.end())
                return fail_at(k.source(), "'" + std::string(key) + "' is not valid in " + where + note_);
            std::string msg = "unknown key '" + std::string(key) + "' in " + where;
            if (auto best = closest_match(key, names); !best.empty())
                msg += "; did you mean '" + best + "'?";
            else
                msg += " (valid keys: " + join(names) + ")";
            return fail_at(k.source(), msg);
        }
        return true;
    }

    toml::node const* typed(toml::table const& t, std::string_view key, toml::node_type want) {
        toml::node const* n = t.get(key);
        if (!n)
            return nullptr;
        if (n->type() != want) {
            fail_at(
                n->source(),
                std::string(key) + " must be " + std::string(type_name(want)) + ", not " +
                    std::string(type_name(n->type()))
            );
            return nullptr;
        }
        return n;
    }

    std::optional<std::string> str(toml::table const& t, std::string_view key, bool allow_empty = false) {
        auto const* n = typed(t, key, toml::node_type::string);
        if (!n)
            return std::nullopt;
        std::string v = n->as_string()->get();
        if (v.empty() && !allow_empty) {
            fail_at(n->source(), std::string(key) + " must not be empty");
            return std::nullopt;
        }
        return v;
    }

    std::optional<bool> boolean(toml::table const& t, std::string_view key) {
        auto const* n = typed(t, key, toml::node_type::boolean);
        return n ? std::optional<bool>(n->as_boolean()->get()) : std::nullopt;
    }

    std::optional<std::int64_t>
    integer(toml::table const& t, std::string_view key, std::int64_t lo, std::int64_t hi) {
        auto const* n = typed(t, key, toml::node_type::integer);
        if (!n)
            return std::nullopt;
        std::int64_t const v = n->as_integer()->get();
        if (v < lo || v > hi) {
            fail_at(
                n->source(),
                std::string(key) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                    ", not " + std::to_string(v)
            );
            return std::nullopt;
        }
        return v;
    }

    std::optional<std::chrono::seconds>
    duration(toml::table const& t, std::string_view key, bool allow_zero = false) {
        toml::node const* n = t.get(key);
        if (!n)
            return std::nullopt;
        if (!n->is_string()) {
            fail_at(
                n->source(),
                std::string(key) +
                    " must be a duration string such as \"90s\", \"15m\", \"6h\" or \"30d\", not " +
                    std::string(type_name(n->type()))
            );
            return std::nullopt;
        }
        std::string const& text = n->as_string()->get();
        auto d = parse_duration(text);
        if (!d && allow_zero && is_zero_duration(text))
            return std::chrono::seconds(0);
        if (!d)
            fail_at(
                n->source(),
                std::string(key) + " = \"" + text +
                    "\" is not a duration: use a positive number and a unit (s, m, h, d), e.g. \"15m\" or "
                    "\"1h30m\""
            );
        return d;
    }

    template <class Enum>
    std::optional<Enum> choice(
        toml::table const& t,
        std::string_view key,
        std::initializer_list<std::pair<std::string_view, Enum>> options
    ) {
        auto const* n = typed(t, key, toml::node_type::string);
        if (!n)
            return std::nullopt;
        std::string const& v = n->as_string()->get();
        std::vector<std::string_view> names;
        for (auto const& [name, value] : options) {
            if (name == v)
                return value;
            names.push_back(name);
        }
        fail_at(n->source(), std::string(key) + " = \"" + v + "\" is not one of: " + join(names));
        return std::nullopt;
    }

    /** A secret given inline (`key`) or through an environment variable (`key_env`): exactly one of them. */
    std::optional<std::string>
    secret(toml::table const& t, std::string const& key, std::string const& where) {
        std::string const env_key = key + "_env";
        bool const inline_given = t.contains(key);
        bool const env_given = t.contains(env_key);
        if (inline_given && env_given) {
            fail_at(
                key_pos(t, env_key),
                "give either " + key + " or " + env_key + " in " + where + ", not both"
            );
            return std::nullopt;
        }
        if (!inline_given && !env_given) {
            fail_at(t.source(), where + " needs " + key + " or " + env_key);
            return std::nullopt;
        }
        if (inline_given) {
            inline_secret_ = true;
            // Never echo the value: a type or emptiness complaint is all the user needs.
            return str(t, key);
        }
        auto var = str(t, env_key);
        if (!var)
            return std::nullopt;
        auto value = env_(*var);
        if (!value || value->empty()) {
            fail_at(
                t.get(env_key)->source(),
                "environment variable " + *var + " (" + env_key + " of " + where + ") is " +
                    (value ? "empty" : "not set")
            );
            return std::nullopt;
        }
        return value;
    }

    void read_server(toml::table const& t, ServerConfig& s);
    void read_storage(toml::table const& t, StorageConfig& s);
    void read_source(std::string const& name, toml::table const& t, SourceConfig& s);
    void read_feed(std::string const& name, toml::table const& t, Config const& cfg, FeedConfig& f);
    void read_params(toml::table const& t, FeedConfig& f);
    void read_filter(toml::node const& n, std::string const& where, FeedFilter& out);
    void read_tokens(toml::table const& t, std::string const& where, FeedConfig& f);

    std::string path_;
    EnvLookup const& env_;
    std::optional<Error> error_;
    bool inline_secret_ = false;
    std::string note_; ///< appended to "not valid in" messages: why a key belongs elsewhere
};

void Reader::read(toml::table const& root, Config& cfg) {
    if (!check_keys(root, "the top level", {"server", "storage", "sources", "feeds"}))
        return;
    for (std::string_view key : {"server", "storage", "sources", "feeds"})
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

    if (auto const* sources = root.get_as<toml::table>("sources")) {
        for (auto const& [k, v] : *sources) {
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

    if (auto const* feeds = root.get_as<toml::table>("feeds")) {
        // The contract promises file order (the index page lists feeds that way).
        for (auto const& [k, v] : in_file_order(*feeds)) {
            std::string const name(k->str());
            if (!valid_feed_name(name)) {
                fail_at(
                    k->source(),
                    "feed name '" + name +
                        "' may only contain letters, digits, '.', '_' and '-' (it becomes the URL path)"
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
    }
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
             "request_timeout",
             "idle_timeout",
             "admin_token",
             "admin_token_env"}
        ))
        return;
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
    if (auto v = integer(t, "threads", 1, 1024))
        s.threads = static_cast<int>(*v);
    if (auto v = boolean(t, "gzip"))
        s.gzip = *v;
    if (auto v = integer(t, "max_connections", 1, 1000000))
        s.max_connections = static_cast<std::size_t>(*v);
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

void Reader::read_storage(toml::table const& t, StorageConfig& s) {
    if (!check_keys(t, "[storage]", {"dir"}))
        return;
    if (auto dir = str(t, "dir"))
        s.dir = *dir;
}

void Reader::read_source(std::string const& name, toml::table const& t, SourceConfig& s) {
    std::string const where = "[sources." + name + "]";
    if (!t.contains("type")) {
        fail_at(t.source(), where + " needs type = \"events\" or \"jobs\"");
        return;
    }
    auto type = choice<SourceType>(t, "type", {{"events", SourceType::events}, {"jobs", SourceType::jobs}});
    if (!type)
        return;
    s.type = *type;
    bool const events = s.type == SourceType::events;
    note_ = events ? " (an events source takes token or token_env)"
                   : " (a jobs source takes api_key or api_key_env)";
    bool ok = events ? check_keys(
                           t,
                           where,
                           {"type",
                            "base_url",
                            "token",
                            "token_env",
                            "user_agent",
                            "timeout",
                            "max_concurrency",
                            "ca_file",
                            "budget"},
                           {"api_key", "api_key_env"}
                       )
                     : check_keys(
                           t,
                           where,
                           {"type",
                            "base_url",
                            "api_key",
                            "api_key_env",
                            "user_agent",
                            "timeout",
                            "max_concurrency",
                            "ca_file",
                            "budget"},
                           {"token", "token_env"}
                       );
    note_.clear();
    if (!ok)
        return;

    if (!t.contains("base_url")) {
        fail_at(
            t.source(),
            where + " needs base_url (e.g. \"https://" + std::string(events ? "events" : "jobs") +
                ".example.com\")"
        );
        return;
    }
    if (auto url = str(t, "base_url")) {
        auto checked = check_http_url(*url);
        if (!checked) {
            fail_at(t.get("base_url")->source(), "base_url " + checked.error().message);
            return;
        }
        s.base_url = *checked;
    }
    if (failed())
        return;
    if (auto sec = secret(t, events ? "token" : "api_key", where))
        s.secret = std::move(*sec);
    if (failed())
        return;
    if (auto ua = str(t, "user_agent"))
        s.user_agent = *ua;
    if (auto d = duration(t, "timeout"))
        s.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    if (auto c = integer(t, "max_concurrency", 1, 64))
        s.max_concurrency = static_cast<int>(*c);
    if (events)
        s.budget = default_events_budget;
    if (auto b = str(t, "budget")) {
        if (auto parsed = parse_budget(*b)) {
            s.budget = *parsed;
        } else {
            fail_at(
                t.get("budget")->source(),
                "budget = \"" + *b +
                    "\" is not a call budget: use calls/period, e.g. \"2000/h\" or \"100/15m\""
            );
            return;
        }
    }
    if (auto ca = str(t, "ca_file")) {
        std::ifstream in(*ca);
        if (!in) {
            fail_at(
                t.get("ca_file")->source(),
                "ca_file \"" + *ca + "\" cannot be read: " + std::strerror(errno)
            );
            return;
        }
        s.ca_file = *ca;
    }
}

void Reader::read_feed(std::string const& name, toml::table const& t, Config const& cfg, FeedConfig& f) {
    std::string const where = "[feeds." + name + "]";
    f.line = static_cast<int>(t.source().begin.line);
    f.title = name;

    // The source decides which keys make sense, so it is read first.
    if (!t.contains("source")) {
        fail_at(t.source(), where + " needs source = \"NAME\" (one of the [sources.NAME] tables)");
        return;
    }
    auto src_name = str(t, "source");
    if (!src_name)
        return;
    SourceConfig const* src = cfg.find_source(*src_name);
    if (!src) {
        std::vector<std::string_view> names;
        for (auto const& [n, s] : cfg.sources)
            names.push_back(n);
        std::string msg = "unknown source '" + *src_name + "' in " + where;
        if (names.empty())
            msg += " (no [sources.NAME] table is defined)";
        else if (auto best = closest_match(*src_name, names); !best.empty())
            msg += "; did you mean '" + best + "'?";
        else
            msg += " (defined: " + join(names) + ")";
        fail_at(t.get("source")->source(), msg);
        return;
    }
    f.source = *src_name;
    bool const events = src->type == SourceType::events;

    note_ = " (it applies only to feeds of " + std::string(events ? "a jobs" : "an events") + " source; '" +
            f.source + "' is " + (events ? "an events" : "a jobs") + " source)";
    bool const ok =
        events ? check_keys(
                     t,
                     where,
                     {"source",
                      "select",
                      "title",
                      "description",
                      "refresh",
                      "fetch_timeout",
                      "token",
                      "tokens",
                      "params",
                      "alarm",
                      "cancelled",
                      "ticket_classes",
                      "organization_id",
                      "window",
                      "keep_past",
                      "max_items",
                      "filter"},
                     {"due_after", "jobs_as"}
                 )
               : check_keys(
                     t,
                     where,
                     {"source",
                      "select",
                      "title",
                      "description",
                      "refresh",
                      "fetch_timeout",
                      "token",
                      "tokens",
                      "params",
                      "due_after",
                      "jobs_as",
                      "max_items",
                      "filter"},
                     {"alarm", "cancelled", "ticket_classes", "organization_id", "window", "keep_past"}
                 );
    note_.clear();
    if (!ok)
        return;

    std::vector<std::string_view> const selects =
        events ? std::vector<std::string_view>{"organizer", "organization", "search"}
               : std::vector<std::string_view>{"search", "recent"};
    if (!t.contains("select")) {
        fail_at(t.source(), where + " needs select = one of: " + join(selects));
        return;
    }
    auto select = str(t, "select");
    if (!select)
        return;
    if (std::find(selects.begin(), selects.end(), *select) == selects.end()) {
        fail_at(
            t.get("select")->source(),
            "select = \"" + *select + "\" does not fit " + std::string(events ? "events" : "jobs") +
                " source '" + f.source + "'; use one of: " + join(selects)
        );
        return;
    }
    f.select = *select;

    if (auto v = str(t, "title"))
        f.title = *v;
    if (auto v = str(t, "description", true))
        f.description = *v;
    if (auto v = duration(t, "refresh"))
        f.refresh = *v;
    if (auto v = integer(t, "max_items", 1, 10'000'000))
        f.max_items = static_cast<std::size_t>(*v);
    if (auto v = duration(t, "fetch_timeout"))
        f.fetch_timeout = *v;
    if (failed())
        return;

    if (events) {
        if (auto v = duration(t, "alarm"))
            f.alarm = *v;
        if (auto v = choice<CancelledPolicy>(
                t,
                "cancelled",
                {{"status", CancelledPolicy::status},
                 {"prefix", CancelledPolicy::prefix},
                 {"drop", CancelledPolicy::drop}}
            ))
            f.cancelled = *v;
        if (auto v = boolean(t, "ticket_classes"))
            f.ticket_classes = *v;
        if (failed())
            return;
        if (t.contains("organization_id")) {
            if (f.select != "organization") {
                fail_at(
                    key_pos(t, "organization_id"),
                    "organization_id applies only to select = \"organization\""
                );
                return;
            }
            // Ids are strings in the API but look like numbers; accept both spellings.
            auto const* n = t.get("organization_id");
            if (auto const* i = n->as_integer())
                f.organization_id = std::to_string(i->get());
            else if (auto v = str(t, "organization_id"))
                f.organization_id = *v;
            else
                return;
        }
        if (t.contains("keep_past")) {
            if (f.select == "search") {
                fail_at(
                    key_pos(t, "keep_past"),
                    "keep_past applies only to select = \"organizer\" or \"organization\" (a search keeps "
                    "its window)"
                );
                return;
            }
            if (auto v = duration(t, "keep_past", true))
                f.keep_past = *v;
        }
        if (t.contains("window")) {
            if (f.select != "search") {
                fail_at(key_pos(t, "window"), "window applies only to select = \"search\"");
                return;
            }
            if (auto v = duration(t, "window"))
                f.window = *v;
        }
    } else {
        if (auto v = duration(t, "due_after"))
            f.due_after = *v;
        if (auto v = choice<JobsAs>(
                t,
                "jobs_as",
                {{"vtodo", JobsAs::vtodo}, {"vevent", JobsAs::vevent}, {"both", JobsAs::both}}
            ))
            f.jobs_as = *v;
    }
    if (failed())
        return;

    if (auto const* n = t.get("params")) {
        if (!n->is_table()) {
            fail_at(n->source(), "params must be a table, e.g. params = { q = \"rust\" }");
            return;
        }
        read_params(*n->as_table(), f);
        if (failed())
            return;
    }
    if (auto const* n = t.get("filter")) {
        read_filter(*n, where + ".filter", f.filter);
        if (failed())
            return;
    }
    read_tokens(t, where, f);
}

void Reader::read_filter(toml::node const& n, std::string const& where, FeedFilter& out) {
    if (!n.is_table()) {
        fail_at(n.source(), "filter must be a table, e.g. filter = { keywords = [\"rust\"] }");
        return;
    }
    auto const& t = *n.as_table();
    if (!check_keys(t, where, {"categories", "keywords", "exclude_keywords", "online"}))
        return;
    for (auto [key, list] : {std::pair{"categories", &out.categories},
                             std::pair{"keywords", &out.keywords},
                             std::pair{"exclude_keywords", &out.exclude_keywords}}) {
        auto const* a = typed(t, key, toml::node_type::array);
        for (std::size_t i = 0; a && i < a->as_array()->size(); ++i) {
            auto const& v = *a->as_array()->get(i);
            if (!v.is_string() || v.as_string()->get().empty()) {
                fail_at(v.source(), std::string(key) + " must list non-empty strings");
                return;
            }
            list->push_back(v.as_string()->get());
        }
        if (failed())
            return;
    }
    if (auto v = boolean(t, "online"))
        out.online = *v;
}

void Reader::read_params(toml::table const& t, FeedConfig& f) {
    for (auto const& [k, v] : in_file_order(t)) {
        std::string const key(k->str());
        if (auto const* s = v->as_string()) {
            f.params.emplace_back(key, s->get());
        } else if (auto const* i = v->as_integer()) {
            f.params.emplace_back(key, std::to_string(i->get()));
        } else {
            std::string msg =
                "params." + key + " must be a string or an integer, not " + std::string(type_name(v->type()));
            if (v->is_table())
                msg += " (quote dotted names: \"" + key + ".…\" = \"…\")";
            fail_at(v->source(), msg);
            return;
        }
    }
}

void Reader::read_tokens(toml::table const& t, std::string const& where, FeedConfig& f) {
    if (t.contains("token") && t.contains("tokens")) {
        fail_at(key_pos(t, "tokens"), "give either token or tokens in " + where + ", not both");
        return;
    }
    if (auto v = str(t, "token"))
        f.token = *v;
    if (failed())
        return;
    auto const* n = t.get("tokens");
    if (!n)
        return;
    if (!n->is_table()) {
        fail_at(
            n->source(),
            "tokens must be a table of subscriber = \"secret\", e.g. tokens = { alice = \"...\" }"
        );
        return;
    }
    std::set<std::string> seen;
    for (auto const& [k, v] : *n->as_table()) {
        std::string const who(k.str());
        // Never echo a secret: name the subscriber only.
        if (!v.is_string()) {
            fail_at(
                v.source(),
                "tokens." + who + " must be a string, not " + std::string(type_name(v.type()))
            );
            return;
        }
        std::string const& secret = v.as_string()->get();
        if (secret.empty()) {
            fail_at(v.source(), "tokens." + who + " must not be empty");
            return;
        }
        if (!seen.insert(secret).second) {
            fail_at(v.source(), "tokens." + who + " repeats another subscriber's secret; each needs its own");
            return;
        }
        f.tokens.emplace(who, secret);
    }
    if (f.tokens.empty())
        fail_at(n->source(), "tokens must list at least one subscriber");
}

} // namespace

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
