// File: config.hpp
// The parsed, validated configuration (the README's "Configuration", icsbridge.toml(5)) and the loader's
// entry point.
// Plain values only: no toml++ type leaks out of src/config/.
#pragma once

#include <icsbridge/duration.hpp>
#include <icsbridge/error.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace icsbridge {

enum class SourceType { events, jobs };
/** @brief How a cancelled event is published: STATUS:CANCELLED, also "Cancelled: " in SUMMARY, or left out.
 */
enum class CancelledPolicy { status, prefix, drop };
/** @brief How job posts are published: VTODO, all-day VEVENT on the due date, or both. */
enum class JobsAs { vtodo, vevent, both };

/** @brief A call budget, `budget = "2000/h"`: at most `calls` upstream calls in any window of `period`. */
struct Budget {
    std::size_t calls = 0; ///< 0: no budget
    std::chrono::seconds period{0};
    friend bool operator==(Budget const&, Budget const&) = default;
};

/** @brief Parses "2000/h", "100/15m", "5/1s" (calls / unit or duration); nullopt if malformed or zero. */
std::optional<Budget> parse_budget(std::string_view text);

/** @brief The budget of an events source without a `budget` key: the service's documented 2,000 an hour. */
inline constexpr Budget default_events_budget{2000, std::chrono::hours(1)};

/** @brief One upstream, `[sources.NAME]`. The secret is resolved (from `token`/`api_key` or the `*_env`
 * variable). */
struct SourceConfig {
    std::string name;
    SourceType type = SourceType::events;
    std::string base_url;   ///< scheme://host[:port][/prefix], no trailing slash; the events client adds /v3
    std::string secret;     ///< bearer token (events) or api_key (jobs). Never print it.
    std::string user_agent; ///< empty: "icsbridge/VERSION"
    std::chrono::milliseconds timeout{20000}; ///< whole-request deadline, per attempt
    int max_concurrency = 4;
    int max_response_mb = 32; ///< largest upstream answer accepted, decoded (MiB)
    std::string ca_file; ///< extra trust anchor (PEM) for self-hosted upstreams; empty: system store only
    Budget budget;       ///< every upstream call of the source counts; events default: default_events_budget
    /// Events sources: the last path segment of POST /hooks/NAME/SECRET; empty: no webhooks. Never print it.
    std::string webhook_secret;
    friend bool operator==(SourceConfig const&, SourceConfig const&) = default;
};

/** @brief `[targets.NAME]`: a calendar icsbridge writes a feed's items into: a CalDAV server, or a Google
 * Calendar or Microsoft 365 account connected over OAuth (`icsbridge connect`). */
enum class TargetType { caldav, google, microsoft };

/** @brief The `rate` of a target without one: 300 requests a minute. */
inline constexpr Budget default_target_rate{300, std::chrono::minutes(1)};

struct TargetConfig {
    std::string name;
    TargetType type = TargetType::caldav;
    std::string url;      ///< a calendar collection, or a server where `calendar` is found by display name
    std::string calendar; ///< display name; empty: `url` is the collection itself
    std::string username;
    std::string password; ///< from `password`, `password_env` or `password_file`. Never print it.
    std::string ca_file;  ///< extra trust anchor (PEM); empty: system store only
    Budget rate = default_target_rate;
    int max_concurrency = 4;
    /// the largest answer read from the target, once decoded (`max_response`); a larger one stops the push
    std::size_t max_response = std::size_t{32} * 1024 * 1024;
    int line = 0; ///< where the table starts in the file (for messages)

    // google / microsoft (OAuth). `calendar` is then a calendar's name, found or created; `calendar_id` an
    // existing calendar ("primary": the account's main one).
    std::string calendar_id;
    std::string client_id;
    std::string
        client_secret; ///< from client_secret, client_secret_env or client_secret_file. Never print it.
    std::string tenant = "common"; ///< microsoft: the Entra tenant in the authority URL
    std::string api_base;          ///< the API's root URL (no trailing slash); the provider's own by default
    std::string auth_url;          ///< the authorization endpoint; the provider's own by default
    std::string token_url;         ///< the token endpoint; the provider's own by default
    /// google: the revocation endpoint (RFC 7009), the provider's own by default; microsoft has none (a
    /// person removes an app's access in their account's settings).
    std::string revoke_url;
    friend bool operator==(TargetConfig const&, TargetConfig const&) = default;
};

/** @brief All connections' requests together, by default: Google's 600 a minute per project user, less room.
 */
inline constexpr Budget default_connect_rate{500, std::chrono::minutes(1)};

/**
 * @brief `[connect]`: subscribers connect their own Google or Microsoft calendar from a feed's page (issue
 * 27). Absent: no buttons and no /connect routes.
 */
struct ConnectConfig {
    /// 32 random bytes (64 hex digits, or the raw bytes) that seal stored refresh tokens (AES-256-GCM) and
    /// sign the sign-in `state`. Never print its content.
    std::string key_file;
    /// type google or microsoft, name "google" / "microsoft": client_id, client_secret, tenant, the
    /// endpoints (the provider's own by default) as for an OAuth target; `calendar` is unused (each
    /// connection's calendar is named after its feed).
    std::optional<TargetConfig> google, microsoft;
    Budget rate = default_connect_rate; ///< every connection's API requests together, served in turn
    int max_concurrency = 4;            ///< one connection's writes in flight at once
    int line = 0;
    friend bool operator==(ConnectConfig const&, ConnectConfig const&) = default;
};

/** @brief One entry of a feed's `push`: mirror the feed (or a view of it) into a target. */
struct PushTo {
    std::string target;
    std::string view; ///< a view query as in /feeds/NAME.ics?…, e.g. "days=90&alarm=none"; empty: all
    /// Where `view` was written: its parameters are checked by the push room (views come after config),
    /// whose message still names FILE:LINE:COL.
    int view_line = 0, view_column = 0;
    friend bool operator==(PushTo const&, PushTo const&) = default;
};

/** @brief `filter = { ... }` of a feed: which fetched items it publishes (all, when empty). */
struct FeedFilter {
    std::vector<std::string> categories;       ///< keep items with one of these category names (any case)
    std::vector<std::string> keywords;         ///< keep items whose title or description has one (any case)
    std::vector<std::string> exclude_keywords; ///< drop items whose title or description has one (any case)
    std::optional<bool> online;                ///< keep only online (true) or only in-person (false) items

    bool empty() const {
        return categories.empty() && keywords.empty() && exclude_keywords.empty() && !online;
    }
    friend bool operator==(FeedFilter const&, FeedFilter const&) = default;
};

/** @brief The longest feed name: it becomes the snapshot's file name, which file systems cap at 255 bytes. */
inline constexpr std::size_t max_feed_name_length = 128;

/** @brief One feed, `[feeds.NAME]`. */
struct FeedConfig {
    std::string name;        ///< [A-Za-z0-9._-]+
    std::string source;      ///< key into Config::sources
    std::string select;      ///< events: organizer|organization|search; jobs: search|recent
    std::string title;       ///< calendar name; defaults to name
    std::string description; ///< X-WR-CALDESC; optional
    /// The agenda page's zone when a request asks none (an IANA name such as "America/Los_Angeles"); empty:
    /// the zone most of its items use. The loader checks its form; check_feed_zones() (ical.hpp) that the
    /// system knows it, at `timezone_line`:`timezone_column`.
    std::string timezone;
    int timezone_line = 0, timezone_column = 0;
    std::string color; ///< "#RRGGBB" (upper case), the collection's calendar-color; empty: none
    std::chrono::seconds refresh{std::chrono::minutes(15)};
    /// Deadline of one whole refresh (every page, retry and expansion); past it the refresh fails and the
    /// last good snapshot stays. One slow upstream cannot hold the refresh loop for an hour.
    std::chrono::seconds fetch_timeout{std::chrono::minutes(10)};
    std::optional<std::chrono::seconds> alarm;
    CancelledPolicy cancelled = CancelledPolicy::status;
    bool ticket_classes = false;
    std::string organization_id; ///< select = "organization"; empty: discovered via /users/me/organizations/
    std::optional<std::chrono::seconds> window; ///< search: start_date range [now, now+window]
    /// organizer/organization: how long an event stays after it ends (a cancelled one: after its start).
    std::chrono::seconds keep_past{std::chrono::days(30)};
    /// Most items a refresh may publish; over it the refresh fails (never a truncated calendar).
    std::size_t max_items = 100000;
    std::vector<std::pair<std::string, std::string>>
        params; ///< passed through as query parameters, in file order
    std::chrono::seconds due_after{std::chrono::days(30)};
    JobsAs jobs_as = JobsAs::vtodo;
    std::string token;                         ///< single feed secret; empty: none
    std::map<std::string, std::string> tokens; ///< subscriber name -> secret
    FeedFilter filter;                         ///< applied to the fetched items before rendering
    /// `merge = ["a", "b"]`: the feed is made of these feeds' published items and is never fetched
    /// (no source, select or fetch keys; `refresh` is the shortest of its parts'). Parts are never merges.
    std::vector<std::string> merge;
    std::vector<PushTo> push; ///< targets this feed is mirrored into, in file order
    int line = 0;             ///< where the feed's table starts in the file (for messages)

    bool is_public() const { return token.empty() && tokens.empty(); }
    friend bool operator==(FeedConfig const&, FeedConfig const&) = default;
    bool is_merged() const { return !merge.empty(); }
};

struct ServerConfig {
    std::string host = "127.0.0.1";
    std::uint16_t port = 8080;
    std::string public_url = "http://127.0.0.1:8080"; ///< no trailing slash
    int threads = 0;                                  ///< 0: number of cores
    bool gzip = true; ///< serve precompressed bodies when Accept-Encoding allows
    std::size_t max_connections = 1024;
    /// Open connections one client address may hold; more are answered 429 at once. 0: no cap. One address
    /// holding hundreds of half-sent requests must not make everyone else wait for the request timeout.
    std::size_t max_connections_per_client = 64;
    /// Addresses or networks ("127.0.0.1", "10.0.0.0/8", "::1") whose connections the per-client cap
    /// leaves alone: a reverse proxy speaks for many clients (it limits them itself)
    std::vector<std::string> trusted_proxies;
    std::chrono::seconds request_timeout{10}; ///< time a client has to send a whole request
    std::chrono::seconds idle_timeout{60};    ///< keep-alive idle time before we close
    /// Secret (`admin_token` / `admin_token_env`): `Authorization: Bearer` with it shows /healthz and
    /// /metrics in full, token feeds included. Empty: only their public view. Never print it.
    std::string admin_token;
};

struct StorageConfig {
    std::string dir = "var/icsbridge";
};

/** @brief `[dav]`: every feed also a read-only CalDAV collection (src/dav/). */
struct DavConfig {
    bool enabled = true;
    /// How long a sync token stays good: the change history is trimmed to this age.
    std::chrono::seconds history{std::chrono::days(30)};
    /// WebDAV-Push: collections take push registrations and are sent a message on each change.
    bool push = true;
    /// The VAPID `sub` (`mailto:` or `https://`); empty: the public_url when it is https, else none.
    std::string push_subject;
    /// Tests only: push resources on loopback/private addresses and over plain http are allowed.
    bool push_allow_private = false;
    friend bool operator==(DavConfig const&, DavConfig const&) = default;
};

/**
 * @brief `[cluster]`: replicas share snapshots and refresh leases through PostgreSQL. Absent: one box,
 * snapshots on disk only.
 */
struct ClusterConfig {
    /// libpq URI (`database_url` / `database_url_env`); may hold the password: show only
    /// mask_database_url() of it.
    std::string database_url;
    std::string node; ///< this replica's name in leases; empty: host name and pid (cluster_node())
    std::chrono::seconds lease{30};
    friend bool operator==(ClusterConfig const&, ClusterConfig const&) = default;
};

/** @brief `url` with its password (user info or `password=` parameter) replaced by `***`. */
std::string mask_database_url(std::string_view url);

/** @brief `text` (a libpq message, say) with every copy of `url`'s password replaced by `***`. */
std::string scrub_database_password(std::string text, std::string_view url);

/** @brief The node name leases are held under: `node`, or HOSTNAME-PID when it is empty. */
std::string cluster_node(ClusterConfig const& c);

/**
 * @brief A secret the config names that this environment lacks: an unset or empty `*_env` variable, an
 * unreadable or empty `*_file`. Not a mistake in the file: only a command that uses its table fails over it
 * (require_secrets()); `serve` and `check` use every table.
 */
struct MissingSecret {
    /// the table that needs it: "[sources.NAME]", "[targets.NAME]", "[server]", "[cluster]",
    /// "[connect.google]"; a hook secret only `serve` uses: "[sources.NAME] webhook_secret"
    std::string owner;
    /// "FILE:LINE:COL: environment variable X (api_key_env of [sources.jobs]) is not set"
    std::string message;
};

struct Config {
    std::string path; ///< the file it was read from
    ServerConfig server;
    StorageConfig storage;
    DavConfig dav;
    std::optional<ClusterConfig> cluster; ///< nullopt: no `[cluster]`, a single box
    std::map<std::string, SourceConfig> sources;
    std::vector<FeedConfig> feeds; ///< in file order
    std::map<std::string, TargetConfig> targets;
    std::optional<ConnectConfig> connect; ///< nullopt: no `[connect]`, no self-serve connections
    bool secrets_in_file =
        false; ///< a token, api_key, password, client_secret… is written in the file itself
    /// What this environment lacks, in file order; the tables concerned hold an empty secret meanwhile.
    std::vector<MissingSecret> missing_secrets;

    FeedConfig const* find_feed(std::string_view name) const;
    SourceConfig const* find_source(std::string_view name) const;
    TargetConfig const* find_target(std::string_view name) const;
};

/**
 * @brief The config in force, replaced whole by a reload. A reader keeps the one it got for as long as it
 * uses it (one request, one refresh), so it never sees half of one config and half of the next.
 */
class LiveConfig {
  public:
    explicit LiveConfig(std::shared_ptr<Config const> cfg)
        : cfg_(std::move(cfg)) {}
    std::shared_ptr<Config const> get() const { return cfg_.load(std::memory_order_acquire); }
    void set(std::shared_ptr<Config const> cfg) { cfg_.store(std::move(cfg), std::memory_order_release); }

  private:
    std::atomic<std::shared_ptr<Config const>> cfg_;
};

/**
 * @brief What is risky but valid in `cfg`, one line each for `check` and `serve` to show (never a secret):
 * a file holding secrets (a client_secret too) that group or others may read, a source whose `base_url`, or
 * an OAuth target whose `token_url` or `api_base`, is plain `http://` to a host other than loopback (its
 * token, api_key, refresh token or client secret crosses the network unencrypted).
 */
std::vector<std::string> config_warnings(Config const& cfg);

/** @brief Reads an environment variable; injected so tests need no real environment. */
using EnvLookup = std::function<std::optional<std::string>(std::string const&)>;

/** @brief The process environment (std::getenv). */
EnvLookup process_env();

/**
 * @brief Parses and validates a config file.
 * @return the Config, or errc::config_invalid with a message `FILE:LINE:COL: what is wrong`.
 */
Result<Config> load_config(std::string const& path, EnvLookup const& env);

/** @brief Same, from text already in memory; `path` is only used in messages. */
Result<Config> parse_config(std::string_view text, std::string const& path, EnvLookup const& env);

/**
 * @brief The tables whose secrets running `feed` uses: its source's, or each part's of a merged feed
 * ("[sources.NAME]"; none for a source the config does not define).
 */
std::vector<std::string> secret_owners_of_feed(Config const& cfg, FeedConfig const& feed);

/**
 * @brief Success when no secret of the tables `owners` is missing; else errc::config_invalid whose message
 * names each missing one, a line each (`FILE:LINE:COL: environment variable X (KEY of TABLE) is not set`).
 */
Result<void> require_secrets(Config const& cfg, std::vector<std::string> const& owners);

/**
 * @brief The same for the whole service (`serve`, `check`): every missing secret, then a line saying how
 * the service gets them (the environment, `/etc/icsbridge/secrets.env` under systemd).
 */
Result<void> require_all_secrets(Config const& cfg);

/** @brief The subscription URL of a feed: public_url + "/feeds/NAME.ics" (no token). */
std::string feed_url(Config const& cfg, FeedConfig const& feed);

} // namespace icsbridge
