// File: schema.cpp
// The migrations, in order, and the locked transaction that applies the missing ones.
#include "cluster/schema.hpp"

#include <array>
#include <string_view>

namespace icsbridge::cluster {

namespace {

// Any fixed number: every icsbridge replica takes the same lock; other applications pick their own.
constexpr char const* migration_lock = "SELECT pg_advisory_xact_lock(7236423512097081449)";

// migrations[i] takes the schema from version i to i + 1. Append only: a released step never changes.
constexpr std::array<std::string_view, schema_version> migrations = {
    // 1: one row per feed (its last good snapshot) and one per fetch group (who may refresh it).
    // fetched_at and last_modified are Unix seconds, as in the disk snapshots; lease_epoch is the fencing
    // token a writer held (see pg_snapshots.hpp); generation counts the writes of a row.
    R"sql(
CREATE TABLE icsbridge_snapshots (
    feed          text PRIMARY KEY,
    body          bytea NOT NULL,
    etag          text NOT NULL,
    last_modified bigint NOT NULL,
    fetched_at    bigint NOT NULL,
    items         bigint NOT NULL,
    lease_epoch   bigint NOT NULL DEFAULT 0,
    generation    bigint NOT NULL DEFAULT 1,
    saved_by      text NOT NULL,
    saved_at      timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE icsbridge_leases (
    name       text PRIMARY KEY,
    holder     text NOT NULL,
    expires_at timestamptz NOT NULL,
    epoch      bigint NOT NULL DEFAULT 1
);
)sql",
    // 2: each source's calls in its budget window, counted by every replica (shared_budget.hpp): the start
    // times in ms of the database clock, so the replicas' clocks need not agree.
    R"sql(
CREATE TABLE icsbridge_budget (
    source text PRIMARY KEY,
    calls  bigint[] NOT NULL DEFAULT '{}'
);
)sql",
    // 3: each `tokens` subscriber's last fetch (Unix seconds) as any replica saw it, for every /healthz.
    R"sql(
CREATE TABLE icsbridge_subscribers (
    feed       text NOT NULL,
    subscriber text NOT NULL,
    last_fetch bigint NOT NULL,
    PRIMARY KEY (feed, subscriber)
);
)sql",
    // 4: the definition each snapshot was made under (definition_of): a replica never serves a row made
    // under another definition of the feed (a rolling deploy of a changed config). '' : not known.
    R"sql(
ALTER TABLE icsbridge_snapshots ADD COLUMN definition text NOT NULL DEFAULT '';
)sql",
    // 5: what each push target holds of ours (push/state.hpp, as JSON), so the replica that takes over a
    // target's lease goes on from there: no upload again, no duplicate.
    R"sql(
CREATE TABLE icsbridge_push_state (
    target   text PRIMARY KEY,
    state    text NOT NULL,
    saved_by text NOT NULL,
    saved_at timestamptz NOT NULL DEFAULT now()
);
)sql",
    // 6: each OAuth target's stored sign-in (oauth/token_store.hpp, as JSON: the refresh token, its client
    // and scope), so every replica pushes with what `icsbridge connect` stored, and with a rotated token.
    R"sql(
CREATE TABLE icsbridge_oauth_tokens (
    target   text PRIMARY KEY,
    token    text NOT NULL,
    saved_by text NOT NULL,
    saved_at timestamptz NOT NULL DEFAULT now()
);
)sql",
    // 7: the subscribers' own connections (issue 27; connect/connection.hpp's JSON, with no secret in the
    // clear), a generation bumped by every statement that writes or deletes one (replicas re-list only when
    // it moved), and the sign-in states already used (the nonce's SHA-256, expiry in Unix seconds).
    R"sql(
CREATE TABLE icsbridge_connections (
    id         text PRIMARY KEY,
    body       text NOT NULL,
    saved_by   text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE icsbridge_connections_generation (
    one        boolean PRIMARY KEY DEFAULT true CHECK (one),
    generation bigint NOT NULL
);
INSERT INTO icsbridge_connections_generation (generation) VALUES (1);
CREATE TABLE icsbridge_connect_claims (
    nonce      text PRIMARY KEY,
    expires_at bigint NOT NULL
);
CREATE INDEX icsbridge_connect_claims_expiry ON icsbridge_connect_claims (expires_at);
)sql",
    // 8: each feed's CalDAV change history (dav/history_state.hpp's kept form, JSON) up to the row's
    // snapshot, written in the same statement, so a sync token works on every replica. '' : none kept.
    R"sql(
ALTER TABLE icsbridge_snapshots ADD COLUMN dav_history text NOT NULL DEFAULT '';
)sql",
    // 9: WebDAV-Push (issue 37): each registration (dav/push_journal.hpp's JSON; expires in Unix seconds),
    // and the cluster's one VAPID key (PKCS#8 PEM), inserted by the first replica to start.
    R"sql(
CREATE TABLE icsbridge_push_registrations (
    id       text PRIMARY KEY,
    feed     text NOT NULL,
    body     text NOT NULL,
    expires  bigint NOT NULL,
    saved_by text NOT NULL,
    saved_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX icsbridge_push_registrations_feed ON icsbridge_push_registrations (feed);
CREATE TABLE icsbridge_vapid_key (
    one      boolean PRIMARY KEY DEFAULT true CHECK (one),
    pem      text NOT NULL,
    saved_by text NOT NULL,
    saved_at timestamptz NOT NULL DEFAULT now()
);
)sql",
};

Result<int> migrate_locked(PgConnection& db) {
    if (auto ok = db.exec(migration_lock); !ok)
        return ok.error();
    if (auto ok = db.exec("CREATE TABLE IF NOT EXISTS icsbridge_schema (version integer NOT NULL)"); !ok)
        return ok.error();
    auto cur = db.query("SELECT coalesce(max(version), 0)::bigint FROM icsbridge_schema", {}, true);
    if (!cur)
        return cur.error();
    auto const version = PgRow{cur->get(), 0}.int8(0).value_or(-1);
    if (version < 0)
        return fail(errc::io_error, db.where() + ": cannot read the schema version");
    if (version > schema_version)
        return fail(
            errc::io_error,
            db.where() + ": its schema is version " + std::to_string(version) +
                ", newer than this icsbridge (" + std::to_string(schema_version) +
                "): upgrade icsbridge on this replica"
        );
    for (auto v = version; v < schema_version; ++v)
        if (auto ok = db.exec(std::string(migrations[static_cast<std::size_t>(v)])); !ok)
            return ok.error();
    if (version < schema_version) {
        if (auto ok = db.exec("DELETE FROM icsbridge_schema"); !ok)
            return ok.error();
        auto set = db.query(
            "INSERT INTO icsbridge_schema (version) VALUES ($1::integer)",
            {PgParam::integer(schema_version)}
        );
        if (!set)
            return set.error();
    }
    return schema_version;
}

} // namespace

Result<int> migrate(PgConnection& db) {
    if (auto ok = db.exec("BEGIN"); !ok)
        return ok.error();
    auto r = migrate_locked(db);
    if (!r) {
        // The lock goes with the transaction; a failed step leaves the schema as it was.
        (void)db.exec("ROLLBACK");
        return r;
    }
    if (auto ok = db.exec("COMMIT"); !ok)
        return ok.error();
    return r;
}

Result<void> connect_and_migrate(PgConnection& db, std::uint64_t& migrated_on) {
    if (auto ok = db.ensure(); !ok)
        return ok.error();
    if (migrated_on == db.connects())
        return {};
    if (auto v = migrate(db); !v)
        return v.error();
    migrated_on = db.connects();
    return {};
}

} // namespace icsbridge::cluster
