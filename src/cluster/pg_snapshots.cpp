// File: pg_snapshots.cpp
// PgSnapshots: the fenced upsert with its NOTIFY in one statement, and the checked load.
#include "cluster/pg_snapshots.hpp"

#include "cluster/schema.hpp"
#include <icsbridge/store.hpp>

namespace icsbridge::cluster {

namespace {

// The upsert and its NOTIFY are one statement, hence one transaction: peers hear of a row only once it is
// committed, and never of a write the fence refused (no row comes out of `up` then).
// $10 false: a publish, under the fence (lease epoch, then fetch time). $10 true: the catch-up after a
// degraded period, when a calendar this replica fetched on its own while the database was away goes in if it
// is newer than the row: no lease was held then, so the fetch time judges, and the row's epoch stays as it
// was, so the lease holder's next publish is not refused.
constexpr char const* save_sql = R"sql(
WITH up AS (
    INSERT INTO icsbridge_snapshots AS s
        (feed, body, etag, last_modified, fetched_at, items, lease_epoch, saved_by, definition, dav_history)
    VALUES ($1, $2, $3, $4::bigint, $5::bigint, $6::bigint, $7::bigint, $8, $11, $12)
    ON CONFLICT (feed) DO UPDATE
        SET body = EXCLUDED.body, etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified,
            fetched_at = EXCLUDED.fetched_at, items = EXCLUDED.items, definition = EXCLUDED.definition,
            dav_history = EXCLUDED.dav_history,
            lease_epoch = CASE WHEN $10::boolean THEN s.lease_epoch ELSE EXCLUDED.lease_epoch END,
            saved_by = EXCLUDED.saved_by, generation = s.generation + 1, saved_at = now()
        WHERE CASE WHEN $10::boolean
                   THEN EXCLUDED.fetched_at > s.fetched_at AND EXCLUDED.etag <> s.etag
                   ELSE EXCLUDED.lease_epoch > s.lease_epoch
                        OR (EXCLUDED.lease_epoch = s.lease_epoch AND EXCLUDED.fetched_at >= s.fetched_at)
              END
    RETURNING feed, generation
)
SELECT up.generation FROM up CROSS JOIN LATERAL (SELECT pg_notify($9, up.feed)) AS n
)sql";

constexpr char const* load_sql =
    "SELECT body, etag, last_modified, fetched_at, items, generation, definition, dav_history "
    "FROM icsbridge_snapshots WHERE feed = $1";

// The lease holder's write over a row that failed its check, only if the row is still the one checked
// ($10, its generation): a peer's good publish in between is never lost.
constexpr char const* replace_sql = R"sql(
WITH up AS (
    UPDATE icsbridge_snapshots
       SET body = $2, etag = $3, last_modified = $4::bigint, fetched_at = $5::bigint, items = $6::bigint,
           lease_epoch = $7::bigint, saved_by = $8, generation = generation + 1, saved_at = now(),
           definition = $11, dav_history = $12
     WHERE feed = $1 AND generation = $10::bigint
    RETURNING feed, generation
)
SELECT up.generation FROM up CROSS JOIN LATERAL (SELECT pg_notify($9, up.feed)) AS n
)sql";

} // namespace

PgSnapshots::PgSnapshots(std::string database_url, std::string node, EpochOf epoch_of, Logger log)
    : PgSnapshots(
          std::make_shared<PgServer>(std::move(database_url)),
          std::move(node),
          std::move(epoch_of),
          std::move(log)
      ) {}

PgSnapshots::PgSnapshots(std::shared_ptr<PgServer> server, std::string node, EpochOf epoch_of, Logger log)
    : db_(std::move(server))
    , node_(std::move(node))
    , epoch_of_(std::move(epoch_of))
    , log_(std::move(log)) {}

std::string PgSnapshots::where() const {
    return db_.where();
}

Result<void> PgSnapshots::prepare_locked() {
    return connect_and_migrate(db_, migrated_on_);
}

Result<void> PgSnapshots::forget_history(std::string const& feed) {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare_locked(); !ok)
        return ok;
    auto res = db_.query(
        "UPDATE icsbridge_snapshots SET dav_history = '' WHERE feed = $1",
        {PgParam::text(feed)},
        true
    );
    if (!res)
        return res.error();
    return {};
}

Result<void> PgSnapshots::forget_history_all_but(std::vector<std::string> const& kept) {
    std::string names;
    for (auto const& n : kept)
        names += n + '\n';
    std::lock_guard lock(mtx_);
    if (auto ok = prepare_locked(); !ok)
        return ok;
    // Feed names hold no newline (the config refuses them), so the list travels as one text parameter.
    auto res = db_.query(
        "UPDATE icsbridge_snapshots SET dav_history = '' "
        "WHERE dav_history <> '' AND NOT (feed = ANY (string_to_array(rtrim($1, E'\\n'), E'\\n')))",
        {PgParam::text(names)},
        true
    );
    if (!res)
        return res.error();
    return {};
}

Result<void> PgSnapshots::prepare() {
    std::lock_guard lock(mtx_);
    return prepare_locked();
}

Result<bool> PgSnapshots::write(
    bool catching_up,
    std::string const& feed,
    Snapshot const& snap,
    sys_seconds fetched_at,
    std::int64_t epoch,
    std::string const& history
) {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare_locked(); !ok)
        return ok.error();
    auto params = row_params(feed, snap, fetched_at, epoch);
    params.push_back(PgParam::text(catching_up ? "true" : "false"));
    params.push_back(PgParam::text(snap.definition));
    params.push_back(PgParam::text(history));
    auto res = db_.query(save_sql, params, true);
    if (!res)
        return res.error();
    return PQntuples(res->get()) == 1;
}

std::vector<PgParam> PgSnapshots::row_params(
    std::string const& feed, Snapshot const& snap, sys_seconds fetched_at, std::int64_t epoch
) const {
    return {
        PgParam::text(feed),
        PgParam::bytes(std::string(snap.body)),
        PgParam::text(snap.etag),
        PgParam::integer(snap.last_modified.time_since_epoch().count()),
        PgParam::integer(fetched_at.time_since_epoch().count()),
        PgParam::integer(static_cast<std::int64_t>(snap.items)),
        PgParam::integer(epoch),
        PgParam::text(node_),
        PgParam::text(snapshot_channel),
    };
}

Result<bool> PgSnapshots::replace_unusable(
    std::string const& feed,
    Snapshot const& snap,
    sys_seconds fetched_at,
    std::int64_t epoch,
    std::string const& history
) {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare_locked(); !ok)
        return ok.error();
    auto res = db_.query(load_sql, {PgParam::text(feed)}, true);
    if (!res)
        return res.error();
    if (PQntuples(res->get()) == 0)
        return false;
    auto const row = checked(res->get(), feed, false);
    auto const generation = PgRow{res->get(), 0}.int8(5);
    if (row || row.error().code != errc::snapshot_corrupt || !generation)
        return false; // a good row: the fence was right to keep it
    auto params = row_params(feed, snap, fetched_at, epoch);
    params.push_back(PgParam::integer(*generation));
    params.push_back(PgParam::text(snap.definition));
    params.push_back(PgParam::text(history));
    auto up = db_.query(replace_sql, params, true);
    if (!up)
        return up.error();
    if (PQntuples(up->get()) != 1)
        return false;
    log_.warn(row.error().message + "; replaced with this replica's snapshot " + snap.etag);
    return true;
}

std::string PgSnapshots::history_of(std::string const& feed, Snapshot const& snap) const {
    return history_of_ ? history_of_(feed, snap) : std::string();
}

Result<bool> PgSnapshots::store(
    std::string const& feed, Snapshot const& snap, sys_seconds fetched_at, std::int64_t epoch
) {
    return write(false, feed, snap, fetched_at, epoch, history_of(feed, snap));
}

Result<bool> PgSnapshots::catch_up(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) {
    // A new row gets epoch 0: any lease holder's publish replaces it.
    return write(true, feed, snap, fetched_at, 0, history_of(feed, snap));
}

Result<void> PgSnapshots::save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) {
    return save_with_history(feed, snap, fetched_at, history_of(feed, snap));
}

Result<void> PgSnapshots::save_with_history(
    std::string const& feed, Snapshot const& snap, sys_seconds fetched_at, std::string const& history
) {
    auto const epoch = epoch_of_ ? epoch_of_(feed) : 0;
    auto written = write(false, feed, snap, fetched_at, epoch, history);
    if (!written)
        return written.error();
    // The fence keeps a newer row, but a row that fails its check is no snapshot at all: its fields (an
    // epoch or a fetch time from the future) must not hold off every publish, so the lease holder's
    // calendar replaces it.
    if (!*written && epoch > 0) {
        auto replaced = replace_unusable(feed, snap, fetched_at, epoch, history);
        if (!replaced)
            return replaced.error();
        written = replaced;
    }
    if (!*written) {
        if (on_refused_)
            on_refused_(feed);
        return fail(
            errc::io_error,
            where() + " holds a newer snapshot of feed " + feed +
                " (another replica refreshed it since): this one is not saved"
        );
    }
    return {};
}

Result<std::shared_ptr<Snapshot const>> PgSnapshots::load(std::string const& feed, bool gzip) {
    return load_with_history(feed, gzip, nullptr);
}

Result<std::shared_ptr<Snapshot const>>
PgSnapshots::load_with_history(std::string const& feed, bool gzip, std::string* history) {
    std::unique_lock lock(mtx_);
    if (auto ok = prepare_locked(); !ok)
        return ok.error();
    auto res = db_.query(load_sql, {PgParam::text(feed)}, true);
    lock.unlock();
    if (!res)
        return res.error();
    if (PQntuples(res->get()) == 0)
        return std::shared_ptr<Snapshot const>();
    auto snap = checked(res->get(), feed, gzip);
    // Read in the same statement as the snapshot, so it reaches it (the writer kept the two together).
    if (snap && history)
        *history = std::string(PgRow{res->get(), 0}.bytes(7));
    return snap;
}

Result<std::shared_ptr<Snapshot const>>
PgSnapshots::checked(PGresult const* res, std::string const& feed, bool gzip) const {
    PgRow const row{res, 0};
    auto corrupt = [&](std::string const& why) {
        return fail(errc::snapshot_corrupt, where() + ": the row of feed " + feed + " " + why);
    };
    auto const lm = row.int8(2);
    auto const fa = row.int8(3);
    auto const items = row.int8(4);
    if (!lm || !fa || !items || *lm <= 0 || *fa <= 0 || *items < 0)
        return corrupt("has a missing or impossible last_modified, fetched_at or items");
    std::string body(row.bytes(0));
    // The same check as a disk snapshot's: a row altered, or written by something else, is never served.
    if (auto defect = kept_body_defect(body, row.bytes(1)); !defect.empty())
        return corrupt("has a body that " + defect);
    return make_snapshot(
        std::move(body),
        static_cast<std::size_t>(*items),
        sys_seconds{std::chrono::seconds{*lm}},
        sys_seconds{std::chrono::seconds{*fa}},
        gzip,
        std::string(row.bytes(1)),
        std::string(row.bytes(6)),
        files_.get()
    );
}

} // namespace icsbridge::cluster
