// File: backends.cpp
// make_backends(): the one place that asks whether the config runs alone or in a cluster.
#include "app/backends.hpp"

#include "app/push_persistence.hpp"
#include "cluster/connection_rows.hpp"
#include "cluster/oauth_token_rows.hpp"
#include "cluster/push_state_rows.hpp"

namespace icsbridge::cli {

Backends make_backends(Config const& cfg, Logger const& log) {
    auto const& dir = cfg.storage.dir;
    if (!cfg.cluster)
        return Backends{
            push_persistence(dir, nullptr, log),
            token_persistence(dir, nullptr, log),
            sign_in_store(dir, nullptr),
            [dir, log] { return connect::disk_connections(dir, log); }};
    // "The row first, the file as fallback" is one choice made four ways, each for a reason written where it
    // is made: the push state and the sign-ins a target reads (row_then_file.hpp: a row that cannot be
    // written is a warning, the value goes on from memory and file); a sign-in `connect` stores
    // (sign_in_store(): strict, as the person waits for it); the connections' records
    // (cluster/connection_rows.cpp: rows only); and the snapshots (cluster/cluster_snapshots.cpp: the file
    // is a cache kept as new as the row).
    auto const url = cfg.cluster->database_url;
    auto const node = cluster_node(*cfg.cluster);
    // One connection for the sign-ins, whether read by the pushes or stored by connect.
    auto const token_rows = std::make_shared<cluster::OAuthTokenRows>(url, node);
    return Backends{
        push_persistence(dir, std::make_shared<cluster::PushStateRows>(url, node), log),
        token_persistence(dir, token_rows, log),
        sign_in_store(dir, token_rows),
        [url, node, log] { return cluster::pg_connections(url, node, log); }};
}

} // namespace icsbridge::cli
