// File: pg.cpp
// PgConnection: connect with a deadline, run parameterised statements, reset a broken connection once.
#include "cluster/pg.hpp"

#include "util/libpq_loader.hpp"
#include <icsbridge/config.hpp>

#include <poll.h>

#include <cerrno>
#include <cstring>

namespace icsbridge::cluster {

namespace {

using steady = std::chrono::steady_clock;

/** Waits until the socket is ready for `events` or `deadline` passes: false on the deadline or an error. */
bool wait_socket(int fd, short events, steady::time_point deadline) {
    for (;;) {
        auto const left = std::chrono::ceil<std::chrono::milliseconds>(deadline - steady::now());
        if (left.count() <= 0 || fd < 0)
            return false;
        pollfd p{fd, events, 0};
        int const rc = ::poll(&p, 1, static_cast<int>(left.count()));
        if (rc > 0)
            return true;
        if (rc == 0 || errno != EINTR)
            return false;
    }
}

/**
 * libpq's message as one log line: its lines joined with "; ", without the LINE n: excerpt of the SQL and
 * the caret under it that a statement's error carries (of no use in a log, and a break in it).
 */
std::string one_line(std::string_view why) {
    std::string out;
    while (!why.empty()) {
        auto const nl = why.find('\n');
        auto line = why.substr(0, nl);
        why = nl == std::string_view::npos ? std::string_view{} : why.substr(nl + 1);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
            line.remove_suffix(1);
        if (line.empty() || line.starts_with("LINE ") ||
            line.find_first_not_of('^') == std::string_view::npos)
            continue;
        if (!out.empty())
            out += "; ";
        out += line;
    }
    return out;
}

} // namespace

std::optional<std::int64_t> PgRow::int8(int col) const {
    if (is_null(col) || PQgetlength(res, row, col) != 8)
        return std::nullopt;
    auto const* p = reinterpret_cast<unsigned char const*>(PQgetvalue(res, row, col));
    // Binary format is network byte order.
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v = (v << 8) | p[i];
    return static_cast<std::int64_t>(v);
}

PgConnection::PgConnection(std::string url, std::chrono::milliseconds answer_within)
    : PgConnection(std::make_shared<PgServer>(std::move(url)), answer_within) {}

PgConnection::PgConnection(std::shared_ptr<PgServer> server, std::chrono::milliseconds answer_within)
    : server_(std::move(server))
    , answer_within_(answer_within) {}

bool PgConnection::connected() const {
    return conn_ && PQstatus(conn_.get()) == CONNECTION_OK;
}

namespace {

/** A new connection to `url` with our defaults under it (never null unless libpq is out of memory). */
PgConnPtr connect_with_defaults(std::string const& url) {
    // Our defaults come first so that the URL's own values override them: a bounded connect (the
    // control thread waits for it), statements the server ends before our own deadline does, and TCP
    // keepalives, so that a firewall or NAT between us and the server does not drop an idle connection
    // (the LISTEN one is idle for as long as no peer publishes) and a dead one is noticed by the kernel.
    char const* keys[] = {
        "connect_timeout",
        "application_name",
        "options",
        "keepalives",
        "keepalives_idle",
        "keepalives_interval",
        "keepalives_count",
        "dbname",
        nullptr};
    char const* values[] = {
        "5",
        "icsbridge",
        "-c statement_timeout=8000",
        "1",
        "30",
        "10",
        "3",
        url.c_str(),
        nullptr};
    PgConnPtr conn(PQconnectdbParams(keys, values, 1));
    // libpq prints server notices ("relation ... already exists, skipping") to stderr, around our
    // log. Set on the PGconn itself, even one that failed: PQreset() keeps it.
    if (conn)
        PQsetNoticeProcessor(
            conn.get(),
            [](void*, char const*) {},
            nullptr
        );
    return conn;
}

} // namespace

std::string PgConnection::where() const {
    return "database " + mask_database_url(server_->url());
}

Error PgConnection::error(std::string const& what) const {
    return error(what, conn_ ? PQerrorMessage(conn_.get()) : "no connection");
}

Error PgConnection::error(std::string const& what, std::string why) const {
    why = one_line(why);
    // libpq messages name host and user, not the password; scrub it anyway in case a future one does.
    return fail(errc::io_error, where() + ": " + what + ": " + scrub_database_password(why, server_->url()));
}

Result<void> PgConnection::ensure() {
    // Another connection to the server waited out its deadline for nothing: this one most likely leads to
    // the same silence, so start afresh now rather than find out by waiting as long.
    if (auto const n = server_->silences(); n != silences_seen_) {
        silences_seen_ = n;
        // Never inside a transaction: its next statement would run outside it. Its own deadline applies.
        if (conn_ && PQtransactionStatus(conn_.get()) == PQTRANS_IDLE)
            conn_.reset();
    }
    if (connected())
        return {};
    if (conn_) {
        // The same parameters again: a failed reset is not followed by a fresh connect, which would only
        // wait connect_timeout a second time for a database that is away.
        PQreset(conn_.get());
    } else {
        if (auto lib = libpq_loaded(); !lib)
            return fail(errc::io_error, where() + ": " + lib.error().message);
        conn_ = connect_with_defaults(server_->url());
    }
    if (!connected())
        return error("cannot connect");
    // Non-blocking, so that sending a large row to a server that stopped reading waits in poll(), under
    // the statement's deadline, not in a write() without one.
    if (PQsetnonblocking(conn_.get(), 1) != 0)
        return error("cannot switch the connection to non-blocking mode");
    ++connects_;
    return {};
}

Result<PgResultPtr>
PgConnection::run_once(std::string const& sql, std::vector<PgParam> const& params, bool binary) {
    std::vector<char const*> values;
    std::vector<int> lengths;
    std::vector<int> formats;
    for (auto const& p : params) {
        values.push_back(p.null ? nullptr : p.value.data());
        lengths.push_back(static_cast<int>(p.value.size()));
        formats.push_back(p.binary ? 1 : 0);
    }
    if (!PQsendQueryParams(
            conn_.get(),
            sql.c_str(),
            static_cast<int>(params.size()),
            nullptr,
            values.data(),
            lengths.data(),
            formats.data(),
            binary ? 1 : 0
        ))
        return error("statement failed");
    return await_results("statement failed");
}

Result<PgResultPtr> PgConnection::await_results(std::string const& what) {
    PGconn* c = conn_.get();
    auto const deadline = steady::now() + answer_within_;
    auto give_up = [&] {
        // A server that stopped answering (SIGSTOP, a partition, a full disk) would hold the control thread
        // for as long as TCP retries; dropping the connection ends the statement on both sides.
        conn_.reset();
        server_->went_silent();
        silences_seen_ = server_->silences();
        return fail(
            errc::io_error,
            where() + ": " + what + ": no answer within " + std::to_string(answer_within_.count()) +
                " ms; the connection is closed and opened again on the next call"
        );
    };
    // Send what libpq still holds (non-blocking mode): wait for room, reading meanwhile as the docs ask.
    for (int pending; (pending = PQflush(c)) != 0;) {
        if (pending < 0)
            return error(what);
        if (!wait_socket(PQsocket(c), POLLIN | POLLOUT, deadline))
            return give_up();
        if (PQconsumeInput(c) == 0)
            return error(what);
    }
    // Every result of the statement (several for a multi-statement exec()); the first error wins.
    PgResultPtr last;
    std::optional<std::string> failed;
    for (;;) {
        while (PQisBusy(c)) {
            if (!wait_socket(PQsocket(c), POLLIN, deadline))
                return give_up();
            if (PQconsumeInput(c) == 0)
                return error(what);
        }
        PgResultPtr res(PQgetResult(c));
        if (!res)
            break;
        auto const status = PQresultStatus(res.get());
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && !failed)
            failed = PQresultErrorMessage(res.get());
        last = std::move(res);
    }
    if (failed)
        return error(what, *failed);
    if (!last)
        return error(what);
    return last;
}

Result<PgResultPtr>
PgConnection::query(std::string const& sql, std::vector<PgParam> const& params, bool binary) {
    if (auto ok = ensure(); !ok)
        return ok.error();
    // Inside a transaction a retry on a new connection would run outside it: only single statements retry.
    bool const in_transaction = PQtransactionStatus(conn_.get()) != PQTRANS_IDLE;
    auto res = run_once(sql, params, binary);
    // A connection the server dropped (restart, failover) fails its next statement: reset, try once more.
    if (!res && !connected() && !in_transaction) {
        if (auto ok = ensure(); !ok)
            return ok.error();
        res = run_once(sql, params, binary);
    }
    return res;
}

Result<void> PgConnection::exec(std::string const& sql) {
    if (auto ok = ensure(); !ok)
        return ok.error();
    // The simple protocol, not parameters: a migration step is several statements, with no values to pass.
    if (!PQsendQuery(conn_.get(), sql.c_str()))
        return error("statement failed");
    if (auto res = await_results("statement failed"); !res)
        return res.error();
    return {};
}

} // namespace icsbridge::cluster
