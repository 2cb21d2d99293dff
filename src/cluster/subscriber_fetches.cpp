// File: subscriber_fetches.cpp
// SubscriberFetches: push the fetch times that moved, pull every replica's.
#include "cluster/subscriber_fetches.hpp"

namespace icsbridge::cluster {

namespace {

// A fetch time only moves forward, whichever replica's write comes last.
constexpr char const* write_sql = R"sql(
INSERT INTO icsbridge_subscribers AS s (feed, subscriber, last_fetch) VALUES ($1, $2, $3::bigint)
ON CONFLICT (feed, subscriber) DO UPDATE SET last_fetch = greatest(s.last_fetch, EXCLUDED.last_fetch)
)sql";

constexpr char const* read_sql = "SELECT feed, subscriber, last_fetch FROM icsbridge_subscribers";

} // namespace

Result<void> SubscriberFetches::sync() {
    for (auto const& feed : store_.status()) {
        for (auto const& sub : feed.subscribers) {
            if (!sub.last_fetch)
                continue;
            auto const t = sub.last_fetch->time_since_epoch().count();
            auto& written = written_[{feed.name, sub.name}];
            if (written >= t)
                continue; // nothing new (or the time came from the database)
            auto ok = db_.query(
                write_sql,
                {PgParam::text(feed.name), PgParam::text(sub.name), PgParam::integer(t)}
            );
            if (!ok)
                return ok.error();
            written = t;
        }
    }
    auto rows = db_.query(read_sql, {}, true);
    if (!rows)
        return rows.error();
    for (int i = 0; i < PQntuples(rows->get()); ++i) {
        PgRow const row{rows->get(), i};
        auto const t = row.int8(2);
        if (!t)
            continue;
        auto const feed = std::string(row.bytes(0));
        auto const name = std::string(row.bytes(1));
        store_.merge_subscriber_fetch(feed, name, sys_seconds{std::chrono::seconds{*t}});
        // What the database has need not be written back.
        auto& written = written_[{feed, name}];
        written = std::max(written, *t);
    }
    return {};
}

} // namespace icsbridge::cluster
