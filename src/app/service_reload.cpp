// File: service_reload.cpp
// Service::reload(): SIGHUP's job. The new config is checked as at start, then the served table, the push
// targets, the connections, the CalDAV history, the refreshers, the revoked tokens and the WebDAV-Push
// registrations follow it, in that order.
#include "app/dav_wiring.hpp"
#include "app/reload_plan.hpp"
#include "app/service.hpp"
#include "connect/connections.hpp"
#include "push/push_views.hpp"
#include <icsbridge/ical.hpp>

namespace icsbridge {

void Service::reload() {
    if (stopping_)
        return;
    auto const now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    auto const before = live_.get();
    log_.info("SIGHUP: reloading " + before->path);
    auto next = load_config(before->path, process_env());
    if (next)
        if (auto views = push::check_push_views(*next); !views)
            next = views.error();
    if (next)
        if (auto zones = check_feed_zones(*next); !zones)
            next = zones.error();
    if (next)
        if (auto secrets = require_all_secrets(*next); !secrets)
            next = secrets.error();
    if (!next) {
        log_.error("reload refused, the running config stays: " + next.error().message);
        store_.record_reload({now, false, next.error().message});
        return;
    }
    auto plan = plan_reload(*before, *next);
    for (auto const& key : plan.restart_needed)
        log_.warn("reload: " + key + " changed; it takes effect only after a restart");
    for (auto const& w : config_warnings(*next))
        log_.warn(w);
    auto cfg = std::make_shared<Config const>(std::move(*next));
    // The table first: a new feed must exist before its first refresh publishes, and from the next request
    // on, tokens, removed feeds and pages follow the new config.
    auto opts = refresh_opts_;
    opts.first_wait = resume_kept(plan, store_, publisher_);
    store_.reconfigure(*cfg);
    live_.set(cfg);
    push_->configure(cfg);
    if (connections_)
        connections_->configure(cfg); // without [connect] now, every connection stops; none is forgotten
    else if (cfg->connect)
        log_.warn("reload: [connect] was added; it takes effect only after a restart");
    cli::forget_removed(dav_.get(), node_.get(), plan.removed, plan.added);
    // A feed added back (removed by an earlier reload, or renamed back) serves its kept snapshot at once,
    // when it was made under the same definition; from the disk, which a cluster replica keeps too.
    DiskSnapshots disk(cfg_->storage.dir, store_.files());
    for (auto const& name : plan.added)
        (void)adopt_kept(publisher_, name, disk, publisher_.gzip(), Origin::restored, log_);
    current_->merged.reset(); // its subscription ends before the new generation's merged feeds start
    auto old = std::exchange(current_, next_generation(cfg, std::move(opts)));
    old->refreshers->hand_over(*current_->refreshers); // ends soon; what hooks asked of it goes on
    start_generation(current_);
    log_.info(
        "reloaded: " + std::to_string(plan.added.size()) + " feed(s) added, " +
        std::to_string(plan.removed.size()) + " removed, " + std::to_string(plan.changed.size()) +
        " changed (fetched again now), " + std::to_string(plan.kept.size()) + " kept"
    );
    store_.record_reload({now, true, {}});
    if (auto n = revoked_->revoke_dropped(*before, *cfg, now); !n)
        log_.warn("reload: revoked tokens answer 410 only until a restart: " + n.error().message);
    else if (*n > 0)
        log_.info("reload: " + std::to_string(*n) + " token(s) revoked; they answer 410 Gone for a week");
    (void)cli::end_unaccepted(dav_push_, *cfg, log_, "reload");
}

} // namespace icsbridge
