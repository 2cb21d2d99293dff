// File: connections.cpp
// Connections: the records' own thread (store calls, the periodic sync and write-back) and what makes a
// record a push target (its provider's settings, its sealed sign-in opened on demand).
#include "connect/connections.hpp"

#include "connect/flow_state.hpp"
#include "oauth/provider.hpp"
#include "oauth/token_source.hpp"
#include "util/run_on.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace icsbridge::connect {

namespace net = boost::asio;

namespace {

constexpr std::string_view token_purpose = "token";

/** Whether the feed still lets in the token the connection was made with. */
bool token_still_valid(Connection const& c, FeedConfig const& feed) {
    if (feed.is_public())
        return true;
    if (!feed.token.empty() && same_secret(secret_hash(feed.token), c.token_hash))
        return true;
    for (auto const& [who, secret] : feed.tokens)
        if (same_secret(secret_hash(secret), c.token_hash))
            return true;
    return false;
}

/** The words of a push failure as the person's page shows them: never the operator's command line. */
std::string for_the_person(std::string const& why) {
    if (why.find("icsbridge connect") != std::string::npos || why.find("not connected") != std::string::npos)
        return std::string(reconnect_needed) +
               ": the sign-in was revoked or has expired; connect again from the feed's page";
    return why;
}

bool same_status(TargetStatus const& a, TargetStatus const& b) {
    return a.last_success == b.last_success && a.last_failure == b.last_failure &&
           a.last_error == b.last_error && a.items == b.items;
}

} // namespace

std::string target_name(std::string_view connection_id) {
    return "connection-" + std::string(connection_id);
}

std::string stop_reason(Connection const& c, Config const& cfg, ConnectKey const& key) {
    if (!cfg.connect)
        return "the server no longer offers connected calendars";
    bool const google = c.provider == "google";
    if (!(google ? cfg.connect->google : cfg.connect->microsoft))
        return "the server no longer offers " + std::string(google ? "Google" : "Microsoft") + " calendars";
    auto const* feed = cfg.find_feed(c.feed);
    if (!feed)
        return "the feed is no longer offered";
    if (!token_still_valid(c, *feed))
        return "the feed link this calendar was connected with was revoked";
    if (!key.open(token_purpose, c.sealed_token, c.id))
        return std::string(reconnect_needed) +
               ": the server's connect key changed, so your sign-in can no longer be read; connect again "
               "from the feed's page";
    return {};
}

push::ConnectionTarget connection_target(Connection const& c, ConnectConfig const& connect) {
    TargetConfig t = c.provider == "google" ? *connect.google : *connect.microsoft;
    t.name = target_name(c.id);
    t.calendar = c.calendar;
    t.calendar_id.clear();
    t.rate = Budget{}; // the shared budget paces every connection
    t.max_concurrency = connect.max_concurrency;
    return push::ConnectionTarget{std::move(t), push::Mirrored{c.feed, c.view}, {}};
}

Connections::Connections(
    std::shared_ptr<Config const> cfg,
    ConnectKey key,
    std::unique_ptr<ConnectionStore> store,
    push::PushService& push,
    PushStatus& status,
    PersistenceFor<push::KeptState> keeping,
    Logger log,
    std::chrono::seconds poll
)
    : cfg_(std::move(cfg))
    , key_(std::move(key))
    , store_(std::move(store))
    , push_(push)
    , status_(status)
    , keeping_(std::move(keeping))
    , log_(std::move(log))
    , poll_(poll)
    , keep_(ioc_.get_executor())
    , thread_([this] { ioc_.run(); }) {
    net::post(ioc_, [this] { tick(); });
}

Connections::~Connections() {
    try {
        net::post(ioc_, [this] {
            timer_.cancel();
            keep_.reset();
        });
        if (thread_.joinable())
            thread_.join();
    } catch (...) { // at exit: nothing is left to tell, and the thread must not outlive a join that threw
        if (thread_.joinable())
            thread_.detach();
    }
}

void Connections::configure(std::shared_ptr<Config const> cfg) {
    {
        std::lock_guard lock(mtx_);
        cfg_ = std::move(cfg);
    }
    net::post(ioc_, [this] { offer(); });
}

namespace {

/** `fn()` as a coroutine: a parameter, so it lives in the coroutine's frame (a lambda's captures would not).
 */
template <class T, class Fn>
net::awaitable<T> call(Fn fn) {
    co_return fn();
}

} // namespace

template <class T, class Fn>
net::awaitable<T> Connections::on_own_thread(Fn fn) {
    co_return co_await run_on(ioc_.get_executor(), call<T>(std::move(fn)));
}

net::awaitable<Result<bool>> Connections::claim(std::string nonce, sys_seconds expires) {
    auto claiming = on_own_thread<Result<bool>>([this, nonce = std::move(nonce), expires] {
        return store_->claim(nonce, expires);
    });
    co_return co_await std::move(claiming);
}

net::awaitable<Result<void>> Connections::add(Connection c, std::string refresh_token) {
    c.sealed_token = key_.seal(token_purpose, refresh_token, c.id);
    auto adding = on_own_thread<Result<void>>([this, c = std::move(c)]() -> Result<void> {
        if (auto put = store_->put(c); !put)
            return put;
        known_[c.id] = c;
        offer();
        return {};
    });
    co_return co_await std::move(adding);
}

net::awaitable<Result<std::optional<Connection>>> Connections::find(std::string id, std::string key) {
    if (!valid_connection_id(id))
        co_return std::optional<Connection>{};
    auto finding = on_own_thread<Result<std::optional<Connection>>>(
        [this, id = std::move(id), key = std::move(key)]() -> Result<std::optional<Connection>> {
            auto c = store_->get(id);
            if (!c || !*c)
                return c;
            if (!same_secret((*c)->key_hash, secret_hash(key)))
                return std::optional<Connection>{};
            return c;
        }
    );
    co_return co_await std::move(finding);
}

net::awaitable<Result<void>> Connections::remove(Connection c) {
    push_.drop_connection(target_name(c.id));
    auto removing = on_own_thread<Result<void>>([this, id = c.id]() -> Result<void> {
        auto gone = store_->remove(id);
        if (!gone)
            return gone.error();
        known_.erase(id);
        written_.erase(target_name(id));
        offer();
        return {};
    });
    co_return co_await std::move(removing);
}

bool Connections::shares_calendar(Connection const& c, std::string const& collection) const {
    for (auto const& [id, other] : known_) {
        if (id == c.id || other.provider != c.provider)
            continue;
        if (auto s = keeping_(target_name(id)).load(); s && (*s)->collection == collection)
            return true;
    }
    return false;
}

Result<std::string> Connections::refresh_token(Connection const& c) const {
    return key_.open(token_purpose, c.sealed_token, c.id);
}

std::optional<TargetConfig> Connections::target_of(Connection const& c) const {
    std::lock_guard lock(mtx_);
    if (!cfg_->connect || !(c.provider == "google" ? cfg_->connect->google : cfg_->connect->microsoft))
        return std::nullopt;
    return connection_target(c, *cfg_->connect).target;
}

push::Authorizer make_authorizer(
    net::any_io_executor ex,
    std::shared_ptr<ConnectionStore> store,
    ConnectKey const& key,
    TargetConfig const& target,
    std::string const& id,
    Logger const& log,
    std::shared_ptr<TlsContexts> tls
) {
    // The push thread reads and rotates the sign-in through the store itself.
    Persistence<std::optional<oauth::StoredToken>, oauth::StoredToken> keeping;
    keeping.load = [store, key, id]() -> Result<std::optional<oauth::StoredToken>> {
        auto rec = store->get(id);
        if (!rec)
            return rec.error();
        if (!*rec)
            return std::optional<oauth::StoredToken>{};
        auto refresh = key.open(token_purpose, (*rec)->sealed_token, id);
        if (!refresh)
            return refresh.error();
        return std::optional<oauth::StoredToken>{oauth::StoredToken{
            (*rec)->provider,
            (*rec)->client_id,
            (*rec)->scope,
            std::move(*refresh),
            (*rec)->created_at}};
    };
    keeping.save = [store, key, id](oauth::StoredToken const& t) -> Result<void> {
        auto rec = store->get(id);
        if (!rec)
            return rec.error();
        if (!*rec)
            return Result<void>{}; // disconnected meanwhile: nothing to keep
        (*rec)->sealed_token = key.seal(token_purpose, t.refresh_token, id);
        return store->put(**rec);
    };
    auto held = std::make_shared<oauth::HeldTokens>(std::move(ex), target, std::string(), keeping, log);
    held->http.share_tls(std::move(tls));
    push::Authorizer a;
    a.authorization = [held] { return oauth::authorize_with(held); };
    a.rejected = [held] { held->tokens.rejected(); };
    return a;
}

push::Authorizer Connections::authorizer(net::any_io_executor ex, Connection const& c) const {
    auto target = target_of(c);
    if (!target)
        return {};
    return make_authorizer(std::move(ex), store_, key_, *target, c.id, log_, tls_);
}

void Connections::tick() {
    sync();
    write_back();
    timer_.expires_after(
        poll_.count() > 0 ? std::min<std::chrono::seconds>(poll_, std::chrono::seconds(5))
                          : std::chrono::seconds(5)
    );
    timer_.async_wait([this](boost::system::error_code const& ec) {
        if (!ec)
            tick();
    });
}

void Connections::sync() {
    // On one box every change is made here; in a cluster another replica's show in the store's generation.
    if (generation_ && poll_.count() == 0)
        return;
    auto g = store_->generation();
    if (!g) {
        log_.warn("connections: cannot read their records: " + g.error().message);
        return;
    }
    if (generation_ == *g)
        return;
    auto all = store_->list();
    if (!all) {
        log_.warn("connections: cannot read their records: " + all.error().message);
        return;
    }
    generation_ = *g;
    known_.clear();
    for (auto& c : *all)
        known_.emplace(c.id, std::move(c));
    offer();
}

void Connections::offer() {
    std::shared_ptr<Config const> cfg;
    {
        std::lock_guard lock(mtx_);
        cfg = cfg_;
    }
    std::vector<push::ConnectionTarget> targets;
    targets.reserve(known_.size());
    for (auto& [id, c] : known_) {
        auto why = stop_reason(c, *cfg, key_);
        if (!why.empty()) {
            if (!c.stopped || c.last_error != why) {
                c.stopped = true;
                c.last_error = why;
                (void)store_->put_status(c);
            }
            continue;
        }
        if (c.stopped) { // the cause went away (the key or the token came back)
            c.stopped = false;
            c.last_error.clear();
            (void)store_->put_status(c);
        }
        auto t = connection_target(c, *cfg->connect);
        // Made on the push thread when the loop starts: nothing of `this`, which may be gone by then.
        t.authorizer = [store = store_, key = key_, target = t.target, id = c.id, log = log_, tls = tls_](
                           net::any_io_executor ex
                       ) { return make_authorizer(std::move(ex), store, key, target, id, log, tls); };
        targets.push_back(std::move(t));
    }
    push_.set_connections(std::move(targets), cfg->connect ? cfg->connect->rate : Budget{});
}

void Connections::write_back() {
    // What the person's page shows lives with the record, so any replica can show it.
    auto const statuses = status_.snapshot();
    for (auto const& s : statuses) {
        if (s.reconciles == 0)
            continue;
        auto w = written_.find(s.name);
        if (w != written_.end() && same_status(w->second, s))
            continue;
        auto const id = s.name.substr(target_name("").size());
        auto k = known_.find(id);
        if (k == known_.end())
            continue;
        k->second.last_success = s.last_success;
        k->second.last_failure = s.last_failure;
        k->second.last_error = for_the_person(s.last_error);
        k->second.items = s.items;
        if (auto put = store_->put_status(k->second); put)
            written_[s.name] = s;
    }
    count(statuses);
}

void Connections::count(std::vector<TargetStatus> const& statuses) {
    auto* counts = counts_.load();
    if (!counts)
        return;
    std::size_t in_sync = 0, failing = 0, stopped = 0;
    for (auto const& [id, c] : known_) {
        if (c.stopped)
            ++stopped;
        else if (!c.last_error.empty())
            ++failing;
        else if (c.last_success)
            ++in_sync;
    }
    // A counter never goes back: each loop's new requests are added, a loop gone takes nothing away.
    std::uint64_t added = 0;
    for (auto const& s : statuses) {
        auto& seen = requests_[s.name];
        added += s.requests >= seen ? s.requests - seen : s.requests;
        seen = s.requests;
    }
    counts->enabled = true;
    counts->total = known_.size();
    counts->in_sync = in_sync;
    counts->failing = failing;
    counts->stopped = stopped;
    counts->requests += added;
}

} // namespace icsbridge::connect
