// File: push_client.cpp
// One attempt of a push message: a kept-alive connection to the origin, or a new one to addresses resolved
// once and checked; the exchange under a whole-attempt deadline; the answer's status and Retry-After.
#include "webpush/push_client.hpp"

#include "net/deadline.hpp"
#include "net/exchange.hpp"
#include "net/http_util.hpp"
#include "util/ascii.hpp"

#include <boost/asio/this_coro.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/beast/http/write.hpp>

#include <sstream>
#include <string_view>
#include <utility>

namespace icsbridge::webpush {

namespace net = boost::asio;
namespace http = boost::beast::http;
using namespace net_detail;

/** @brief A push service's origin: its kept-alive connections and the limit on requests at once. */
struct PushClient::Origin {
    Origin(ClientOptions const& opts, Logger const& log)
        : pool(opts, log)
        , slots(opts.max_concurrency) {}
    ConnectionPool pool;
    Semaphore slots;
};

namespace {

bool has_line_break(std::string_view text) {
    return text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

/** @brief The request on the wire, in Beast's serialization: POST with the message's headers; no
 * Accept-Encoding (the answer is not read beyond its status). */
std::string wire_bytes(Target const& t, PushRequest const& req, std::string const& user_agent) {
    Request out{http::verb::post, t.target, 11};
    out.set(http::field::host, t.host_header);
    out.set(http::field::user_agent, user_agent);
    out.keep_alive(true);
    for (auto const& [name, value] : req.headers)
        out.set(name, value);
    out.body() = req.body;
    out.prepare_payload();
    std::ostringstream bytes;
    bytes << out;
    return std::move(bytes).str();
}

std::optional<std::chrono::seconds> retry_after_of(Exchange const& ex) {
    for (auto const& [name, value] : ex.headers)
        if (ascii_iequals(name, "Retry-After"))
            return parse_retry_after(value, std::chrono::system_clock::now());
    return std::nullopt;
}

} // namespace

PushClient::PushClient(ClientOptions opts, AddressRule is_public, bool allow_private, Logger log)
    : opts_(std::move(opts))
    , is_public_(std::move(is_public))
    , allow_private_(allow_private)
    , log_(std::move(log)) {
    if (!opts_.tls_contexts)
        opts_.tls_contexts = std::make_shared<TlsContexts>();
    if (!opts_.lookups)
        opts_.lookups = std::make_shared<NameLookups>();
    if (opts_.user_agent.empty())
        opts_.user_agent = std::string("icsbridge/") + ICSBRIDGE_VERSION;
}

PushClient::~PushClient() = default;

PushClient::Origin& PushClient::origin(std::string const& key) {
    auto& o = origins_[key];
    if (!o)
        o = std::make_unique<Origin>(opts_, log_);
    return *o;
}

Result<PreparedPush> PushClient::prepare(PushRequest const& req) const {
    auto parsed = parse_target(opts_.service_name, req.url);
    if (!parsed)
        return fail(errc::usage, opts_.service_name + ": a push resource must be an absolute URL");
    PreparedPush out{std::move(*parsed), {}};
    auto& t = out.target;
    t.method = "POST";
    // The path of a push resource is the subscription's capability: messages name the origin alone.
    t.display = t.key;
    if (!t.tls && !allow_private_)
        return fail(errc::usage, opts_.service_name + ": " + t.key + " is not https; refused");
    for (auto const& [name, value] : req.headers)
        if (has_line_break(name) || has_line_break(value))
            return fail(errc::usage, opts_.service_name + ": a push message's header holds a line break");
    // Formatted here, on an encryption thread: the sender's own thread only writes the bytes.
    out.bytes = wire_bytes(t, req, opts_.user_agent);
    return out;
}

net::awaitable<Result<Answer>> PushClient::post(PushRequest const& req) {
    auto prepared = prepare(req);
    if (!prepared)
        co_return prepared.error();
    co_return co_await post(*prepared);
}

net::awaitable<Result<Answer>> PushClient::post(PreparedPush const& req) {
    auto const& t = req.target;
    auto& o = origin(t.key);
    co_await o.slots.acquire();
    struct Release {
        Semaphore& s;
        ~Release() { s.release(); }
    } const release{o.slots};
    auto st = std::make_shared<AttemptState>();
    std::function<void()> on_timeout = [st] { st->abort(); };
    auto attempting = race_deadline(attempt(o, req, *st), opts_.request_timeout, on_timeout);
    auto r = co_await std::move(attempting);
    co_await throw_if_cancelled();
    if (!r) {
        st->abort();
        co_return timed_out(opts_.service_name, opts_.request_timeout, st->phase, t);
    }
    co_return std::move(*r);
}

net::awaitable<Result<Answer>> PushClient::attempt(Origin& o, PreparedPush const& req, AttemptState& st) {
    auto const& t = req.target;
    for (;;) {
        auto conn = o.pool.take_idle(t.key);
        if (!conn) {
            auto opened = co_await open_checked(o, t, st);
            if (!opened)
                co_return opened.error();
            conn = *opened;
        }
        st.conn = conn;
        st.got_response_bytes = false;
        Exchange ex = co_await exchange(*conn, std::string_view(req.bytes), opts_, st);
        if (ex.ec) {
            conn->close();
            // A kept connection the push service had closed meanwhile: once more on a new one.
            if (conn->reused && !st.got_response_bytes && is_connection_lost(ex.ec) &&
                st.phase != Phase::reading_body)
                continue;
            co_return exchange_error(opts_, t, st.phase, ex.ec);
        }
        Answer const answer{ex.status, retry_after_of(ex)};
        st.conn.reset();
        auto const ex_now = co_await net::this_coro::executor;
        o.pool.finish(std::move(conn), ex.keep_alive, ex_now);
        co_return answer;
    }
}

net::awaitable<Result<std::shared_ptr<Connection>>>
PushClient::open_checked(Origin& o, Target const& t, AttemptState& st) {
    AddressCheck const check = [this, &t](net::ip::address const& address) -> Result<void> {
        if (allow_private_ || is_public_(address))
            return {};
        return client_error(
            opts_.service_name,
            errc::usage,
            t.host + " resolves to " + address.to_string() +
                ", which is not a public address; refused (push resources must be public)"
        );
    };
    auto opening = o.pool.open(t, st, check);
    co_return co_await std::move(opening);
}

} // namespace icsbridge::webpush
