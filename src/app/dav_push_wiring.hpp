// File: dav_push_wiring.hpp
// WebDAV-Push's registration side in `serve`, wired here because it joins the dav, webpush and cluster
// rooms: the VAPID key (a file under storage.dir, or the cluster's row), the registry over its persistence
// (the journal, or the rows), the registrations a config no longer lets in, and their upkeep.
#pragma once

#include "dav/push_registry.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/webpush.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string_view>

namespace icsbridge::cli {

/** @brief What `serve` shares between the registration side (the server) and the delivery side. */
struct DavPush {
    std::optional<webpush::VapidKey> vapid;      ///< signs every message; the same on every replica
    std::shared_ptr<dav::PushRegistry> registry; ///< null: WebDAV-Push is off
    bool cluster = false;                        ///< registrations in the database: reload() sees others'
};

/**
 * @brief The VAPID key and the registry, loaded (expired registrations dropped, those the config no longer
 * lets in ended). Off (a null registry) with `[dav] enabled = false` or `push = false`, or when the key
 * cannot be had (logged as an error: the CalDAV tree is served without push).
 */
DavPush make_dav_push(Config const& cfg, Logger const& log);

/**
 * @brief Ends every registration `cfg` no longer lets in: its feed gone, a public feed's on a feed that
 * now has tokens, a subscriber's whose token the feed no longer accepts from them (revoked, rotated, the
 * subscriber removed). How many ended (logged when any, after "WHEN: "); none while push is off.
 */
std::size_t end_unaccepted(DavPush const& push, Config const& cfg, Logger const& log, std::string_view when);

/**
 * @brief Spawns the registrations' upkeep on `ex` (nothing when push is off): every minute the expired ones
 * dropped; in cluster mode every 5 s the database's read again (what other replicas registered and removed,
 * the expired ones dropped with it). Ends when `stop` is emitted (on `ex`).
 */
void start_upkeep(
    DavPush const& push,
    boost::asio::any_io_executor ex,
    boost::asio::cancellation_slot stop,
    Logger const& log
);

} // namespace icsbridge::cli
