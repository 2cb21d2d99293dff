// File: cluster_node.cpp
// ClusterNode: leases before refreshes, renewals, LISTEN for peers' publishes, and the degraded mode.
// Every member runs on the control thread (the refreshers' strand is on it too), so none takes a lock.
#include "cluster/cluster_node.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unistd.h>

#include <optional>
#include <set>
#include <string_view>
#include <utility>

namespace icsbridge::cluster {

namespace {

namespace net = boost::asio;
using namespace std::chrono_literals;

/** A connection attempt to a database that is away can take connect_timeout: not more often than this. */
constexpr auto reconnect_gap = 5s;
/** How often the subscribers' fetch times are shared. */
constexpr auto fetches_gap = 2s;

} // namespace

ClusterNode::ClusterNode(
    ClusterConfig const& cfg,
    std::string dir,
    ServedFeeds& store,
    Publisher& publisher,
    Logger log,
    net::any_io_executor db,
    net::any_io_executor control
)
    : node_(cluster_node(cfg))
    , lease_(cfg.lease)
    , store_(store)
    , publisher_(publisher)
    , log_(std::move(log))
    , server_(std::make_shared<PgServer>(cfg.database_url))
    , rows_(std::make_shared<PgSnapshots>(
          server_, node_, [this](std::string const& f) { return epoch_of(f); }, log_
      ))
    , snapshots_(std::make_shared<ClusterSnapshots>(rows_, std::move(dir), log_, store.files()))
    , budget_(std::make_shared<PgBudget>(server_, db))
    , lease_db_(server_)
    , leases_(lease_db_, node_, cfg.lease)
    , fetches_(lease_db_, store_)
    , listen_db_(server_)
    , db_ex_(std::move(db))
    , control_ex_(std::move(control)) {
    rows_->on_refused([this](std::string const& feed) {
        std::lock_guard lock(mtx_);
        refused_.insert(feed);
    });
    store_.record_cluster(true);
    // Start-up meets the schema first: a database that is away shows up here, not in the first refresh.
    if (auto ok = rows_->prepare(); !ok)
        set_degraded(true, ok.error().message);
    else
        log_.info(
            "cluster: node " + node_ + " on " + rows_->where() + ", lease " + std::to_string(lease_.count()) +
            "s"
        );
}

std::int64_t ClusterNode::epoch_of(std::string const& feed) const {
    std::lock_guard lock(mtx_);
    auto lease = lease_of_feed_.find(feed);
    if (lease == lease_of_feed_.end())
        return 0;
    auto held = held_.find(lease->second);
    return held == held_.end() ? 0 : held->second;
}

void ClusterNode::set_degraded(bool degraded, std::string const& why) {
    store_.record_cluster(!degraded);
    if (degraded_.exchange(degraded) == degraded)
        return;
    if (degraded)
        log_.warn("cluster: degraded, serving and refreshing on our own: " + why);
    else
        log_.info("cluster: database back; leases and peers' snapshots in use again");
}

net::awaitable<std::chrono::milliseconds> ClusterNode::lease_wait(FeedGroup const& g) {
    // Copies: the claim may outlive the caller's group (a reload while the database is slow).
    std::vector<std::string> feeds;
    for (auto const* f : g.feeds)
        feeds.push_back(f->name);
    // Named before the co_await (README, "Coroutines and GCC 12").
    auto claim = net::co_spawn(
        db_ex_,
        [this, lease = g.key, feeds = std::move(feeds)]() -> net::awaitable<std::chrono::milliseconds> {
            co_return claim_turn(lease, feeds);
        },
        net::use_awaitable
    );
    co_return co_await std::move(claim);
}

std::chrono::milliseconds
ClusterNode::claim_turn(std::string const& name, std::vector<std::string> const& feeds) {
    {
        std::lock_guard lock(mtx_);
        for (auto const& f : feeds)
            lease_of_feed_[f] = name;
    }
    if (degraded_ && std::chrono::steady_clock::now() < retry_after_)
        return 0ms;
    auto claim = leases_.claim(name);
    // A refresh needs the lease for a while yet: renewals come every third of it, keep one in hand.
    auto const turn = refresh_turn(claim, std::chrono::duration_cast<std::chrono::milliseconds>(lease_) / 3);
    {
        std::lock_guard lock(mtx_);
        if (turn == RefreshTurn::mine)
            held_[name] = claim->epoch;
        else
            held_.erase(name);
    }
    switch (turn) {
    case RefreshTurn::mine:
        rejoin_if_degraded();
        return 0ms;
    case RefreshTurn::theirs:
        rejoin_if_degraded();
        return recheck_after(*claim, lease_);
    case RefreshTurn::alone:
        break;
    }
    away(claim.error().message);
    return 0ms;
}

void ClusterNode::away(std::string const& why) {
    retry_after_ = std::chrono::steady_clock::now() + reconnect_gap;
    set_degraded(true, why);
}

void ClusterNode::stop_listening() {
    listening_ = false;
    listen_db_.close();
}

void ClusterNode::listen_lost(std::string const& why) {
    stop_listening();
    set_degraded(
        true,
        "the LISTEN connection was lost: " +
            (why.empty() ? listen_db_.where() + " closed it, or the network did" : why)
    );
}

void ClusterNode::rejoin_if_degraded() {
    if (!degraded_ || !listening_)
        return;
    // The database answers again after a spell away. The LISTEN connection may look open yet be dead (the
    // server restarted or failed over while the network was cut, and a connection that only reads never
    // hears so): listen anew and converge, which also puts in what we refreshed alone meanwhile. Back
    // out of degraded mode once that is done (listen_or_reconnect), not before.
    stop_listening();
}

void ClusterNode::check_listening() {
    // A connection that only waits for NOTIFYs learns of nothing when a firewall drops it or the server
    // goes without a word; a statement on it must be answered (within answer_within), or it is replaced.
    auto const connects = listen_db_.connects();
    auto const answered = listen_db_.exec("SELECT 1");
    if (answered && listen_db_.connects() == connects)
        return;
    listen_lost(answered ? std::string{} : answered.error().message);
}

void ClusterNode::renew_held() {
    std::vector<std::string> names;
    {
        std::lock_guard lock(mtx_);
        for (auto const& held : held_)
            names.push_back(held.first);
    }
    // The claims go to the database outside the lock: the keeper's saves only read the epochs.
    for (auto const& name : names) {
        auto claim = leases_.claim(name);
        if (!claim)
            set_degraded(true, claim.error().message);
        std::lock_guard lock(mtx_);
        if (claim && claim->held)
            held_[name] = claim->epoch;
        else
            held_.erase(name);
    }
}

void ClusterNode::listen_or_reconnect() {
    if (std::chrono::steady_clock::now() < retry_after_)
        return;
    // The schema first: a database that came back empty needs its tables before leases and LISTEN.
    if (auto ok = rows_->prepare(); !ok) {
        away(ok.error().message);
        return;
    }
    if (auto ok = listen_db_.exec(std::string("LISTEN ") + snapshot_channel + "; LISTEN " + hook_channel);
        !ok) {
        away(ok.error().message);
        return;
    }
    listening_ = true;
    if (converge())
        set_degraded(false, {});
}

void ClusterNode::show_leases() {
    std::lock_guard lock(mtx_);
    for (auto const& [feed, lease] : lease_of_feed_)
        store_.record_lease(feed, held_.count(lease) > 0);
}

bool ClusterNode::refused(std::string const& feed) const {
    std::lock_guard lock(mtx_);
    return refused_.count(feed) > 0;
}

net::awaitable<void> ClusterNode::run() {
    using namespace net::experimental::awaitable_operators;
    auto const ex = co_await net::this_coro::executor;
    net::steady_timer tick(ex);
    // The LISTEN connection's socket, watched so that a peer's publish is loaded the moment it is
    // announced. A dup: closing ours leaves libpq's own descriptor alone. Made again for each new
    // connection (its number may be the old one's, so the connection count tells them apart).
    std::optional<net::posix::stream_descriptor> notices;
    std::uint64_t watched = 0;
    renew_due_ = std::chrono::steady_clock::now() + renew_after(lease_);
    while (!stopped_) {
        if (!listening_)
            listen_or_reconnect();
        if (std::chrono::steady_clock::now() >= renew_due_) {
            renew_held();
            if (listening_)
                check_listening();
            renew_due_ = std::chrono::steady_clock::now() + renew_after(lease_);
        }
        // After the check: NOTIFYs that arrived while it waited for its answer are queued in libpq by now.
        if (listening_)
            load_notified();
        std::set<std::string> refused;
        {
            std::lock_guard lock(mtx_);
            refused.swap(refused_);
        }
        if (!refused.empty())
            load_rows(refused);
        show_leases();
        if (!degraded_ && std::chrono::steady_clock::now() >= fetches_due_) {
            // Seconds matter little here (/healthz shows last fetches to the second, for people).
            auto ok = fetches_.sync();
            if (!ok)
                log_.warn("cluster: cannot share subscribers' fetch times: " + ok.error().message);
            fetches_due_ = std::chrono::steady_clock::now() + (ok ? fetches_gap : reconnect_gap);
        }
        if (!listening_) {
            notices.reset();
        } else if (!notices || watched != listen_db_.connects()) {
            notices.reset();
            watched = listen_db_.connects();
            if (int const fd = ::dup(PQsocket(listen_db_.raw())); fd >= 0)
                notices.emplace(ex, fd);
        }
        // The tick paces the rest (renewals, reconnects, the fetch times) and stands in for the socket
        // when there is none, or when libpq already holds input the socket no longer shows.
        tick.expires_after(250ms);
        if (notices)
            co_await (
                tick.async_wait(net::as_tuple(net::use_awaitable)) ||
                notices
                    ->async_wait(net::posix::stream_descriptor::wait_read, net::as_tuple(net::use_awaitable))
            );
        else
            co_await tick.async_wait(net::as_tuple(net::use_awaitable));
    }
}

void ClusterNode::stop() {
    stopped_ = true;
    // The leases go from the database thread (a statement), after whatever it is doing now.
    net::post(db_ex_, [this] { release_all(); });
}

void ClusterNode::release_all() {
    std::map<std::string, std::int64_t> held;
    {
        std::lock_guard lock(mtx_);
        held.swap(held_);
    }
    for (auto const& lease : held)
        (void)leases_.release(lease.first);
    show_leases();
}

} // namespace icsbridge::cluster
