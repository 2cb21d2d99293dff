// File: connections.hpp
// Connections: the subscribers' own calendars kept in sync (issue 27). Owns the records' store and the key
// that seals their refresh tokens, hands the push service one target per live connection, stops those whose
// feed link was revoked or whose sign-in can no longer be read, and writes back what the person's page
// shows. Its store calls run on a thread of its own: no HTTP thread waits for a disk or a database.
#pragma once

#include "connect/connect_key.hpp"
#include "connect/connection_store.hpp"
#include "push/push_service.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/push_status.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace icsbridge::connect {

/** @brief The push target name of a connection: its state file, its lease, its status entry. */
std::string target_name(std::string_view connection_id);

/** @brief "reconnect needed: …", the words a person's page shows for a sign-in that cannot be used. */
inline constexpr std::string_view reconnect_needed = "reconnect needed";

/**
 * @brief Why a connection is not pushed under `cfg` (empty: it is): its feed is gone, or the feed's token it
 * was made with was revoked, or [connect] no longer offers its provider, or `key` cannot open its sign-in.
 */
std::string stop_reason(Connection const& c, Config const& cfg, ConnectKey const& key);

/** @brief The connection's push target under `cfg` (the provider's settings, the feed's calendar name). */
push::ConnectionTarget connection_target(Connection const& c, ConnectConfig const& connect);

/** @brief The sign-in of connection `id` for the push adapters: its refresh token opened from the store
 * when needed, a rotated one sealed and written back. */
push::Authorizer make_authorizer(
    boost::asio::any_io_executor ex,
    std::shared_ptr<ConnectionStore> store,
    ConnectKey const& key,
    TargetConfig const& target,
    std::string const& id,
    Logger const& log,
    std::shared_ptr<TlsContexts> tls
);

class Connections {
  public:
    /**
     * @param cfg the config in force (must have [connect]); @param push must outlive this; @param status
     * the connections' registry the push service writes; @param keeping where push states live (removed on
     * a disconnect); @param poll in a cluster, how often the records are read again (others add and remove
     * them); zero on one box, where every change is made here.
     */
    Connections(
        std::shared_ptr<Config const> cfg,
        ConnectKey key,
        std::unique_ptr<ConnectionStore> store,
        push::PushService& push,
        PushStatus& status,
        PersistenceFor<push::KeptState> keeping,
        Logger log,
        std::chrono::seconds poll
    );
    ~Connections();
    Connections(Connections const&) = delete;
    Connections& operator=(Connections const&) = delete;

    /** @brief A reload: the rate, the providers, and which connections a revoked token now stops. */
    void configure(std::shared_ptr<Config const> cfg);

    ConnectKey const& key() const { return key_; }
    /** @brief Whether new sign-ins are taken (not when the key file could not be read). */
    bool accepting() const { return accepting_; }
    void set_accepting(bool yes) { accepting_ = yes; }

    /** @brief Single use of a sign-in's state: true the first time. */
    boost::asio::awaitable<Result<bool>> claim(std::string nonce, sys_seconds expires);
    /** @brief Stores a new connection (its refresh token sealed here) and starts pushing it. */
    boost::asio::awaitable<Result<void>> add(Connection c, std::string refresh_token);
    /** @brief The connection `id` when `key` is its management key (compared in constant time); else none. */
    boost::asio::awaitable<Result<std::optional<Connection>>> find(std::string id, std::string key);
    /** @brief The refresh token of `c` in clear (for the revocation); errc::not_connected when unreadable. */
    Result<std::string> refresh_token(Connection const& c) const;
    /** @brief The sign-in of `c` as the push adapters use it (its tokens; a rotated one sealed and kept). */
    push::Authorizer authorizer(boost::asio::any_io_executor ex, Connection const& c) const;
    /** @brief The push target of `c` under the config in force; nullopt when its provider is not offered. */
    std::optional<TargetConfig> target_of(Connection const& c) const;
    /** @brief Where `c`'s push state is kept (the calendar it created is named there). */
    Persistence<push::KeptState> state_of(Connection const& c) const { return keeping_(target_name(c.id)); }
    /**
     * @brief Whether another connection of `c`'s provider writes into `collection` (one that connected before
     * calendars were told apart, and found this one by its name). The own thread's.
     */
    bool shares_calendar(Connection const& c, std::string const& collection) const;
    /** @brief Stops pushing `c` now (before a disconnect deletes its calendar). */
    void stop_pushing(Connection const& c) { push_.drop_connection(target_name(c.id)); }
    /** @brief Stops pushing `c` and forgets it (its record, push state). */
    boost::asio::awaitable<Result<void>> remove(Connection c);
    /** @brief Where the counts /metrics and /healthz show are kept (must outlive this). */
    void count_into(ConnectionCounts& counts) { counts_ = &counts; }
    /** @brief The executor store calls run on (tests). */
    boost::asio::any_io_executor executor() { return ioc_.get_executor(); }

  private:
    template <class T, class Fn>
    boost::asio::awaitable<T> on_own_thread(Fn fn);
    void sync();
    void write_back();
    void count(std::vector<TargetStatus> const& statuses);
    void tick();
    void offer();

    mutable std::mutex mtx_;
    std::shared_ptr<Config const> cfg_; ///< under mtx_: read by HTTP threads too
    ConnectKey key_;
    std::atomic<bool> accepting_{true};
    std::shared_ptr<ConnectionStore> store_; ///< shared with the push thread's token keeping
    /// The token clients' TLS contexts, one per ca_file for every connection
    std::shared_ptr<TlsContexts> tls_ = std::make_shared<TlsContexts>();
    push::PushService& push_;
    PushStatus& status_;
    PersistenceFor<push::KeptState> keeping_;
    Logger log_;
    std::chrono::seconds poll_;
    std::optional<std::uint64_t> generation_;        ///< own thread's: the store's when last listed
    std::map<std::string, Connection> known_;        ///< own thread's: the records as last listed
    std::map<std::string, TargetStatus> written_;    ///< own thread's: the status last written back
    std::map<std::string, std::uint64_t> requests_;  ///< own thread's: each loop's request count last seen
    std::atomic<ConnectionCounts*> counts_{nullptr}; ///< set once, read by the own thread
    boost::asio::io_context ioc_{1};
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> keep_;
    boost::asio::steady_timer timer_{ioc_};
    std::thread thread_; ///< last: starts once the rest exists
};

} // namespace icsbridge::connect
