// File: sender.hpp
// WebDAV-Push delivery in `serve`: told of each change of a feed's collection, it sends a message to each of
// the feed's registrations, on a thread of its own (encrypting thousands of messages must hold up no refresh
// and no request) with a few more that only encrypt (a fan-out to thousands is bound by the encryption's
// CPU: every core helps), paced by the schedule (one message per registration per second, retries after their
// wait) and by the pace per push-service origin; 404/410 end a registration.
#pragma once

#include "webpush/delivery.hpp"
#include "webpush/ece.hpp"
#include "webpush/message.hpp"
#include "webpush/push_client.hpp"
#include <icsbridge/log.hpp>
#include <icsbridge/net.hpp>
#include <icsbridge/push_status.hpp>
#include <icsbridge/webpush.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace icsbridge::webpush {

/**
 * @brief What delivery needs of the registrations (the registration side's registry in `serve`). Called on
 * the sender's thread: each must be thread-safe.
 */
struct Registrations {
    /// The feed's live registrations, each one message per change.
    std::function<std::vector<Recipient>(std::string const& feed)> live;
    /// Whether a registration is still live (ended by DELETE, expired or revoked since: no more messages).
    std::function<bool(std::string const& id)> still_live;
    /// Ends a registration whose push service answered 404 or 410.
    std::function<void(std::string const& id)> remove;
};

struct SenderOptions {
    std::string subject; ///< `[dav] push_subject`: the VAPID `sub`
    bool allow_private = false;
    DeliveryPolicy policy;
    ClientOptions http; ///< timeouts, connections per origin (max_concurrency), the answer's size limit
    unsigned encryption_threads = 1; ///< threads that only encrypt (the sender's own does the rest)
};

/** @brief The options `serve` uses: short deadlines (a push service answers at once or is down). */
SenderOptions default_sender_options(std::string subject, bool allow_private);

class Sender {
  public:
    /** @brief Starts the thread. `counts` (in /metrics) must outlive the sender. */
    Sender(
        SenderOptions opts,
        VapidKey key,
        Registrations registrations,
        AddressRule is_public,
        WebPushCounts& counts,
        Logger log
    );
    /** @brief stop(), then waits for the thread (a message in flight is abandoned at its next wait). */
    ~Sender();
    Sender(Sender const&) = delete;
    Sender& operator=(Sender const&) = delete;

    /**
     * @brief `feed`'s collection changed: it is now at `sync_token`, under `topic`. Thread-safe; returns at
     * once (the registrations are read on the sender's thread).
     */
    void changed(std::string const& feed, std::string topic, std::string sync_token);

    /** @brief Sends nothing more. Thread-safe; idempotent. */
    void stop();

  private:
    struct Target {
        Recipient to;
        std::string topic;
    };
    void
    take_change(std::string const& feed, std::string const& topic, std::string const& token, steady_time at);
    boost::asio::awaitable<void> dispatch();
    /** @brief Spawns send(due), cancellable by stop(). */
    void start(Due due);
    boost::asio::awaitable<void> send(Due due);
    boost::asio::awaitable<Verdict> deliver(Target const& target, Due const& due);
    /** @brief push_request() and PushClient::prepare() on an encryption thread; the caller resumes on the
     * sender's. */
    boost::asio::awaitable<Result<PreparedPush>>
    encrypted(Target const& target, std::string const& token, std::string authorization);
    void count(Due const& due, Verdict const& v);
    void log_outcome(
        Due const& due, std::string const& origin, Result<Answer> const& answer, Verdict const& v
    ) const;

    SenderOptions opts_;
    Registrations registrations_;
    WebPushCounts& counts_;
    Logger log_;
    VapidCache vapid_;
    boost::asio::io_context ioc_{1};
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> keep_;
    PushClient client_;
    Schedule schedule_;
    OriginPace pace_;
    boost::asio::steady_timer wake_{ioc_};
    std::map<std::string, Target> targets_; ///< by registration id: where its pending message goes
    /// The sends in flight, each cancellable by stop()
    std::map<std::uint64_t, std::unique_ptr<boost::asio::cancellation_signal>> flights_;
    std::uint64_t next_flight_ = 0;
    std::minstd_rand rng_{std::random_device{}()};
    bool stopping_ = false;                   ///< the sender's thread's
    std::atomic<bool> encryption_off_{false}; ///< set by stop(): queued encryptions end at once
    std::mutex spare_mutex_;
    /// The encryption threads' Ece (fetched algorithms): each job takes one and puts it back. The pool never
    /// runs more jobs than it has threads, and there is one Ece per thread, so one is always spare.
    std::vector<Ece> spare_;
    boost::asio::thread_pool encryption_; ///< joined before the sender's thread ends (see ~Sender)
    std::thread thread_;                  ///< last: starts once the rest exists
};

} // namespace icsbridge::webpush
