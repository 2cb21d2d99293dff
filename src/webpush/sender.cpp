// File: sender.cpp
// The sender's thread: changes become pending messages in the schedule, the dispatcher starts each one when
// it falls due, and each send waits for its origin's pace, encrypts, POSTs once and files the verdict.
#include "webpush/sender.hpp"

#include "net/credential_guard.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <algorithm>
#include <exception>

namespace icsbridge::webpush {

namespace net = boost::asio;
using namespace std::chrono_literals;
using std::chrono::steady_clock;

SenderOptions default_sender_options(std::string subject, bool allow_private) {
    SenderOptions o;
    o.subject = std::move(subject);
    o.allow_private = allow_private;
    // A push service answers at once or is down: short deadlines, and the schedule retries later.
    o.http.service_name = "push service";
    o.http.resolve_timeout = 5s;
    o.http.connect_timeout = 5s;
    o.http.handshake_timeout = 5s;
    o.http.io_timeout = 10s;
    o.http.request_timeout = 15s;
    o.http.max_body = std::size_t{64} * 1024; // an answer's body is not read for anything
    o.http.max_concurrency = 16;              // per origin: FCM takes thousands over a few connections
    // Every core, but not more than a few: the sender's own thread sends, and a request or a refresh on a
    // busy machine still gets its turn.
    o.encryption_threads = std::clamp(std::thread::hardware_concurrency(), 1U, 4U);
    return o;
}

Sender::Sender(
    SenderOptions opts,
    VapidKey key,
    Registrations registrations,
    AddressRule is_public,
    WebPushCounts& counts,
    Logger log
)
    : opts_(std::move(opts))
    , registrations_(std::move(registrations))
    , counts_(counts)
    , log_(std::move(log))
    , vapid_(std::move(key), opts_.subject)
    , client_(opts_.http, std::move(is_public), opts_.allow_private, log_)
    , schedule_(opts_.policy.min_interval)
    , pace_(opts_.policy.origin_rate, opts_.policy.origin_burst)
    , encryption_(std::max(opts_.encryption_threads, 1U)) {
    for (unsigned i = 0; i < std::max(opts_.encryption_threads, 1U); ++i) {
        auto ece = Ece::make();
        if (!ece) {
            log_.error("webpush: " + ece.error().message + "; no push message can be encrypted");
            break;
        }
        spare_.push_back(std::move(*ece));
    }
    keep_.emplace(ioc_.get_executor());
    net::co_spawn(ioc_, dispatch(), [log = log_](std::exception_ptr const& e) {
        if (!e)
            return;
        try {
            std::rethrow_exception(e);
        } catch (std::exception const& ex) {
            log.error(std::string("webpush: the sender stopped: ") + ex.what());
        }
    });
    thread_ = std::thread([this] { ioc_.run(); });
}

Sender::~Sender() {
    try {
        stop();
        thread_.join();
        encryption_.join(); // its queue is empty by now: each send waited for its encryption
    } catch (...) {         // at exit, with nothing left to tell: no thread may outlive a join that threw
        if (thread_.joinable())
            thread_.detach();
    }
}

void Sender::stop() {
    encryption_off_ = true;
    net::post(ioc_, [this] {
        if (stopping_)
            return;
        stopping_ = true;
        keep_.reset();
        wake_.cancel();
        // Each send ends at its next wait; none waits past its deadline anyway. The thread ends with the
        // last.
        std::vector<std::uint64_t> flying;
        for (auto const& [n, signal] : flights_)
            flying.push_back(n);
        for (auto n : flying)
            if (auto it = flights_.find(n); it != flights_.end())
                it->second->emit(net::cancellation_type::terminal);
    });
}

void Sender::changed(std::string const& feed, std::string topic, std::string sync_token) {
    auto const at = steady_clock::now();
    net::post(ioc_, [this, feed, topic = std::move(topic), token = std::move(sync_token), at] {
        take_change(feed, topic, token, at);
    });
}

void Sender::take_change(
    std::string const& feed, std::string const& topic, std::string const& token, steady_time at
) {
    if (stopping_)
        return;
    for (auto& r : registrations_.live(feed)) {
        auto const id = r.id;
        targets_.insert_or_assign(id, Target{std::move(r), topic});
        schedule_.change(id, token, at);
    }
    wake_.cancel();
}

net::awaitable<void> Sender::dispatch() {
    while (!stopping_) {
        auto const next = schedule_.next_due();
        wake_.expires_at(next ? *next : steady_time::max());
        // Woken early (cancelled) by a change, a finished send or stop(): the loop looks again.
        (void)co_await wake_.async_wait(net::as_tuple(net::use_awaitable));
        if (stopping_)
            break;
        for (auto& due : schedule_.take_due(steady_clock::now()))
            start(std::move(due));
    }
}

void Sender::start(Due due) {
    auto const n = next_flight_++;
    auto& signal = flights_[n];
    signal = std::make_unique<net::cancellation_signal>();
    net::co_spawn(
        ioc_,
        send(std::move(due)),
        net::bind_cancellation_slot(
            signal->slot(),
            [this, n](std::exception_ptr const& e) {
                flights_.erase(n);
                if (!e || stopping_)
                    return;
                try {
                    std::rethrow_exception(e);
                } catch (std::exception const& ex) {
                    log_.error(std::string("webpush: a send failed: ") + ex.what());
                }
            }
        )
    );
}

net::awaitable<void> Sender::send(Due due) {
    co_await net::this_coro::reset_cancellation_state(net::enable_total_cancellation());
    auto it = targets_.find(due.id);
    if (it == targets_.end() || (registrations_.still_live && !registrations_.still_live(due.id))) {
        schedule_.forget(due.id);
        targets_.erase(due.id);
        co_return;
    }
    Target const target = it->second; // a copy: a change may replace the entry while this one waits
    auto const verdict = co_await deliver(target, due);
    schedule_.finished(due, verdict.fate, verdict.wait, steady_clock::now());
    if (verdict.fate == Fate::remove) {
        targets_.erase(due.id);
        registrations_.remove(due.id);
    }
    wake_.cancel(); // this registration's next message may be due now
}

net::awaitable<Verdict> Sender::deliver(Target const& target, Due const& due) {
    auto const origin = origin_of(target.to.push_resource);
    auto const origin_text = origin ? origin->text() : std::string("(no origin)");
    if (auto const wait = pace_.reserve(origin_text, steady_clock::now()); wait > wait.zero()) {
        net::steady_timer pause(ioc_, wait);
        co_await pause.async_wait(net::use_awaitable);
    }
    auto const now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    auto auth = vapid_.authorization(target.to.push_resource, now);
    auto request = Result<PreparedPush>(Error{});
    if (auth)
        request = co_await encrypted(target, due.token, std::move(*auth));
    else
        request = auth.error();
    Result<Answer> answer = Error{};
    if (request) {
        auto posting = client_.post(*request);
        answer = co_await std::move(posting);
    } else
        answer = request.error();
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Verdict verdict;
    if (answer)
        verdict = judge(opts_.policy, *answer, due.attempt, unit(rng_));
    else if (answer.error().code == errc::usage || answer.error().code == errc::io_error)
        verdict = Verdict{Fate::drop, {}, "refused here"}; // no retry cures a refused address or bad keys
    else
        verdict = judge(opts_.policy, Answer{}, due.attempt, unit(rng_));
    count(due, verdict);
    log_outcome(due, origin_text, answer, verdict);
    co_return verdict;
}

net::awaitable<Result<PreparedPush>>
Sender::encrypted(Target const& target, std::string const& token, std::string authorization) {
    auto job = [this, &target, &token, auth = std::move(authorization)](
               ) mutable -> net::awaitable<Result<PreparedPush>> {
        if (encryption_off_)
            co_return fail(errc::shutdown, "webpush: the sender is stopping");
        std::unique_lock lock(spare_mutex_);
        if (spare_.empty())
            co_return fail(errc::io_error, "webpush: OpenSSL could not set up the encryption");
        auto ece = std::move(spare_.back());
        spare_.pop_back();
        lock.unlock();
        auto request = push_request(ece, target.to, target.topic, token, std::move(auth));
        lock.lock();
        spare_.push_back(std::move(ece));
        lock.unlock();
        if (!request)
            co_return request.error();
        // The bytes on the wire too: the sender's thread only writes them.
        co_return client_.prepare(*request);
    };
    co_return co_await net::co_spawn(encryption_, std::move(job), net::use_awaitable);
}

void Sender::count(Due const& due, Verdict const& v) {
    switch (v.fate) {
    case Fate::sent:
        ++counts_.sent;
        counts_.observe_latency(std::chrono::duration<double>(steady_clock::now() - due.published).count());
        return;
    case Fate::remove:
        ++counts_.removed;
        break;
    case Fate::drop:
        ++counts_.dropped;
        break;
    case Fate::retry:
        break;
    }
    ++counts_.failed;
}

void Sender::log_outcome(
    Due const& due, std::string const& origin, Result<Answer> const& answer, Verdict const& v
) const {
    if (v.fate == Fate::sent && log_.min > LogLevel::debug)
        return; // thousands a second in a fan-out: no line made to be dropped
    // The registration by id and the push service by origin: its path is the subscription's capability.
    auto const what = "webpush: message to registration " + due.id + " at " + origin + " (attempt " +
                      std::to_string(due.attempt) + ") " +
                      (answer ? "answered " + std::to_string(answer->status) : answer.error().message);
    switch (v.fate) {
    case Fate::sent:
        log_.debug(what);
        return;
    case Fate::remove:
        log_.info(what + "; the subscription is gone, registration removed");
        return;
    case Fate::retry:
        log_.info(what + "; retrying in " + std::to_string(v.wait.count()) + " ms");
        return;
    case Fate::drop:
        log_.warn(what + "; dropped: " + std::string(v.why));
        return;
    }
}

} // namespace icsbridge::webpush
