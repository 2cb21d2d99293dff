// File: push_state_rows.cpp
// PushStateRows: one SELECT and one upsert, each a parameterised statement.
#include "cluster/push_state_rows.hpp"

namespace icsbridge::cluster {

PushStateRows::PushStateRows(std::string url, std::string node)
    : db_(std::move(url))
    , node_(std::move(node)) {}

Result<std::optional<std::string>> PushStateRows::load(std::string const& target) {
    std::lock_guard lock(mtx_);
    auto r = db_.query("SELECT state FROM icsbridge_push_state WHERE target = $1", {PgParam::text(target)});
    if (!r)
        return r.error();
    if (PQntuples(r->get()) == 0)
        return std::optional<std::string>{};
    return std::optional<std::string>{std::string(PgRow{r->get(), 0}.bytes(0))};
}

Result<void> PushStateRows::save(std::string const& target, std::string const& state_json) {
    std::lock_guard lock(mtx_);
    auto r = db_.query(
        "INSERT INTO icsbridge_push_state (target, state, saved_by) VALUES ($1, $2, $3) "
        "ON CONFLICT (target) DO UPDATE SET state = excluded.state, saved_by = excluded.saved_by, saved_at = "
        "now()",
        {PgParam::text(target), PgParam::text(state_json), PgParam::text(node_)}
    );
    if (!r)
        return r.error();
    return {};
}

} // namespace icsbridge::cluster
