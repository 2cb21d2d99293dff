// File: oauth_token_rows.cpp
// OAuthTokenRows: one SELECT and one upsert, each a parameterised statement (the token is never spliced
// into SQL, and never appears in a message).
#include "cluster/oauth_token_rows.hpp"

#include "cluster/schema.hpp"

namespace icsbridge::cluster {

OAuthTokenRows::OAuthTokenRows(std::string url, std::string node)
    : db_(std::move(url))
    , node_(std::move(node)) {}

Result<void> OAuthTokenRows::prepare() {
    return connect_and_migrate(db_, migrated_on_);
}

Result<std::optional<std::string>> OAuthTokenRows::load(std::string const& target) {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto r = db_.query("SELECT token FROM icsbridge_oauth_tokens WHERE target = $1", {PgParam::text(target)});
    if (!r)
        return r.error();
    if (PQntuples(r->get()) == 0)
        return std::optional<std::string>{};
    return std::optional<std::string>{std::string(PgRow{r->get(), 0}.bytes(0))};
}

Result<void> OAuthTokenRows::save(std::string const& target, std::string const& token_json) {
    std::lock_guard lock(mtx_);
    if (auto ok = prepare(); !ok)
        return ok.error();
    auto r = db_.query(
        "INSERT INTO icsbridge_oauth_tokens (target, token, saved_by) VALUES ($1, $2, $3) "
        "ON CONFLICT (target) DO UPDATE SET token = excluded.token, saved_by = excluded.saved_by, saved_at = "
        "now()",
        {PgParam::text(target), PgParam::text(token_json), PgParam::text(node_)}
    );
    if (!r)
        return r.error();
    return {};
}

} // namespace icsbridge::cluster
