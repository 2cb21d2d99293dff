// File: read_oauth_target.cpp
// [targets.NAME] of type google or microsoft: the OAuth client (client_id, client_secret*), the calendar by
// name or id, the Entra tenant, and the endpoints, which default to the provider's own (tenant filled in).
// The client, tenant and endpoint readers serve [connect]'s providers too (read_connect.cpp).
#include "config/reader.hpp"

#include <string_view>

namespace icsbridge::config_detail {

namespace {

/** What a provider's target uses when the config does not say. */
struct ProviderDefaults {
    std::string api_base;
    std::string auth_url;
    std::string token_url;
    Budget rate;
};

ProviderDefaults provider_defaults(TargetType type, std::string const& tenant) {
    if (type == TargetType::google)
        // Google's quota is about 600 requests a minute per user: 500 leaves room for the person's own apps.
        return {
            "https://www.googleapis.com/calendar/v3",
            "https://accounts.google.com/o/oauth2/v2/auth",
            "https://oauth2.googleapis.com/token",
            Budget{500, std::chrono::minutes(1)}};
    std::string const authority = "https://login.microsoftonline.com/" + tenant + "/oauth2/v2.0/";
    return {
        "https://graph.microsoft.com/v1.0",
        authority + "authorize",
        authority + "token",
        Budget{500, std::chrono::minutes(1)}};
}

/** The tenant becomes a path segment of the authority URL: a name, a domain or a GUID, nothing else. */
bool valid_tenant(std::string const& s) {
    return valid_feed_name(s) && s != "." && s != "..";
}

} // namespace

void Reader::read_oauth_target(toml::table const& t, std::string const& where, TargetConfig& out) {
    bool const google = out.type == TargetType::google;
    if (!check_oauth_keys(t, where, google))
        return;
    read_oauth_client(
        t,
        where,
        "the id of your OAuth client; the README's \"Connecting Google Calendar and Microsoft 365\" says how "
        "to make one",
        out
    );
    if (failed())
        return;
    read_oauth_calendar(t, where, out);
    if (!google)
        read_tenant(t, out);
    if (failed())
        return;
    read_oauth_endpoints(t, out);
}

void Reader::read_oauth_client(
    toml::table const& t, std::string const& where, std::string const& hint, TargetConfig& out
) {
    if (!t.contains("client_id")) {
        fail_at(t.source(), where + " needs client_id (" + hint + ")");
        return;
    }
    if (auto v = str(t, "client_id"))
        out.client_id = *v;
    if (failed())
        return;
    read_secret_of(t, where, "client_secret", false, out.client_secret);
}

void Reader::read_tenant(toml::table const& t, TargetConfig& out) {
    auto v = str(t, "tenant");
    if (!v)
        return;
    if (!valid_tenant(*v)) {
        fail_at(
            t.get("tenant")->source(),
            "tenant = \"" + *v +
                "\" is not a tenant: use common, organizations, consumers, a directory (tenant) id or a "
                "domain such as contoso.onmicrosoft.com"
        );
        return;
    }
    out.tenant = *v;
}

bool Reader::check_oauth_keys(toml::table const& t, std::string const& where, bool google) {
    // The keys of the other kinds are named as such, not offered as typos of this kind's.
    note_ =
        google
            ? " (a google target signs in over OAuth: client_id, then icsbridge connect; url, username and "
              "password are keys of caldav targets, tenant of microsoft ones)"
            : " (a microsoft target signs in over OAuth: client_id, then icsbridge connect; url, username "
              "and password are keys of caldav targets)";
    Keys const tenant{"tenant"}, none{}; // tenant: a key of microsoft targets alone
    auto const allowed = key_list(google ? none : tenant, target_keys, oauth_client_keys, oauth_target_keys);
    auto const elsewhere = key_list(google ? tenant : none, caldav_target_keys);
    bool const ok = check_keys(t, where, allowed, elsewhere);
    note_.clear();
    return ok;
}

void Reader::read_oauth_calendar(toml::table const& t, std::string const& where, TargetConfig& out) {
    bool const by_name = t.contains("calendar");
    if (by_name && t.contains("calendar_id")) {
        fail_at(key_pos(t, "calendar_id"), "give calendar or calendar_id in " + where + ", not both");
        return;
    }
    if (!by_name && !t.contains("calendar_id")) {
        fail_at(
            t.source(),
            where + " needs calendar (a calendar's name: found, or created if missing) or calendar_id (an "
                    "existing calendar's id, or \"primary\")"
        );
        return;
    }
    if (!by_name) {
        if (auto v = str(t, "calendar_id"))
            out.calendar_id = *v;
        return;
    }
    auto name = str(t, "calendar");
    if (!name)
        return;
    // Google's calendar ids are addresses (…@group.calendar.google.com, the account's own address), and
    // "primary" names the account's main calendar: such a `calendar` means that calendar, not a new one.
    if (out.type == TargetType::google && (name->find('@') != std::string::npos || *name == "primary"))
        out.calendar_id = *name;
    else
        out.calendar = *name;
}

void Reader::read_oauth_endpoints(toml::table const& t, TargetConfig& out) {
    auto const d = provider_defaults(out.type, out.tenant);
    out.rate = d.rate; // read_target_limits() replaces it with the target's own `rate`
    std::pair<std::string_view, std::pair<std::string*, std::string const*>> const endpoints[] = {
        {"api_base", {&out.api_base, &d.api_base}},
        {"auth_url", {&out.auth_url, &d.auth_url}},
        {"token_url", {&out.token_url, &d.token_url}},
    };
    for (auto const& [key, slot] : endpoints) {
        auto const [field, fallback] = slot;
        if (!t.contains(key)) {
            *field = *fallback;
            continue;
        }
        auto v = str(t, key);
        if (!v)
            return;
        auto checked = check_http_url(*v);
        if (!checked) {
            fail_at(t.get(key)->source(), std::string(key) + " " + checked.error().message);
            return;
        }
        *field = *checked;
    }
}

} // namespace icsbridge::config_detail
