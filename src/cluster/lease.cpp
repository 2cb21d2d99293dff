// File: lease.cpp
// The lease decisions, and the one statement that claims or renews a lease.
#include "cluster/lease.hpp"

#include <algorithm>
#include <random>

namespace icsbridge::cluster {

RefreshTurn refresh_turn(Result<LeaseClaim> const& claim, std::chrono::milliseconds margin) {
    if (!claim)
        return RefreshTurn::alone;
    return claim->held && claim->remaining >= margin ? RefreshTurn::mine : RefreshTurn::theirs;
}

std::chrono::milliseconds renew_after(std::chrono::seconds lease) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(lease) / 3;
}

std::chrono::milliseconds recheck_after(LeaseClaim const& claim, std::chrono::seconds lease) {
    using std::chrono::milliseconds;
    auto const most = std::chrono::duration_cast<milliseconds>(lease);
    // A moment past the end of the holder's claim: by then the database sees it expired.
    auto const wait = claim.remaining + milliseconds(50);
    return std::clamp(wait, milliseconds(100), most);
}

namespace {

// One statement, so two replicas can never both win: the row lock of ON CONFLICT orders them, and the
// loser's WHERE sees the winner's fresh expiry. The second half reads the holder when the claim lost.
constexpr char const* claim_sql = R"sql(
WITH claimed AS (
    INSERT INTO icsbridge_leases AS l (name, holder, expires_at)
    VALUES ($1, $2, clock_timestamp() + $3::bigint * interval '1 millisecond')
    ON CONFLICT (name) DO UPDATE
        SET holder = EXCLUDED.holder,
            expires_at = EXCLUDED.expires_at,
            epoch = l.epoch + CASE WHEN l.holder = EXCLUDED.holder THEN 0 ELSE 1 END
        WHERE l.expires_at < clock_timestamp() OR l.holder = EXCLUDED.holder
    RETURNING holder, epoch, expires_at
)
SELECT holder, epoch, greatest(0, extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint
    FROM claimed
UNION ALL
SELECT holder, epoch, greatest(0, extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint
    FROM icsbridge_leases
    WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM claimed)
)sql";

} // namespace

Leases::Leases(PgConnection& db, std::string const& node, std::chrono::seconds lease)
    : db_(db)
    , holder_(node + "/" + std::to_string(std::random_device{}()))
    , lease_(lease) {}

Result<LeaseClaim> Leases::claim(std::string const& name) {
    auto const ms = std::chrono::duration_cast<std::chrono::milliseconds>(lease_).count();
    auto res =
        db_.query(claim_sql, {PgParam::text(name), PgParam::text(holder_), PgParam::integer(ms)}, true);
    if (!res)
        return res.error();
    LeaseClaim out;
    if (PQntuples(res->get()) == 0) {
        // Another replica created the row while we tried: it holds the lease, for about a lease.
        out.remaining = std::chrono::duration_cast<std::chrono::milliseconds>(lease_);
        return out;
    }
    PgRow const row{res->get(), 0};
    out.holder = std::string(row.bytes(0));
    out.held = out.holder == holder_;
    out.epoch = row.int8(1).value_or(0);
    out.remaining = std::chrono::milliseconds(row.int8(2).value_or(0));
    return out;
}

Result<void> Leases::release(std::string const& name) {
    auto res = db_.query(
        "UPDATE icsbridge_leases SET expires_at = clock_timestamp() - interval '1 second' "
        "WHERE name = $1 AND holder = $2",
        {PgParam::text(name), PgParam::text(holder_)}
    );
    if (!res)
        return res.error();
    return {};
}

} // namespace icsbridge::cluster
