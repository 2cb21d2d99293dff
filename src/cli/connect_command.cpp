// File: connect_command.cpp
// connect_command(): listen on 127.0.0.1:0, print the authorization URL, wait (at most --timeout) for the
// browser to come back with our state, trade the code for tokens, store the refresh token, and answer the
// browser's page with the outcome. The code, the tokens and the verifier are never printed.
#include "cli/connect_command.hpp"

#include "app/backends.hpp"
#include "cli/check_command.hpp"
#include "cli/feed_run.hpp"
#include "net/deadline.hpp"
#include "oauth/loopback.hpp"
#include "oauth/pkce.hpp"
#include "oauth/provider.hpp"
#include "oauth/token_endpoint.hpp"
#include <icsbridge/log.hpp>
#include <icsbridge/net.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/this_coro.hpp>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace icsbridge::cli {

namespace net = boost::asio;
using oauth::RedirectVerdict;

namespace {

/** One run of the flow: what it works on. */
struct Flow {
    Config const& cfg;
    TargetConfig const& target;
    std::chrono::seconds timeout;
    HttpClient& http;
};

/** The sign-in's answer (a code or a refusal), or a verdict of kind `closed` when the time ran out. */
net::awaitable<RedirectVerdict>
wait_for_answer(oauth::LoopbackRedirect& lb, std::string state, std::chrono::seconds timeout) {
    auto ignored = [](RedirectVerdict const& v) {
        if (v.kind == RedirectVerdict::Kind::wrong_state)
            print_err("icsbridge: connect: refused an answer that is not this sign-in's (its state differs: "
                      "a stale "
                      "tab, or a page guessing the port); still waiting");
    };
    auto waiting = lb.wait(std::move(state), ignored);
    auto raced = net_detail::race_deadline(std::move(waiting), timeout, [&lb] { lb.close(); });
    auto v = co_await std::move(raced);
    if (v)
        co_return std::move(*v);
    RedirectVerdict closed;
    closed.kind = RedirectVerdict::Kind::closed;
    co_return closed;
}

/** Trades the code and stores the refresh token; the error says what failed (never a secret). */
net::awaitable<Result<void>>
trade_and_store(Flow const& f, std::string code, std::string redirect_uri, std::string verifier) {
    oauth::TargetRef const ref{f.target.name, f.cfg.path};
    auto exchange = oauth::exchange_code(
        f.http,
        f.target,
        std::move(code),
        std::move(redirect_uri),
        std::move(verifier),
        ref
    );
    auto answer = co_await std::move(exchange);
    if (!answer)
        co_return answer.error();
    if (answer->refresh_token.empty())
        co_return fail(
            errc::upstream_malformed,
            "target " + f.target.name +
                ": the token endpoint gave no refresh token (Microsoft: is offline_access allowed for the "
                "app? "
                "Google: remove the app's access in the account's security settings, then connect again)"
        );
    oauth::StoredToken t;
    t.provider = std::string(oauth::provider_name(f.target.type));
    t.client_id = f.target.client_id;
    t.scope = oauth::scope_for(f.target);
    t.refresh_token = std::move(answer->refresh_token);
    t.connected_at = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    // Where it is kept (the file; in a cluster the row too) is chosen where every keeping is.
    co_return make_backends(f.cfg, command_logger()).sign_ins(f.target.name, t);
}

/** What a refused sign-in said, fit for a terminal line. */
std::string refusal_of(RedirectVerdict const& v) {
    std::string said = loggable(v.error, 80);
    if (!v.error_description.empty())
        said += " (" + loggable(v.error_description, 300) + ")";
    return said;
}

net::awaitable<Result<void>> connect_flow(Flow const& f) {
    auto lb = oauth::LoopbackRedirect::open(co_await net::this_coro::executor);
    if (!lb)
        co_return lb.error();
    auto const redirect_uri = (*lb)->redirect_uri();
    auto const pkce = oauth::make_pkce();
    auto const state = oauth::make_state();
    std::printf(
        "Open this URL in a browser signed in to the account:\n%s\n",
        oauth::authorization_url(f.target, redirect_uri, state, pkce.challenge).c_str()
    );
    std::fflush(stdout);
    print_err(
        "icsbridge: connect: waiting up to " + std::to_string(f.timeout.count()) +
        " s for the sign-in to come back to " + redirect_uri
    );
    auto answer = co_await wait_for_answer(**lb, state, f.timeout);
    if (answer.kind == RedirectVerdict::Kind::closed)
        co_return fail(
            errc::upstream_timeout,
            "no sign-in came back to " + redirect_uri + " within " + std::to_string(f.timeout.count()) +
                " s: run connect again and open the URL it prints in a browser on this machine"
        );
    if (answer.kind == RedirectVerdict::Kind::denied) {
        auto const why = "the sign-in was refused: " + refusal_of(answer);
        auto page = (*lb)->answer(200, oauth::redirect_page("icsbridge is not connected", why));
        co_await std::move(page);
        co_return fail(errc::upstream_auth, why);
    }
    auto traded = trade_and_store(f, std::move(answer.code), redirect_uri, pkce.verifier);
    auto done = co_await std::move(traded);
    auto page = (*lb)->answer(
        200,
        done ? oauth::redirect_page(
                   "icsbridge is connected",
                   "Target " + f.target.name + " is connected; you can close this tab."
               )
             : oauth::redirect_page("icsbridge is not connected", done.error().message)
    );
    co_await std::move(page);
    co_return done;
}

net::awaitable<void> run_flow(Flow const& f, std::optional<Result<void>>& out) {
    auto flow = connect_flow(f);
    out.emplace(co_await std::move(flow));
}

/** The target connect works on, or the exit status after the message when there is none to connect. */
std::optional<int> refuse_target(Config const& cfg, Args const& args, TargetConfig const* t) {
    if (!t) {
        std::string names;
        for (auto const& [name, tc] : cfg.targets)
            names += (names.empty() ? "" : ", ") + name;
        print_err(
            "icsbridge: connect: unknown target '" + args.target + "' (targets in " + cfg.path + ": " +
            (names.empty() ? "none defined" : names) + ")"
        );
        return exit_code(errc::feed_unknown);
    }
    if (t->type == TargetType::caldav) {
        print_err(
            "icsbridge: connect: connect is for google and microsoft targets; '" + t->name +
            "' is a caldav target, which signs in with its username and password"
        );
        return exit_code(errc::usage);
    }
    return std::nullopt;
}

} // namespace

int connect_command(Config const& cfg, Args const& args) {
    TargetConfig const* t = cfg.find_target(args.target);
    if (auto refused = refuse_target(cfg, args, t))
        return *refused;
    // The target's client secret, and the database a cluster keeps the sign-in in: nothing else.
    std::vector<std::string> owners{"[targets." + t->name + "]"};
    if (cfg.cluster)
        owners.emplace_back("[cluster]");
    if (int const rc = missing_secrets_status(require_secrets(cfg, owners)); rc != 0)
        return rc;
    net::io_context ioc;
    ClientOptions opts;
    opts.service_name = std::string(oauth::provider_name(t->type)) + " token endpoint";
    opts.ca_file = t->ca_file;
    opts.max_concurrency = 1;
    HttpClient http(ioc.get_executor(), opts, command_logger());
    Flow const f{cfg, *t, args.timeout, http};
    std::optional<Result<void>> out;
    std::exception_ptr error;
    net::co_spawn(ioc, run_flow(f, out), [&](std::exception_ptr e) { error = e; });
    ioc.run();
    if (error)
        std::rethrow_exception(error);
    if (!*out) {
        print_err("icsbridge: connect: " + out->error().message);
        return exit_code(out->error().code);
    }
    std::printf(
        "connected: target %s (%s)\n",
        t->name.c_str(),
        std::string(oauth::provider_name(t->type)).c_str()
    );
    return std::fflush(stdout) == 0 ? 0 : exit_code(errc::io_error);
}

} // namespace icsbridge::cli
