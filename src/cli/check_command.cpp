// File: check_command.cpp
// `icsbridge check`: what the config sets up, feed by feed, with the warnings of a config that is valid but
// risky (on stderr; the exit status stays 0).
#include "cli/check_command.hpp"

#include "cli/terminal_text.hpp"
#include "views/view.hpp"
#include <icsbridge/duration.hpp>
#include <icsbridge/store.hpp>

#include <cstdio>

namespace icsbridge::cli {

void print_err(std::string const& line) {
    std::fputs(line.c_str(), stderr);
    std::fputc('\n', stderr);
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

/** One block per `[targets.NAME]`: where it writes and how politely; the password only as "set". */
void print_targets(Config const& cfg) {
    for (auto const& [name, t] : cfg.targets) {
        std::printf("\ntarget %s\n", name.c_str());
        std::printf("  caldav:  %s\n", t.url.c_str());
        if (!t.calendar.empty())
            std::printf(
                "  calendar: \"%s\" (found by display name, created if missing)\n",
                t.calendar.c_str()
            );
        std::printf("  user:    %s (password set)\n", t.username.c_str());
        std::printf(
            "  rate:    %zu requests per %s, at most %d at once\n",
            t.rate.calls,
            format_duration(t.rate.period).c_str(),
            t.max_concurrency
        );
    }
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

/** One block per feed: its URL, then its parts (a merged feed) or its source and query, and its targets. */
void print_feed(Config const& cfg, FeedConfig const& f) {
    // "feed NAME" first, so scripts can pick the names out (deploy/demo.sh does).
    std::printf("\nfeed %s\n", f.name.c_str());
    std::printf("  url:     %s\n", shown_url(cfg, f).c_str());
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
    print_service(cfg);
    for (auto const& f : cfg.feeds)
        print_feed(cfg, f);
    print_targets(cfg);
    if (cfg.feeds.empty())
        std::printf("\nno feeds defined: add a [feeds.NAME] table\n");
    return 0;
}

} // namespace icsbridge::cli
