// File: target_client.cpp
// TargetClient: Basic auth from OpenSSL's base64 or an OAuth bearer, the HTTP client with its own retries
// switched off (the target's pacing retries instead, so one 429 pauses every request of the target), and
// refusal messages.
#include "push/target_client.hpp"

#include <icsbridge/duration.hpp>

#include <boost/algorithm/string/predicate.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <random>

namespace icsbridge::push {

namespace net = boost::asio;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

std::optional<milliseconds> push_retry_wait(
    int attempt, unsigned status, std::optional<std::chrono::seconds> retry_after, double jitter
) {
    bool const throttled = status == 429 || status >= 500 || status == 0;
    if (!throttled || status == 501 || status == 505 || status == 507 || attempt >= push_attempts)
        return std::nullopt;
    // No answer at all: a server that is down is said so in seconds, not after a minute of backoff.
    if (status == 0 && attempt >= push_transport_attempts)
        return std::nullopt;
    if (retry_after) {
        // A wait of hours would hold the target's loop (or a cron job's push) for nothing: next period.
        if (*retry_after > push_longest_wait)
            return std::nullopt;
        return std::max<milliseconds>(*retry_after, std::chrono::seconds(1));
    }
    milliseconds const base =
        std::min<milliseconds>(std::chrono::seconds(1) * (1 << (attempt - 1)), std::chrono::seconds(60));
    return base + milliseconds(static_cast<long long>(static_cast<double>(base.count()) * jitter / 2));
}

std::string basic_authorization(std::string_view user, std::string_view password) {
    std::string const plain = std::string(user) + ":" + std::string(password);
    std::string out(4 * ((plain.size() + 2) / 3) + 1, '\0');
    int const n = EVP_EncodeBlock(
        reinterpret_cast<unsigned char*>(out.data()),
        reinterpret_cast<unsigned char const*>(plain.data()),
        static_cast<int>(plain.size())
    );
    out.resize(static_cast<std::size_t>(n));
    return "Basic " + out;
}

std::string resolve_href(std::string const& base, std::string_view ref) {
    auto b = boost::urls::parse_uri(base);
    auto r = boost::urls::parse_uri_reference(ref);
    if (!b || !r)
        return std::string(ref);
    boost::urls::url out;
    if (!boost::urls::resolve(*b, *r, out))
        return std::string(ref);
    return std::string(out.buffer());
}

namespace {

std::string_view kind_of(TargetType t) {
    switch (t) {
    case TargetType::google:
        return "Google Calendar";
    case TargetType::microsoft:
        return "Microsoft 365";
    case TargetType::caldav:
        break;
    }
    return "CalDAV";
}

ClientOptions options_for(TargetConfig const& t) {
    ClientOptions o;
    o.service_name = std::string(kind_of(t.type)) + " target " + t.name;
    o.max_concurrency = t.max_concurrency;
    o.ca_file = t.ca_file;
    o.max_body = t.max_response;
    o.max_body_key = "[targets." + t.name + "] max_response";
    o.retry.max_attempts = 1; // TargetClient::send retries, for the whole target at once
    return o;
}

/**
 * CalDAV's password may follow the server's hrefs across its registrable domain (iCloud's); an OAuth access
 * token goes to the API's own origin only.
 */
CredentialGuard guard_for(TargetConfig const& t) {
    if (t.type == TargetType::caldav)
        return CredentialGuard(t.name, t.url, CredentialGuard::Reach::registrable_domain);
    return CredentialGuard(t.name, t.api_base, CredentialGuard::Reach::origin);
}

/** A body's type when the caller gave none: CalDAV's PUT sends iCalendar, its other methods XML. */
void add_content_type(std::string const& method, std::string const& body, Headers& headers) {
    bool const typed = std::any_of(headers.begin(), headers.end(), [](auto const& h) {
        return boost::algorithm::iequals(h.first, "Content-Type");
    });
    if (!typed && !body.empty() && method != "DELETE")
        headers.emplace_back(
            "Content-Type",
            method == "PUT" ? "text/calendar; charset=utf-8" : "application/xml; charset=utf-8"
        );
}

} // namespace

Authorizer fixed_authorization(std::string header) {
    Authorizer a;
    a.authorization = [header = std::move(header)]() -> net::awaitable<Result<std::string>> {
        co_return header;
    };
    return a;
}

TargetClient::TargetClient(net::any_io_executor ex, TargetConfig const& target, Logger log)
    : TargetClient(
          std::move(ex),
          target,
          std::move(log),
          fixed_authorization(basic_authorization(target.username, target.password)),
          {}
      ) {}

TargetClient::TargetClient(
    net::any_io_executor ex, TargetConfig const& target, Logger log, Authorizer auth, SlowDownTest slow_down
)
    : name_(target.name)
    , guard_(guard_for(target))
    , auth_(std::move(auth))
    , slow_down_(std::move(slow_down))
    , http_(std::move(ex), options_for(target), log)
    , rate_(target.rate)
    , log_(std::move(log)) {}

unsigned TargetClient::judged_status(Result<HttpResponse> const& answer) const {
    if (!answer)
        return 0;
    if (slow_down_ && slow_down_(*answer))
        return 429;
    return answer->status;
}

net::awaitable<bool> TargetClient::wait_for_turn(bool use_held) {
    net::steady_timer timer(co_await net::this_coro::executor);
    for (;;) {
        auto const now = steady_clock::now();
        if (paused_until_ > now) {
            timer.expires_at(paused_until_);
            co_await timer.async_wait(net::use_awaitable);
            continue;
        }
        if (use_held && held_ > 0) { // taken ahead by hold_turn(): its rate and gate were passed then
            --held_;
            co_return true;
        }
        auto const wait = rate_.try_take(now);
        if (wait <= steady_clock::duration::zero())
            break;
        timer.expires_after(wait);
        co_await timer.async_wait(net::use_awaitable);
    }
    if (!gate_)
        co_return true;
    auto passing = gate_();
    co_return co_await std::move(passing);
}

net::awaitable<bool> TargetClient::hold_turn() {
    auto waiting = wait_for_turn(false); // a turn of its own, not one another write holds
    if (!co_await std::move(waiting))
        co_return false;
    ++held_;
    co_return true;
}

net::awaitable<Result<HttpResponse>>
TargetClient::send(std::string method, std::string url, std::string body, Headers headers) {
    thread_local std::minstd_rand rng{std::random_device{}()};
    add_content_type(method, body, headers);
    if (!auth_.authorization)
        co_return fail(errc::upstream_auth, name_ + ": the target has no credentials to send");
    if (auto allowed = guard_.check(url); !allowed)
        co_return allowed.error();
    bool refreshed = false;
    for (int attempt = 1;; ++attempt) {
        auto waiting = wait_for_turn(true);
        if (!co_await std::move(waiting))
            co_return fail(errc::shutdown, name_ + ": stopped while waiting for the shared request budget");
        auto authorizing = auth_.authorization();
        auto authorization = co_await std::move(authorizing);
        if (!authorization)
            co_return authorization.error();
        HttpRequest req(url, headers);
        req.headers.emplace_back("Authorization", std::move(*authorization));
        req.method = method;
        req.body = body;
        ++requests_;
        auto answer = co_await http_.request(std::move(req));
        // An access token that expired early or was revoked: one fresh token, at once, then the 401 stands.
        if (answer && answer->status == 401 && auth_.rejected && !refreshed) {
            auth_.rejected();
            refreshed = true;
            --attempt;
            continue;
        }
        auto const status = judged_status(answer);
        if (answer && status < 400 && status != 0)
            co_return answer;
        std::optional<std::chrono::seconds> retry_after;
        if (answer)
            if (auto ra = answer->header("Retry-After"); !ra.empty())
                retry_after = parse_retry_after(ra, std::chrono::system_clock::now());
        if (!answer && answer.error().code == errc::shutdown)
            co_return answer;
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        auto const wait = push_retry_wait(attempt, status, retry_after, unit(rng));
        if (!wait ||
            (!answer && answer.error().code != errc::upstream_connect &&
             answer.error().code != errc::upstream_timeout && answer.error().code != errc::upstream_io))
            co_return answer;
        // Everyone waits: a server that throttles one request throttles the target.
        paused_until_ = std::max(paused_until_, steady_clock::now() + *wait);
        log_.warn(
            "push " + name_ + ": " + method + " " + redact_url(url) + " " +
            (answer ? "answered " + std::to_string(answer->status) : "failed: " + answer.error().message) +
            "; every request to the target waits " + format_duration(*wait) + " (try " +
            std::to_string(attempt + 1) + " of " + std::to_string(push_attempts) + ")"
        );
    }
}

Error refusal(std::string_view target, std::string_view method, std::string_view url, HttpResponse const& r) {
    std::string const head = std::string(target) + ": " + std::to_string(r.status) + " from " +
                             std::string(method) + " " + redact_url(url) + ": ";
    switch (r.status) {
    case 401:
        return fail(
            errc::upstream_auth,
            head + "the server refused the credentials; check username and the password (password, " +
                "password_env or password_file of [targets." + std::string(target) + "])"
        );
    case 403:
        return fail(
            errc::upstream_auth,
            head + "the account may not do this; check its rights on the calendar"
        );
    case 404:
        return fail(errc::upstream_not_found, head + "no such resource; check the target's url and calendar");
    case 429:
    case 503:
        return fail(
            errc::upstream_rate_limited,
            head + "the server is throttling or unavailable" +
                (r.header("Retry-After").empty()
                     ? std::string()
                     : " (Retry-After: " + loggable(r.header("Retry-After"), 40) + ")") +
                "; trying again next period"
        );
    case 507:
        return fail(errc::upstream_status, head + "the account is over its quota (507 Insufficient Storage)");
    case 409:
        return fail(
            errc::upstream_status,
            head + "the calendar already holds an item with this UID under another name (imported by hand?); "
                   "remove that copy to let icsbridge keep it up to date"
        );
    default:
        return fail(errc::upstream_status, head + "unexpected answer");
    }
}

} // namespace icsbridge::push
