// File: push_registration_rows.cpp
// PushRegistrationRows: a registration per row (its JSON, as the single box's journal writes it), expiry as
// a column so expired rows go with one DELETE; the VAPID key in a one-row table. Every statement takes
// parameters: nothing from a client is spliced into SQL.
#include "cluster/push_registration_rows.hpp"

#include "cluster/schema.hpp"
#include "dav/push_journal.hpp"

#include <openssl/crypto.h>

namespace icsbridge::cluster {

PushRegistrationRows::PushRegistrationRows(std::string url, std::string node)
    : db_(std::move(url))
    , node_(std::move(node)) {}

Result<void> PushRegistrationRows::prepare() {
    return connect_and_migrate(db_, migrated_on_);
}

Result<std::vector<dav::PushRegistration>> PushRegistrationRows::load() {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto r = db_.query("SELECT body FROM icsbridge_push_registrations");
    if (!r)
        return r.error();
    std::vector<dav::PushRegistration> out;
    for (int i = 0; i < PQntuples(r->get()); ++i)
        if (auto reg = dav::registration_from_json(PgRow{r->get(), i}.bytes(0)))
            out.push_back(std::move(*reg));
    return out;
}

Result<void> PushRegistrationRows::put(dav::PushRegistration const& r) {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto done = db_.query(
        "INSERT INTO icsbridge_push_registrations (id, feed, body, expires, saved_by) "
        "VALUES ($1, $2, $3, $4::bigint, $5) ON CONFLICT (id) DO UPDATE SET feed = excluded.feed, "
        "body = excluded.body, expires = excluded.expires, saved_by = excluded.saved_by, saved_at = now()",
        {PgParam::text(r.id),
         PgParam::text(r.feed),
         PgParam::text(dav::to_json(r)),
         PgParam::integer(r.expires.time_since_epoch().count()),
         PgParam::text(node_)}
    );
    if (!done)
        return done.error();
    return {};
}

Result<bool> PushRegistrationRows::remove(std::string const& id) {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto done =
        db_.query("DELETE FROM icsbridge_push_registrations WHERE id = $1 RETURNING id", {PgParam::text(id)});
    if (!done)
        return done.error();
    return PQntuples(done->get()) > 0;
}

Result<webpush::VapidKey> PushRegistrationRows::vapid_key() {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto fresh = webpush::VapidKey::generate();
    if (!fresh)
        return fresh.error();
    auto pem = fresh->to_pem();
    if (!pem)
        return pem.error();
    auto inserted = db_.query(
        "INSERT INTO icsbridge_vapid_key (pem, saved_by) VALUES ($1, $2) ON CONFLICT (one) DO NOTHING",
        {PgParam::text(*pem), PgParam::text(node_)}
    );
    OPENSSL_cleanse(pem->data(), pem->size());
    if (!inserted)
        return inserted.error();
    auto row = db_.query("SELECT pem FROM icsbridge_vapid_key");
    if (!row)
        return row.error();
    if (PQntuples(row->get()) != 1)
        return fail(errc::io_error, db_.where() + ": the VAPID key row is missing");
    std::string kept(PgRow{row->get(), 0}.bytes(0));
    auto key = webpush::VapidKey::from_pem(kept);
    OPENSSL_cleanse(kept.data(), kept.size());
    if (!key)
        return fail(errc::io_error, db_.where() + ": the VAPID key row holds no P-256 key");
    return key;
}

} // namespace icsbridge::cluster
