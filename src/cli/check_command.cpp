// File: check_command.cpp
// `icsbridge check`: what the config sets up, feed by feed, then the targets and [connect], with the warnings
// of a config that is valid but risky (on stderr; the exit status stays 0).
#include "cli/check_command.hpp"

#include "app/connect_wiring.hpp"
#include "cli/terminal_text.hpp"
#include "connect/connect_key.hpp"
#include "oauth/provider.hpp"
#include "oauth/token_store.hpp"
#include "views/view.hpp"
#include <icsbridge/dav.hpp>
#include <icsbridge/duration.hpp>
#include <icsbridge/store.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace icsbridge::cli {

void print_err(std::string const& line) {
    std::fputs(line.c_str(), stderr);
    std::fputc('\n', stderr);
}

int missing_secrets_status(Result<void> const& needed) {
    if (needed)
        return 0;
    print_err(needed.error().message);
    return exit_code(needed.error().code);
}

namespace {

/** @brief Feeds whose last calendar in storage.dir is too large for Google (a feed not fetched yet has none).
 */
void warn_google_sizes(Config const& cfg) {
    for (auto const& f : cfg.feeds) {
        auto snap = load_snapshot(cfg.storage.dir, f.name, false);
        if (!snap)
            continue;
        if (auto w = views::google_size_warning((*snap)->body.size()); !w.empty())
            print_err("icsbridge: warning: [feeds." + f.name + "]: " + w);
    }
}

/** "  push:    family, phone (days=90)": the targets a feed is mirrored into; nothing when none. */
void print_push(FeedConfig const& f) {
    if (f.push.empty())
        return;
    std::string line;
    for (auto const& to : f.push)
        line += (line.empty() ? "" : ", ") + to.target + (to.view.empty() ? "" : " (" + to.view + ")");
    std::printf("  push:    %s\n", line.c_str());
}

/** "connected (oauth/NAME.json)" or why not, with the command that cures it: from the token file only. */
std::string connection_of(Config const& cfg, TargetConfig const& t) {
    oauth::TargetRef const ref{t.name, cfg.path};
    auto const path = oauth::token_path(cfg.storage.dir, t.name);
    auto stored = oauth::load_token(path);
    if (!stored)
        return "unknown: " + stored.error().message;
    auto usable = oauth::usable_token(*stored, t, ref);
    // check never opens the database: in a cluster the row may hold what this file lacks.
    std::string const row =
        cfg.cluster ? " (this replica's file; the database row is not read by check)" : "";
    if (!usable)
        return usable.error().message + row;
    return "connected (" + path + ")" + row;
}

/** The lines of an OAuth target: its calendar, client, endpoints, scope and whether it is connected. */
void print_oauth_target(Config const& cfg, TargetConfig const& t) {
    auto const provider = std::string(oauth::provider_name(t.type));
    // "google:  …" lines up with "caldav:  …"; "microsoft:" is longer than the column.
    auto const label = provider + ":";
    if (!t.calendar.empty())
        std::printf(
            "  %-8s calendar \"%s\" (found by name, created if missing)\n",
            label.c_str(),
            t.calendar.c_str()
        );
    else
        std::printf("  %-8s calendar id %s\n", label.c_str(), t.calendar_id.c_str());
    std::printf(
        "  client:  %s (%s)\n",
        t.client_id.c_str(),
        t.client_secret.empty() ? "no client secret" : "client secret set"
    );
    if (t.type == TargetType::microsoft)
        std::printf("  tenant:  %s\n", t.tenant.c_str());
    std::printf("  api:     %s\n", t.api_base.c_str());
    std::printf("  sign-in: %s, tokens from %s\n", t.auth_url.c_str(), t.token_url.c_str());
    std::printf("  scope:   %s\n", oauth::scope_for(t).c_str());
    std::printf("  token:   %s\n", connection_of(cfg, t).c_str());
}

/** One block per `[targets.NAME]`: where it writes and how politely; secrets only as "set". */
void print_targets(Config const& cfg) {
    for (auto const& [name, t] : cfg.targets) {
        std::printf("\ntarget %s\n", name.c_str());
        if (t.type == TargetType::caldav) {
            std::printf("  caldav:  %s\n", t.url.c_str());
            if (!t.calendar.empty())
                std::printf(
                    "  calendar: \"%s\" (found by display name, created if missing)\n",
                    t.calendar.c_str()
                );
            std::printf("  user:    %s (password set)\n", t.username.c_str());
        } else {
            print_oauth_target(cfg, t);
        }
        std::printf(
            "  rate:    %zu requests per %s, at most %d at once\n",
            t.rate.calls,
            format_duration(t.rate.period).c_str(),
            t.max_concurrency
        );
    }
}

/** [connect]: the providers subscribers may connect, the key file and the shared rate; secrets as "set". */
void print_connect(Config const& cfg) {
    if (!cfg.connect)
        return;
    auto const& c = *cfg.connect;
    std::printf("\nconnect (subscribers connect their own calendars from a feed's page)\n");
    for (auto const* provider : {&c.google, &c.microsoft}) {
        if (!*provider)
            continue;
        auto const& t = **provider;
        std::string const label = t.name + ":";
        std::string const tenant = t.type == TargetType::microsoft ? ", tenant " + t.tenant : "";
        std::printf(
            "  %-10s client %s (%s)%s\n",
            label.c_str(),
            t.client_id.c_str(),
            t.client_secret.empty() ? "no client secret" : "client secret set",
            tenant.c_str()
        );
    }
    auto const state = key_file_state(c.key_file);
    std::printf("  key file:  %s (%s)\n", c.key_file.c_str(), state.c_str());
    if (state != "readable")
        print_err("icsbridge: warning: [connect] key_file " + c.key_file + ": " + state);
    std::printf(
        "  rate:      %zu requests per %s for all connections, at most %d at once per connection\n",
        c.rate.calls,
        format_duration(c.rate.period).c_str(),
        c.max_concurrency
    );
}

/** The counts, where the server listens, the cluster and the webhook URLs (without their secrets). */
void print_service(Config const& cfg) {
    std::printf(
        "%s: OK (%zu source%s, %zu feed%s)\n",
        cfg.path.c_str(),
        cfg.sources.size(),
        cfg.sources.size() == 1 ? "" : "s",
        cfg.feeds.size(),
        cfg.feeds.size() == 1 ? "" : "s"
    );
    std::printf(
        "server: listen %s:%u, public URL %s\n",
        cfg.server.host.c_str(),
        cfg.server.port,
        cfg.server.public_url.c_str()
    );
    if (cfg.cluster)
        std::printf(
            "cluster: %s, node %s, lease %s\n",
            mask_database_url(cfg.cluster->database_url).c_str(),
            cluster_node(*cfg.cluster).c_str(),
            format_duration(cfg.cluster->lease).c_str()
        );
    // The hook URL is the secret itself: show where it goes, never what it is.
    for (auto const& [name, src] : cfg.sources)
        if (!src.webhook_secret.empty())
            // Two literals: one with a slash-star in it reads as a comment to line-based tools.
            std::printf(
                "webhook: source %s: POST %s/hooks/%s/"
                "*** (*** = its webhook_secret)\n",
                name.c_str(),
                cfg.server.public_url.c_str(),
                name.c_str()
            );
}

/** A feed's URL as shown: feed tokens are secrets, so it says one is needed (and whose), never which. */
std::string shown_url(Config const& cfg, FeedConfig const& f) {
    std::string url = feed_url(cfg, f);
    if (!f.token.empty()) {
        url += "?token=***";
    } else if (!f.tokens.empty()) {
        url += "?token=***  (subscribers: ";
        for (auto const& [who, secret] : f.tokens)
            url += (url.back() == ' ' ? "" : ", ") + who;
        url += ")";
    }
    return url;
}

/** A feed's CalDAV collection as shown: whose login opens it (a subscriber's name), never the token. */
std::string shown_caldav(Config const& cfg, FeedConfig const& f) {
    auto const& url = cfg.server.public_url;
    if (f.is_public())
        return dav::address(url, f.name);
    if (!f.token.empty())
        return dav::address(url, f.name, "subscriber") + "  (user subscriber, password the token)";
    if (f.tokens.size() == 1) {
        auto const& who = f.tokens.begin()->first;
        return dav::address(url, f.name, who) + "  (user " + who + ", password their token)";
    }
    std::string names;
    for (auto const& [who, secret] : f.tokens)
        names += (names.empty() ? "" : ", ") + who;
    return dav::address(url, f.name, "NAME") + "  (NAME: " + names + "; password: their token)";
}

/** One block per feed: its URLs, then its parts (a merged feed) or its source and query, and its targets. */
void print_feed(Config const& cfg, FeedConfig const& f) {
    // "feed NAME" first, so scripts can pick the names out (deploy/demo.sh does).
    std::printf("\nfeed %s\n", f.name.c_str());
    std::printf("  url:     %s\n", shown_url(cfg, f).c_str());
    if (cfg.dav.enabled)
        std::printf("  caldav:  %s\n", shown_caldav(cfg, f).c_str());
    if (f.is_merged()) {
        std::string parts;
        for (auto const& p : f.merge)
            parts += (parts.empty() ? "" : ", ") + p;
        std::printf("  merge:   %s\n", parts.c_str());
        std::printf(
            "  refresh: rebuilt whenever a part publishes (hint %s)\n",
            format_duration(f.refresh).c_str()
        );
    } else {
        SourceConfig const* src = cfg.find_source(f.source);
        std::printf(
            "  source:  %s (%s, %s)\n",
            f.source.c_str(),
            src && src->type == SourceType::jobs ? "jobs" : "events",
            src ? src->base_url.c_str() : "?"
        );
        std::printf("  select:  %s\n", f.select.c_str());
        std::printf("  refresh: %s\n", format_duration(f.refresh).c_str());
    }
    print_push(f);
}

} // namespace

int check_command(Config const& cfg) {
    // Risky but valid: said on stderr, and the exit status stays 0.
    for (auto const& w : config_warnings(cfg))
        print_err("icsbridge: warning: " + w);
    warn_google_sizes(cfg);
    // `check` answers for the service, which needs every secret: all that are missing, then exit 2.
    if (int const rc = missing_secrets_status(require_all_secrets(cfg)); rc != 0)
        return rc;
    print_service(cfg);
    for (auto const& f : cfg.feeds)
        print_feed(cfg, f);
    print_targets(cfg);
    print_connect(cfg);
    if (cfg.feeds.empty())
        std::printf("\nno feeds defined: add a [feeds.NAME] table\n");
    return 0;
}

} // namespace icsbridge::cli
