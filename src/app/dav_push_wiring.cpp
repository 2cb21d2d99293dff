// File: dav_push_wiring.cpp
// make_dav_push(), end_unaccepted() and keep_registrations(): the VAPID key and registrations of a single
// box (files under storage.dir) or of a cluster (rows), and their upkeep.
#include "app/dav_push_wiring.hpp"

#include "cluster/push_registration_rows.hpp"
#include "dav/push_journal.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace icsbridge::cli {

namespace {

std::chrono::sys_seconds now_s() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

/** The token the feed accepts from `subscriber` today; empty when none. */
std::string token_of(FeedConfig const& f, std::string const& subscriber) {
    if (auto it = f.tokens.find(subscriber); it != f.tokens.end())
        return it->second;
    return subscriber == "subscriber" ? f.token : std::string();
}

bool accepted(Config const& cfg, dav::PushRegistration const& r) {
    FeedConfig const* f = cfg.find_feed(r.feed);
    if (!f)
        return false;
    if (r.subscriber.empty())
        return f->is_public();
    auto const token = token_of(*f, r.subscriber);
    return !token.empty() && dav::push_token_digest(r.feed, r.subscriber, token) == r.token_digest;
}

/** Until cancelled: the upkeep every `period`. */
boost::asio::awaitable<void> keep_registrations(
    std::shared_ptr<dav::PushRegistry> registry, bool cluster, std::chrono::seconds period, Logger log
) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
    bool warned = false;
    for (;;) {
        timer.expires_after(period);
        co_await timer.async_wait(boost::asio::use_awaitable);
        if (!cluster) {
            (void)registry->expire(now_s());
            continue;
        }
        // reload() drops the expired ones too (from the rows as well).
        auto loaded = registry->reload(now_s());
        if (!loaded && !warned)
            log.warn("WebDAV-Push: the registrations could not be read again: " + loaded.error().message);
        warned = !loaded;
    }
}

} // namespace

void start_upkeep(
    DavPush const& push,
    boost::asio::any_io_executor ex,
    boost::asio::cancellation_slot stop,
    Logger const& log
) {
    if (!push.registry)
        return;
    auto const period = push.cluster ? std::chrono::seconds(5) : std::chrono::seconds(60);
    boost::asio::co_spawn(
        ex,
        keep_registrations(push.registry, push.cluster, period, log),
        boost::asio::bind_cancellation_slot(stop, [](std::exception_ptr const&) {})
    );
}

DavPush make_dav_push(Config const& cfg, Logger const& log) {
    DavPush out;
    if (!cfg.dav.enabled || !cfg.dav.push)
        return out;
    std::shared_ptr<dav::PushPersistence> persistence;
    Result<webpush::VapidKey> key = fail(errc::io_error, "");
    if (cfg.cluster) {
        auto rows = std::make_shared<cluster::PushRegistrationRows>(
            cfg.cluster->database_url,
            cluster_node(*cfg.cluster)
        );
        key = rows->vapid_key();
        persistence = rows;
        out.cluster = true;
    } else {
        key = webpush::load_or_make_vapid_key(cfg.storage.dir);
        persistence = dav::push_journal(cfg.storage.dir);
    }
    if (!key) {
        log.error("WebDAV-Push is off: the VAPID key: " + key.error().message);
        return out;
    }
    auto topic_key = dav::push_topic_key(*key);
    if (!topic_key) {
        log.error("WebDAV-Push is off: " + topic_key.error().message);
        return out;
    }
    out.registry = std::make_shared<dav::PushRegistry>(key->public_key_base64url(), *topic_key, persistence);
    out.vapid = std::move(*key);
    if (auto loaded = out.registry->reload(now_s()); !loaded)
        log.warn(
            "WebDAV-Push: the registrations could not be read (" + loaded.error().message +
            "); starting with none"
        );
    (void)end_unaccepted(out, cfg, log, "start");
    return out;
}

std::size_t end_unaccepted(DavPush const& push, Config const& cfg, Logger const& log, std::string_view when) {
    if (!push.registry)
        return 0;
    auto const ended =
        push.registry->remove_if([&cfg](dav::PushRegistration const& r) { return !accepted(cfg, r); });
    if (ended > 0)
        log.info(
            std::string(when) + ": " + std::to_string(ended) +
            " WebDAV-Push registration(s) ended: their feed is gone, or no longer takes their token"
        );
    return ended;
}

} // namespace icsbridge::cli
