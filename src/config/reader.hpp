// File: reader.hpp
// The config loader's insides, shared by its files: the TOML helpers that turn every mistake into
// `FILE:LINE:COL: what is wrong`, and the Reader that fills a Config (load_config.cpp: the document,
// [server], [storage]; read_source.cpp: [sources.NAME]; read_feed.cpp: [feeds.NAME]; read_merge.cpp: merged
// feeds; read_cluster.cpp: [cluster]; read_target.cpp: [targets.NAME], push; read_connect.cpp: [connect]).
// Private to src/config/.
#pragma once

#include "config/suggest.hpp"
#include <icsbridge/config.hpp>

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge::config_detail {

using Keys = std::initializer_list<std::string_view>;
using KeyList = std::vector<std::string_view>;

/**
 * The keys of every [targets.NAME], of CalDAV ones alone, of an OAuth client (Google and Microsoft targets,
 * and [connect.google] / [connect.microsoft]), and of Google and Microsoft targets alone.
 */
inline constexpr std::array<std::string_view, 6> target_keys{
    "type", "calendar", "rate", "ca_file", "max_concurrency", "max_response"};
inline constexpr std::array<std::string_view, 5> caldav_target_keys{
    "url", "username", "password", "password_env", "password_file"};
inline constexpr std::array<std::string_view, 7> oauth_client_keys{
    "client_id",
    "client_secret",
    "client_secret_env",
    "client_secret_file",
    "api_base",
    "auth_url",
    "token_url"};
inline constexpr std::array<std::string_view, 1> oauth_target_keys{"calendar_id"};

/** The keys of `parts`, in order, plus `more`. */
template <std::size_t... N>
KeyList key_list(Keys more, std::array<std::string_view, N> const&... parts) {
    KeyList out;
    out.reserve((N + ... + 0) + more.size());
    (out.insert(out.end(), parts.begin(), parts.end()), ...);
    out.insert(out.end(), more.begin(), more.end());
    return out;
}

/** "0s", "0m", "0h0m": a well-formed duration of zero length, which only some keys (keep_past) accept. */
bool is_zero_duration(std::string_view text);
/** "32MiB", "512KiB", "1GiB", "65536B" (binary units, a space before the unit allowed); nullopt if malformed.
 */
std::optional<std::size_t> parse_size(std::string_view text);
/** "a table", "a string", ... for messages. */
std::string_view type_name(toml::node_type t);
/** "a, b, c". */
std::string join(std::vector<std::string_view> const& names);
/** [A-Za-z0-9._-]+ */
bool valid_feed_name(std::string_view s);
/** Parses "host:port" ("[::1]:8080" for IPv6); the host is returned without brackets. */
std::optional<std::pair<std::string, std::uint16_t>> parse_listen(std::string_view s);
/** "127.0.0.1", "::1", "10.0.0.0/8", "fd00::/8": what [server] trusted_proxies takes. */
bool valid_address_or_network(std::string const& s);
/** An http(s) base URL without query, fragment or user info, trailing slashes removed; else what is wrong. */
Result<std::string> check_http_url(std::string_view text);
/** The entries of a table in the order they were written (toml++ keeps its keys sorted). */
std::vector<std::pair<toml::key const*, toml::node const*>> in_file_order(toml::table const& t);

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

    /** The secrets this environment lacks, each with the table that needs it (see Config::missing_secrets).
     */
    std::vector<MissingSecret> take_missing() { return std::move(missing_); }

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

    bool check_keys(
        toml::table const& t, std::string const& where, KeyList const& names, KeyList const& elsewhere = {}
    ) {
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

    /**
     * A secret this environment lacks: only the commands that use `where` fail over it (require_secrets()),
     * so it is noted, not failed at. nullopt, for the caller to go on without the value.
     */
    std::nullopt_t
    missing_at(toml::source_region const& at, std::string const& where, std::string const& msg) {
        auto const line = at.begin.line ? at.begin.line : 1;
        auto const col = at.begin.column ? at.begin.column : 1;
        missing_.push_back(
            {where, path_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg}
        );
        return std::nullopt;
    }

    /**
     * A secret given inline (`key`) or through an environment variable (`key_env`): exactly one of them.
     * An unset or empty variable is a missing secret of `owner` (by default `where`; missing_at()), not a
     * mistake in the file.
     */
    std::optional<std::string> secret(
        toml::table const& t, std::string const& key, std::string const& where, std::string const& owner = {}
    ) {
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
        if (!value || value->empty())
            return missing_at(
                t.get(env_key)->source(),
                owner.empty() ? where : owner,
                "environment variable " + *var + " (" + env_key + " of " + where + ") is " +
                    (value ? "empty" : "not set")
            );
        return value;
    }

    void read_sources(toml::table const& sources, Config& cfg);
    void read_feeds(toml::table const& feeds, Config& cfg);
    /** `ca_file`, when given: a readable file, else a mistake at its value. */
    std::optional<std::string> ca_file(toml::table const& t) {
        auto ca = str(t, "ca_file");
        if (!ca)
            return std::nullopt;
        if (std::FILE* f = std::fopen(ca->c_str(), "rb")) {
            std::fclose(f);
            return ca;
        }
        fail_at(
            t.get("ca_file")->source(),
            "ca_file \"" + *ca + "\" cannot be read: " + std::strerror(errno)
        );
        return std::nullopt;
    }

    void read_server(toml::table const& t, ServerConfig& s);
    void read_address(toml::table const& t, ServerConfig& s);
    /** max_connections_per_client and trusted_proxies (addresses or networks) of [server]. */
    void read_client_limits(toml::table const& t, ServerConfig& s);
    void read_storage(toml::table const& t, StorageConfig& s);
    void read_dav(toml::table const& t, DavConfig& d);
    void read_cluster(toml::table const& t, ClusterConfig& c);
    /** read_cluster's steps: the URL when this environment has it (false: a mistake), then node and lease. */
    bool read_database_url(toml::table const& t, std::string url, ClusterConfig& c, bool inline_before);
    void read_cluster_node(toml::table const& t, ClusterConfig& c);
    void read_source(std::string const& name, toml::table const& t, SourceConfig& s);
    void read_webhook_secret(toml::table const& t, std::string const& where, SourceConfig& s);
    /** The steps of read_source: the keys its type allows, base_url, budget, ca_file. */
    bool check_source_keys(toml::table const& t, std::string const& where, bool events);
    void read_base_url(toml::table const& t, std::string const& where, bool events, SourceConfig& s);
    bool read_budget(toml::table const& t, SourceConfig& s); ///< false: a budget that does not parse
    void read_ca_file(toml::table const& t, SourceConfig& s);
    void read_feed(std::string const& name, toml::table const& t, Config const& cfg, FeedConfig& f);
    // read_feed's steps, in order.
    SourceConfig const*
    read_feed_source(toml::table const& t, std::string const& where, Config const& cfg, FeedConfig& f);
    bool check_feed_keys(toml::table const& t, std::string const& where, bool events, FeedConfig const& f);
    bool read_select(toml::table const& t, std::string const& where, bool events, FeedConfig& f);
    void read_feed_common(toml::table const& t, FeedConfig& f);
    /** `timezone` of a fetched or merged feed: its form (an IANA name), and where it was written. */
    void read_timezone(toml::table const& t, FeedConfig& f);
    /** `color = "#RRGGBB"`, kept in upper case. */
    void read_color(toml::table const& t, FeedConfig& f);
    void read_events_feed(toml::table const& t, FeedConfig& f);
    void read_jobs_feed(toml::table const& t, FeedConfig& f);
    void read_feed_extras(toml::table const& t, std::string const& where, Config const& cfg, FeedConfig& f);
    void read_params(toml::table const& t, FeedConfig& f);
    void read_filter(toml::node const& n, std::string const& where, FeedFilter& out);
    void read_tokens(toml::table const& t, std::string const& where, FeedConfig& f);
    /** The keys a fetched and a merged feed share: filter, then token/tokens. */
    void read_filter_and_tokens(toml::table const& t, std::string const& where, FeedConfig& f);
    void read_merged_feed(std::string const& name, toml::table const& t, FeedConfig& f);
    // read_merged_feed's steps, in order.
    bool check_merged_feed_keys(toml::table const& t, std::string const& where);
    bool read_merge_parts(toml::table const& t, FeedConfig& f);
    void check_merges(toml::table const& feeds, Config& cfg);
    void read_targets(toml::table const& targets, Config& cfg);
    /** Two CalDAV targets naming one collection: refused at the later table, naming the earlier one. */
    void check_shared_calendars(toml::table const& targets, Config const& cfg);
    void read_target(std::string const& name, toml::table const& t, TargetConfig& out);
    // read_target's steps: the keys of its type (read_target.cpp: caldav; read_oauth_target.cpp: google,
    // microsoft), then rate, max_concurrency and ca_file.
    void read_caldav_target(toml::table const& t, std::string const& where, TargetConfig& out);
    void read_target_url(toml::table const& t, TargetConfig& out);
    void read_oauth_target(toml::table const& t, std::string const& where, TargetConfig& out);
    bool check_oauth_keys(toml::table const& t, std::string const& where, bool google);
    /** client_id (required: else "WHERE needs client_id (`hint`)") and client_secret / _env / _file. */
    void read_oauth_client(
        toml::table const& t, std::string const& where, std::string const& hint, TargetConfig& out
    );
    /** microsoft: `tenant`, a name, domain or id that becomes a path segment of the authority URL. */
    void read_tenant(toml::table const& t, TargetConfig& out);
    void read_oauth_calendar(toml::table const& t, std::string const& where, TargetConfig& out);
    /** api_base, auth_url and token_url, the provider's own where not given; the provider's default rate. */
    void read_oauth_endpoints(toml::table const& t, TargetConfig& out);
    void read_target_limits(toml::table const& t, TargetConfig& out);
    /** `rate` ("300/m") into `out` when given; false: one that does not parse (reported). */
    bool read_rate(toml::table const& t, Budget& out);
    // [connect] (read_connect.cpp): its own keys, then each provider's client as a TargetConfig.
    void read_connect(toml::table const& t, ConnectConfig& out);
    void read_connect_provider(toml::table const& connect, TargetType type, ConnectConfig& out);
    bool check_connect_provider_keys(toml::table const& t, std::string const& where, bool google);
    void read_revoke_url(toml::table const& t, TargetConfig& out);
    /**
     * A secret given as `key`, `key_env` or `key_file` (one of them; a file loses its trailing newline) into
     * `out`; when not `required`, none of them is fine and leaves `out` as it was.
     */
    void read_secret_of(
        toml::table const& t,
        std::string const& where,
        std::string const& key,
        bool required,
        std::string& out
    );
    void read_push(toml::table const& t, std::string const& where, Config const& cfg, FeedConfig& f);
    bool check_push_target(std::string const& name, Config const& cfg, toml::node const& at);

    std::string path_;
    EnvLookup const& env_;
    std::optional<Error> error_;
    std::vector<MissingSecret> missing_;
    bool inline_secret_ = false;
    std::string note_; ///< appended to "not valid in" messages: why a key belongs elsewhere
};

} // namespace icsbridge::config_detail
