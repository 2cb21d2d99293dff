// File: pg.hpp
// The libpq layer of cluster mode: RAII owners of PGconn and PGresult, a connection that reconnects, and
// parameterised statements only (values never spliced into SQL). Blocking, but never for long: a connect
// gives up after 5 s and a statement after `answer_within`, however the server or the network hangs. Call
// it from the refresh (control) thread or at start, never from an HTTP worker.
#pragma once

#include <icsbridge/error.hpp>

#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::cluster {

struct PgConnClose {
    void operator()(PGconn* c) const noexcept { PQfinish(c); }
};
struct PgResultClear {
    void operator()(PGresult* r) const noexcept { PQclear(r); }
};
using PgConnPtr = std::unique_ptr<PGconn, PgConnClose>;
using PgResultPtr = std::unique_ptr<PGresult, PgResultClear>;

/** @brief One statement parameter: text, or bytes sent as binary (bytea: any byte, NUL included). */
struct PgParam {
    std::string value;
    bool binary = false;
    bool null = false;
    static PgParam text(std::string v) { return {std::move(v), false, false}; }
    static PgParam bytes(std::string v) { return {std::move(v), true, false}; }
    static PgParam integer(std::int64_t v) { return {std::to_string(v), false, false}; }
};

/** @brief A result's cells, read in binary format (what `PgConnection::query(..., binary)` asks for). */
struct PgRow {
    PGresult const* res;
    int row;
    bool is_null(int col) const { return PQgetisnull(res, row, col) != 0; }
    std::string_view bytes(int col) const {
        return {PQgetvalue(res, row, col), static_cast<std::size_t>(PQgetlength(res, row, col))};
    }
    /** @brief A bigint (int8) column in binary format; nullopt when it is not 8 bytes. */
    std::optional<std::int64_t> int8(int col) const;
};

/**
 * @brief A database as one replica's connections to it see it: its URL, and how many times one of them
 * waited out its deadline for no answer. A server that is gone without a reset (a failover, a partition)
 * takes every connection with it, but each finds out only by waiting as long in turn; sharing this, the
 * others start afresh at their next statement instead. Thread-safe.
 */
class PgServer {
  public:
    explicit PgServer(std::string url)
        : url_(std::move(url)) {}
    std::string const& url() const { return url_; }
    void went_silent() { ++silences_; }
    std::uint64_t silences() const { return silences_.load(); }

  private:
    std::string url_;
    std::atomic<std::uint64_t> silences_{0};
};

/**
 * @brief A connection to the cluster database, reconnected on the next call after it broke. Not
 * thread-safe: one owner (or a mutex) per connection.
 */
class PgConnection {
  public:
    /// What a statement gets by default: more than the server's own statement_timeout (8 s), so that a
    /// slow statement is ended by the server and the connection stays usable.
    static constexpr std::chrono::milliseconds default_answer_within{10000};

    /**
     * @param url a libpq URI; it is never written into a message (see mask_database_url).
     * @param answer_within how long a statement may wait for the server (a stopped server, a partition):
     * past it the connection is closed, the statement fails, and the next call connects again.
     */
    explicit PgConnection(std::string url, std::chrono::milliseconds answer_within = default_answer_within);
    /** @brief A connection to `server`, dropped before its next statement when another of its went silent. */
    explicit PgConnection(
        std::shared_ptr<PgServer> server, std::chrono::milliseconds answer_within = default_answer_within
    );

    /** @brief Connects if not connected (or the connection broke); errc::io_error says why, no password. */
    Result<void> ensure();

    /**
     * @brief Runs one parameterised statement; rows in binary format when `binary`. Outside a transaction
     * a broken connection, or one that gave no answer within `answer_within`, is reset and the statement
     * tried once more (every statement here is safe to repeat).
     */
    Result<PgResultPtr>
    query(std::string const& sql, std::vector<PgParam> const& params = {}, bool binary = false);

    /** @brief Runs SQL without parameters (BEGIN, COMMIT, DDL), never twice; errc::io_error on failure. */
    Result<void> exec(std::string const& sql);

    /** @brief Drops the connection and what was set up on it (LISTEN); the next call connects anew. */
    void close() { conn_.reset(); }

    PGconn* raw() const { return conn_.get(); }
    bool connected() const;
    /**
     * @brief How many times a connection was made (first, or again after one broke, also inside query()):
     * what was set up on the last one, such as the schema, may need doing again on a new one.
     */
    std::uint64_t connects() const { return connects_; }
    /** @brief The URL with its password masked, for log lines. */
    std::string where() const;

  private:
    Result<PgResultPtr> run_once(std::string const& sql, std::vector<PgParam> const& params, bool binary);
    Result<PgResultPtr> await_results(std::string const& what);
    Error error(std::string const& what) const;
    Error error(std::string const& what, std::string why) const;

    std::shared_ptr<PgServer> server_;
    std::uint64_t silences_seen_ = 0;
    std::chrono::milliseconds answer_within_;
    PgConnPtr conn_;
    std::uint64_t connects_ = 0;
};

} // namespace icsbridge::cluster
