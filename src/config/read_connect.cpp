// File: read_connect.cpp
// [connect] (issue 27): the key file, the shared rate, and the Google and Microsoft OAuth clients that
// subscribers connect their own calendars through, each read like a google / microsoft target without a
// calendar (read_oauth_target.cpp), each mistake reported at its FILE:LINE:COL; secrets never echoed.
#include "config/reader.hpp"

#include <string_view>

namespace icsbridge::config_detail {

namespace {

/** Google's token revocation endpoint (RFC 7009), used when a subscriber disconnects. */
constexpr std::string_view google_revoke_url = "https://oauth2.googleapis.com/revoke";

/** A key of targets (or of the other provider) that a [connect] provider does not take, and why. */
struct Misplaced {
    std::string_view key;
    std::string_view why;
    enum class Only { both, google, microsoft } only = Only::both; ///< which provider it is misplaced in
};

constexpr std::string_view named_after_feed = "each connection's calendar is named after its feed";
constexpr std::string_view caldav_key =
    "it is a key of caldav targets; connections sign in to each subscriber's own account over OAuth";
constexpr std::string_view shared_limit = "rate and max_concurrency are set in [connect] itself, for every "
                                          "connection";

constexpr Misplaced misplaced_keys[] = {
    {"calendar", named_after_feed},
    {"calendar_id", named_after_feed},
    {"url", caldav_key},
    {"username", caldav_key},
    {"password", caldav_key},
    {"password_env", caldav_key},
    {"password_file", caldav_key},
    {"type", "the table's name says the provider"},
    {"rate", shared_limit},
    {"max_concurrency", shared_limit},
    {"tenant", "it is a key of [connect.microsoft] alone", Misplaced::Only::google},
    {"revoke_url",
     "Microsoft has no token revocation endpoint: people remove an app's access in their account's settings",
     Misplaced::Only::microsoft},
};

} // namespace

void Reader::read_connect(toml::table const& t, ConnectConfig& out) {
    out.line = static_cast<int>(t.source().begin.line);
    if (!check_keys(t, "[connect]", {"key_file", "google", "microsoft", "rate", "max_concurrency"}))
        return;
    if (!t.contains("key_file")) {
        fail_at(
            t.source(),
            "[connect] needs key_file: a file of 32 random bytes that seals the stored refresh tokens; make "
            "one with: openssl rand -hex 32 > FILE && chmod 600 FILE"
        );
        return;
    }
    // Like every other path in the config, a relative key_file is relative to the directory icsbridge is
    // started in.
    if (auto v = str(t, "key_file"))
        out.key_file = *v;
    if (failed() || !read_rate(t, out.rate))
        return;
    if (auto c = integer(t, "max_concurrency", 1, 64))
        out.max_concurrency = static_cast<int>(*c);
    if (failed())
        return;
    if (!t.contains("google") && !t.contains("microsoft")) {
        fail_at(
            t.source(),
            "[connect] needs google or microsoft: the OAuth client subscribers sign in through, e.g. "
            "google = { client_id = \"...\", client_secret_env = \"GOOGLE_CLIENT_SECRET\" }"
        );
        return;
    }
    for (TargetType const type : {TargetType::google, TargetType::microsoft}) {
        read_connect_provider(t, type, out);
        if (failed())
            return;
    }
}

void Reader::read_connect_provider(toml::table const& connect, TargetType type, ConnectConfig& out) {
    bool const google = type == TargetType::google;
    std::string const name = google ? "google" : "microsoft";
    toml::node const* n = connect.get(name);
    if (!n)
        return;
    std::string const where = "[connect." + name + "]";
    if (!n->is_table()) {
        fail_at(
            n->source(),
            name + " in [connect] must be a table ({ client_id = \"...\" } or " + where + "), not " +
                std::string(type_name(n->type()))
        );
        return;
    }
    auto const& t = *n->as_table();
    TargetConfig c;
    c.name = name;
    c.type = type;
    c.line = static_cast<int>(t.source().begin.line);
    if (!check_connect_provider_keys(t, where, google))
        return;
    read_oauth_client(
        t,
        where,
        "the id of your OAuth web client; the README's \"Letting subscribers connect their own calendars\" "
        "says how to make one",
        c
    );
    if (!google && !failed())
        read_tenant(t, c);
    if (failed())
        return;
    read_oauth_endpoints(t, c);
    if (google && !failed())
        read_revoke_url(t, c);
    if (auto ca = ca_file(t))
        c.ca_file = *ca;
    if (failed())
        return;
    // The shared values, so that code handed one provider's TargetConfig sees the same limits.
    c.rate = out.rate;
    c.max_concurrency = out.max_concurrency;
    (google ? out.google : out.microsoft) = std::move(c);
}

bool Reader::check_connect_provider_keys(toml::table const& t, std::string const& where, bool google) {
    for (auto const& [k, v] : t) {
        std::string_view const key = k.str();
        for (auto const& m : misplaced_keys) {
            bool const applies =
                m.only == Misplaced::Only::both || (m.only == Misplaced::Only::google) == google;
            if (applies && m.key == key)
                return fail_at(
                    k.source(),
                    "'" + std::string(key) + "' is not valid in " + where + " (" + std::string(m.why) + ")"
                );
        }
    }
    return check_keys(
        t,
        where,
        google ? key_list({"revoke_url", "ca_file"}, oauth_client_keys)
               : key_list({"tenant", "ca_file"}, oauth_client_keys)
    );
}

void Reader::read_revoke_url(toml::table const& t, TargetConfig& out) {
    out.revoke_url = std::string(google_revoke_url);
    auto v = str(t, "revoke_url");
    if (!v)
        return;
    auto checked = check_http_url(*v);
    if (!checked) {
        fail_at(t.get("revoke_url")->source(), "revoke_url " + checked.error().message);
        return;
    }
    out.revoke_url = *checked;
}

} // namespace icsbridge::config_detail
