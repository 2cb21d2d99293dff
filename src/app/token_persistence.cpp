// File: token_persistence.cpp
// token_persistence() and sign_in_store(): the file and the cluster row of each OAuth target's sign-in.
#include "app/token_persistence.hpp"

#include "app/row_then_file.hpp"
#include "cluster/oauth_token_rows.hpp"
#include "oauth/token_source.hpp"
#include <icsbridge/net.hpp>

#include <memory>
#include <optional>

namespace icsbridge::cli {

namespace {

Result<std::optional<oauth::StoredToken>> from_row(std::string const& json) {
    auto t = oauth::token_from_json(json);
    if (!t)
        return fail(errc::io_error, "the database's token row: " + t.error().message);
    return std::optional<oauth::StoredToken>{std::move(*t)};
}

} // namespace

PersistenceFor<std::optional<oauth::StoredToken>, oauth::StoredToken>
token_persistence(std::string const& dir, std::shared_ptr<cluster::OAuthTokenRows> rows, Logger const& log) {
    if (!rows)
        return [dir](std::string const& target) { return oauth::token_file(dir, target); };
    return [dir, rows, log](std::string const& target) {
        return row_then_file<Persistence<std::optional<oauth::StoredToken>, oauth::StoredToken>>(
            oauth::token_file(dir, target),
            rows,
            target,
            log,
            PersistenceWords{
                "target " + target,
                "reading its sign-in from the file",
                "its new refresh token is on this replica's disk only: "},
            from_row,
            [](oauth::StoredToken const& t) { return oauth::to_json(t); }
        );
    };
}

push::Authorizers oauth_authorizers(
    PersistenceFor<std::optional<oauth::StoredToken>, oauth::StoredToken> keeping,
    std::string const& config_path,
    Logger const& log
) {
    return [keeping = std::move(keeping),
            path = config_path,
            log](boost::asio::any_io_executor ex, TargetConfig const& t) {
        auto held = std::make_shared<oauth::HeldTokens>(std::move(ex), t, path, keeping(t.name), log);
        push::Authorizer a;
        a.authorization = [held] { return oauth::authorize_with(held); };
        a.rejected = [held] { held->tokens.rejected(); };
        return a;
    };
}

// Not row_then_file's lenient save: a sign-in stored by `connect` that misses the row would leave the other
// replicas without it while the person who just signed in is told it worked, so a failed row is the
// command's error (the file is still written, and named in the message).
SignInStore sign_in_store(std::string const& dir, std::shared_ptr<cluster::OAuthTokenRows> rows) {
    return [dir, rows](std::string const& target, oauth::StoredToken const& t) -> Result<void> {
        if (auto written = oauth::save_token(oauth::token_path(dir, target), t); !written)
            return written.error();
        if (!rows)
            return {};
        if (auto saved = rows->save(target, oauth::to_json(t)); !saved)
            return fail(
                errc::io_error,
                "the sign-in is stored in " + oauth::token_path(dir, target) +
                    " but not in the database, where the other replicas read it: " + saved.error().message
            );
        return {};
    };
}

} // namespace icsbridge::cli
