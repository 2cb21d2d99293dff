// File: pg.cpp
// PgConnection: connect with a deadline, run parameterised statements, reset a broken connection once.
#include "cluster/pg.hpp"

#include <icsbridge/config.hpp>

#include <cstring>

namespace icsbridge::cluster {

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

PgConnection::PgConnection(std::string url)
    : url_(std::move(url)) {}

bool PgConnection::connected() const {
    return conn_ && PQstatus(conn_.get()) == CONNECTION_OK;
}

std::string PgConnection::where() const {
    return "database " + mask_database_url(url_);
}

Error PgConnection::error(std::string const& what) const {
    std::string why = conn_ ? PQerrorMessage(conn_.get()) : "out of memory";
    while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
        why.pop_back();
    // libpq messages name host and user, not the password; scrub it anyway in case a future one does.
    return fail(errc::io_error, where() + ": " + what + ": " + scrub_database_password(why, url_));
}

Result<void> PgConnection::ensure() {
    if (connected())
        return {};
    if (conn_) {
        PQreset(conn_.get());
        if (connected())
            return {};
    }
    // Our defaults come first so that the URL's own values override them: a bounded connect (the
    // control thread waits for it) and statements that cannot hang a refresh for ever.
    char const* keys[] = {"connect_timeout", "application_name", "options", "dbname", nullptr};
    char const* values[] = {"5", "icsbridge", "-c statement_timeout=15000", url_.c_str(), nullptr};
    conn_.reset(PQconnectdbParams(keys, values, 1));
    if (!connected())
        return error("cannot connect");
    // libpq prints server notices ("relation ... already exists, skipping") to stderr, around our log.
    PQsetNoticeProcessor(
        conn_.get(),
        [](void*, char const*) {},
        nullptr
    );
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
    PgResultPtr res(PQexecParams(
        conn_.get(),
        sql.c_str(),
        static_cast<int>(params.size()),
        nullptr,
        values.data(),
        lengths.data(),
        formats.data(),
        binary ? 1 : 0
    ));
    auto const status = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
        return res;
    return error("statement failed");
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
    // PQexec, not PQexecParams: a migration step is several statements, and there are no values to pass.
    PgResultPtr res(PQexec(conn_.get(), sql.c_str()));
    auto const status = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
        return error("statement failed");
    return {};
}

} // namespace icsbridge::cluster
