// File: shared_budget.cpp
// PgBudget: a sliding window of call times per source, in one row, counted under the row lock.
#include "cluster/shared_budget.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace icsbridge::cluster {

namespace {

using namespace std::chrono_literals;

/** A database that is away: count locally this long before trying it again. */
constexpr auto retry_gap = 5s;

constexpr char const* ensure_sql =
    "INSERT INTO icsbridge_budget (source, calls) VALUES ($1, '{}') ON CONFLICT (source) DO NOTHING";

// The room check and the append are one UPDATE: a concurrent one waits for the row lock, then sees this
// one's append when PostgreSQL re-checks its WHERE on the new row (READ COMMITTED).
constexpr char const* take_sql = R"sql(
UPDATE icsbridge_budget b
   SET calls = array(SELECT c FROM unnest(b.calls) c WHERE c > t.now - $2::bigint) || t.now
  FROM (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now) t
 WHERE b.source = $1
   AND (SELECT count(*) FROM unnest(b.calls) c WHERE c > t.now - $2::bigint) < $3::bigint
RETURNING cardinality(b.calls)::bigint
)sql";

// No room: when the oldest call in the window leaves it, and how many are in it.
constexpr char const* wait_sql = R"sql(
SELECT greatest(coalesce(min(c), 0) + $2::bigint - t.now, 1)::bigint, count(c)::bigint
  FROM (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now) t
  LEFT JOIN icsbridge_budget b ON b.source = $1
  LEFT JOIN LATERAL unnest(b.calls) c ON c > t.now - $2::bigint
 GROUP BY t.now
)sql";

constexpr char const* record_sql = R"sql(
UPDATE icsbridge_budget
   SET calls = calls || array_fill((extract(epoch FROM clock_timestamp()) * 1000)::bigint, ARRAY[$2::integer])
 WHERE source = $1
)sql";

std::int64_t period_ms(Budget const& spec) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(spec.period).count();
}

} // namespace

bool PgBudget::away() {
    return std::chrono::steady_clock::now() < retry_after_;
}

void PgBudget::went_away() {
    retry_after_ = std::chrono::steady_clock::now() + retry_gap;
}

std::optional<SharedCalls::Taken> PgBudget::try_take(std::string const& source, Budget const& spec) {
    std::lock_guard lock(mtx_);
    if (away())
        return std::nullopt;
    auto const window = PgParam::integer(period_ms(spec));
    auto const limit = PgParam::integer(static_cast<std::int64_t>(spec.calls));
    if (!db_.query(ensure_sql, {PgParam::text(source)})) {
        went_away();
        return std::nullopt;
    }
    auto took = db_.query(take_sql, {PgParam::text(source), window, limit}, true);
    if (!took) {
        went_away();
        return std::nullopt;
    }
    if (PQntuples(took->get()) == 1)
        return Taken{0ms, static_cast<std::size_t>(PgRow{took->get(), 0}.int8(0).value_or(0))};
    auto full = db_.query(wait_sql, {PgParam::text(source), window}, true);
    if (!full || PQntuples(full->get()) != 1) {
        went_away();
        return std::nullopt;
    }
    PgRow const row{full->get(), 0};
    return Taken{
        std::chrono::milliseconds(row.int8(0).value_or(1000)),
        static_cast<std::size_t>(row.int8(1).value_or(0))};
}

boost::asio::awaitable<std::optional<SharedCalls::Taken>> PgBudget::take(std::string source, Budget spec) {
    if (!db_ex_)
        co_return try_take(source, spec);
    {
        std::lock_guard lock(mtx_);
        if (away())
            co_return std::nullopt; // counted locally, without a trip to the database's thread
    }
    // The statements wait on the database's thread; this coroutine resumes on its own executor.
    // Named before the co_await (README, "Coroutines and GCC 12").
    auto taken = boost::asio::co_spawn(
        db_ex_,
        [self = shared_from_this(), source = std::move(source), spec](
        ) -> boost::asio::awaitable<std::optional<Taken>> { co_return self->try_take(source, spec); },
        boost::asio::use_awaitable
    );
    co_return co_await std::move(taken);
}

bool PgBudget::record(std::string const& source, Budget const&, int n) {
    if (!db_ex_)
        return record_now(source, n);
    {
        std::lock_guard lock(mtx_);
        if (away())
            return false;
    }
    boost::asio::post(db_ex_, [self = shared_from_this(), source, n] { (void)self->record_now(source, n); });
    return true;
}

bool PgBudget::record_now(std::string const& source, int n) {
    std::lock_guard lock(mtx_);
    if (away())
        return false;
    if (!db_.query(record_sql, {PgParam::text(source), PgParam::integer(n)})) {
        went_away();
        return false;
    }
    return true;
}

} // namespace icsbridge::cluster
