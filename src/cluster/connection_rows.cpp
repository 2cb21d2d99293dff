// File: connection_rows.cpp
// The PostgreSQL ConnectionStore: parameterised statements only (no value is spliced into SQL, none
// appears in a message). A write and its generation bump are one statement, so a replica that sees the
// new generation also sees the row; the status write compares and swaps the body, so it never brings
// back a row another replica deleted.
#include "cluster/connection_rows.hpp"

#include "cluster/pg.hpp"
#include "cluster/schema.hpp"

#include <mutex>
#include <set>

namespace icsbridge::cluster {

namespace {

using connect::Connection;
using std::chrono::sys_seconds;

// A status write that lost the race this often to writes of the whole record gives up (and is retried
// with the next push): it never waits on a lock held by another replica.
constexpr int status_attempts = 5;

class PgConnections final : public connect::ConnectionStore {
  public:
    PgConnections(std::string url, std::string node, Logger log)
        : db_(std::move(url))
        , node_(std::move(node))
        , log_(std::move(log)) {}

    Result<std::vector<Connection>> list() override;
    Result<std::optional<Connection>> get(std::string const& id) override;
    Result<void> put(Connection const& c) override;
    Result<bool> put_status(Connection const& c) override;
    Result<bool> remove(std::string const& id) override;
    Result<bool> claim(std::string const& nonce, sys_seconds expires) override;
    Result<std::uint64_t> generation() override;

  private:
    Result<void> prepare() { return connect_and_migrate(db_, migrated_on_); }
    /** The row's body as text; nullopt when there is no row. */
    Result<std::optional<std::string>> body_of(std::string const& id);
    Result<Connection> parse(std::string const& id, std::string_view body) const;

    std::mutex mtx_;
    PgConnection db_;
    std::string node_;
    Logger log_;
    std::uint64_t migrated_on_ = 0;
    std::set<std::string> warned_; ///< corrupt rows already reported: one warning each, not one per list()
};

Result<Connection> PgConnections::parse(std::string const& id, std::string_view body) const {
    if (!connect::valid_connection_id(id))
        return fail(errc::io_error, db_.where() + ": a connection row's id is not 22 base64url characters");
    auto c = connect::connection_from_json(body);
    if (!c)
        return fail(errc::io_error, db_.where() + ": connection row " + id + ": " + c.error().message);
    if (c->id != id)
        return fail(errc::io_error, db_.where() + ": connection row " + id + ": its body has another id");
    return c;
}

Result<std::optional<std::string>> PgConnections::body_of(std::string const& id) {
    auto r = db_.query("SELECT body FROM icsbridge_connections WHERE id = $1", {PgParam::text(id)});
    if (!r)
        return r.error();
    if (PQntuples(r->get()) == 0)
        return std::optional<std::string>{};
    return std::optional<std::string>{std::string(PgRow{r->get(), 0}.bytes(0))};
}

Result<std::vector<Connection>> PgConnections::list() {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto r = db_.query("SELECT id, body FROM icsbridge_connections");
    if (!r)
        return r.error();
    std::vector<Connection> out;
    for (int i = 0, n = PQntuples(r->get()); i < n; ++i) {
        PgRow const row{r->get(), i};
        std::string const id(row.bytes(0));
        auto c = parse(id, row.bytes(1));
        if (!c) {
            if (warned_.insert(id).second)
                log_.warn("connections: " + c.error().message + "; left out until it is repaired or removed");
            continue;
        }
        warned_.erase(id);
        out.push_back(std::move(*c));
    }
    return out;
}

Result<std::optional<Connection>> PgConnections::get(std::string const& id) {
    if (!connect::valid_connection_id(id))
        return std::optional<Connection>{};
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto body = body_of(id);
    if (!body)
        return body.error();
    if (!*body)
        return std::optional<Connection>{};
    auto c = parse(id, **body);
    if (!c)
        return c.error();
    return std::optional<Connection>{std::move(*c)};
}

Result<void> PgConnections::put(Connection const& c) {
    if (!connect::valid_connection_id(c.id))
        return fail(errc::io_error, "cannot keep a connection: its id is not 22 base64url characters");
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto r = db_.query(
        "WITH up AS (INSERT INTO icsbridge_connections (id, body, saved_by) VALUES ($1, $2, $3) "
        "ON CONFLICT (id) DO UPDATE SET body = excluded.body, saved_by = excluded.saved_by, updated_at = "
        "now() "
        "RETURNING 1) "
        "UPDATE icsbridge_connections_generation SET generation = generation + 1 FROM up",
        {PgParam::text(c.id), PgParam::text(connect::to_json(c)), PgParam::text(node_)}
    );
    if (!r)
        return r.error();
    return {};
}

Result<bool> PgConnections::put_status(Connection const& c) {
    if (!connect::valid_connection_id(c.id))
        return false;
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    for (int attempt = 0; attempt < status_attempts; ++attempt) {
        auto before = body_of(c.id);
        if (!before)
            return before.error();
        if (!*before)
            return false; // disconnected meanwhile: nothing to bring back
        auto kept = parse(c.id, **before);
        if (!kept)
            return kept.error();
        connect::copy_status(c, *kept);
        auto after = connect::to_json(*kept);
        if (after == **before)
            return true;
        // Only over the body just read: a put or a remove in between makes this match no row, and the
        // loop reads again.
        auto r = db_.query(
            "UPDATE icsbridge_connections SET body = $2, saved_by = $3, updated_at = now() "
            "WHERE id = $1 AND body = $4 RETURNING 1",
            {PgParam::text(c.id), PgParam::text(after), PgParam::text(node_), PgParam::text(**before)}
        );
        if (!r)
            return r.error();
        if (PQntuples(r->get()) == 1)
            return true;
    }
    return fail(
        errc::io_error,
        db_.where() + ": connection " + c.id + " changed " + std::to_string(status_attempts) +
            " times while its status was being saved"
    );
}

Result<bool> PgConnections::remove(std::string const& id) {
    if (!connect::valid_connection_id(id))
        return false;
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto r = db_.query(
        "WITH gone AS (DELETE FROM icsbridge_connections WHERE id = $1 RETURNING 1) "
        "UPDATE icsbridge_connections_generation SET generation = generation + 1 FROM gone RETURNING 1",
        {PgParam::text(id)}
    );
    if (!r)
        return r.error();
    warned_.erase(id);
    return PQntuples(r->get()) == 1;
}

Result<bool> PgConnections::claim(std::string const& nonce, sys_seconds expires) {
    auto const now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    if (expires <= now)
        return false;
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    // Claims live minutes; forgetting the expired ones at each claim keeps the table that small.
    auto pruned = db_.query(
        "DELETE FROM icsbridge_connect_claims WHERE expires_at < $1::bigint",
        {PgParam::integer(now.time_since_epoch().count())}
    );
    if (!pruned)
        return pruned.error();
    auto r = db_.query(
        "INSERT INTO icsbridge_connect_claims (nonce, expires_at) VALUES ($1, $2::bigint) "
        "ON CONFLICT (nonce) DO NOTHING RETURNING 1",
        {PgParam::text(connect::connection_hash(nonce)), PgParam::integer(expires.time_since_epoch().count())}
    );
    if (!r)
        return r.error();
    return PQntuples(r->get()) == 1;
}

Result<std::uint64_t> PgConnections::generation() {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto r = db_.query("SELECT generation FROM icsbridge_connections_generation", {}, true);
    if (!r)
        return r.error();
    auto const g = PQntuples(r->get()) == 1 ? PgRow{r->get(), 0}.int8(0) : std::nullopt;
    if (!g)
        return fail(errc::io_error, db_.where() + ": the connections' generation row is missing");
    return static_cast<std::uint64_t>(*g);
}

} // namespace

// Rows only, with no file to fall back on (unlike the push state and the sign-ins, app/row_then_file.hpp):
// a record changed or removed on one replica must never come back from another's older file (a
// disconnected calendar pushed again), and a sign-in state is single-use across replicas, which only the
// database can say.
std::unique_ptr<connect::ConnectionStore>
pg_connections(std::string database_url, std::string node, Logger log) {
    return std::make_unique<PgConnections>(std::move(database_url), std::move(node), std::move(log));
}

} // namespace icsbridge::cluster
