// File: push_persistence.cpp
// push_persistence(): the state file and the cluster row of each push target; PushLeases: the lease claims of
// `icsbridge push` in a cluster, on the statement the replicas use (cluster/lease.cpp).
#include "app/push_persistence.hpp"

#include "app/row_then_file.hpp"
#include "cluster/push_state_rows.hpp"
#include "cluster/schema.hpp"
#include "push/state.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <memory>

namespace icsbridge::cli {

namespace net = boost::asio;

PersistenceFor<push::KeptState>
push_persistence(std::string const& dir, std::shared_ptr<cluster::PushStateRows> rows, Logger const& log) {
    if (!rows)
        return [dir](std::string const& target) { return push::state_file(dir, target); };
    return [dir, rows, log](std::string const& target) {
        return row_then_file<Persistence<push::KeptState>>(
            push::state_file(dir, target),
            rows,
            target,
            log,
            PersistenceWords{"push " + target, "going on from the file", "the state is on disk only: "},
            [](std::string const& json) { return push::kept(push::state_from_json(json)); },
            [](push::KeptState const& s) { return push::to_json(*s); }
        );
    };
}

std::string push_lease_name(std::string const& target) {
    return "push:" + target;
}

PushLeases::PushLeases(ClusterConfig const& cluster)
    : db_(cluster.database_url)
    , leases_(db_, cluster_node(cluster), cluster.lease) {}

Result<void> PushLeases::take(std::string const& target) {
    auto const name = push_lease_name(target);
    if (auto ready = cluster::connect_and_migrate(db_, migrated_on_); !ready)
        return fail(errc::io_error, "cannot take the lease " + name + ": " + ready.error().message);
    auto claim = leases_.claim(name);
    if (!claim)
        return fail(errc::io_error, "cannot take the lease " + name + ": " + claim.error().message);
    if (!claim->held)
        return fail(
            errc::io_error,
            "the running service pushes it (" +
                // The holder is NODE/random (cluster/lease.hpp): the node is what the user knows.
                (claim->holder.empty() ? std::string("another process")
                                       : "replica " + claim->holder.substr(0, claim->holder.find('/'))) +
                " holds the lease " + name + "); nothing written"
        );
    held_[target] = true;
    return {};
}

bool PushLeases::lost(std::string const& target) const {
    auto it = held_.find(target);
    return it == held_.end() || !it->second;
}

void PushLeases::renew() {
    for (auto& [target, held] : held_) {
        if (!held)
            continue;
        auto claim = leases_.claim(push_lease_name(target));
        // Not renewed within the lease: another replica may take it over, so this push must stop writing.
        held = claim && claim->held;
    }
}

net::awaitable<void> PushLeases::keep() {
    // The timer lives in this coroutine, not in the object: the object outlives the command's io_context,
    // and a timer must not outlive its io_context. stop() reaches it through timer_ while it exists.
    net::steady_timer timer(co_await net::this_coro::executor);
    struct Seen {
        net::steady_timer*& at;
        ~Seen() { at = nullptr; }
    } const seen{timer_ = &timer};
    while (!stopped_) {
        timer.expires_after(cluster::renew_after(leases_.lease()));
        co_await timer.async_wait(net::as_tuple(net::use_awaitable));
        if (!stopped_)
            renew();
    }
}

void PushLeases::stop() {
    stopped_ = true;
    if (timer_)
        timer_->cancel();
}

void PushLeases::release_all() {
    for (auto& [target, held] : held_)
        if (held)
            (void)leases_.release(push_lease_name(target));
    held_.clear();
}

} // namespace icsbridge::cli
