// File: read_source.cpp
// [sources.NAME]: type, base URL, the secret (inline or from the environment), timeouts, concurrency, CA
// file and call budget, each mistake reported at its FILE:LINE:COL.
#include "config/reader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace icsbridge::config_detail {

void Reader::read_source(std::string const& name, toml::table const& t, SourceConfig& s) {
    std::string const where = "[sources." + name + "]";
    if (!t.contains("type")) {
        fail_at(t.source(), where + " needs type = \"events\" or \"jobs\"");
        return;
    }
    auto type = choice<SourceType>(t, "type", {{"events", SourceType::events}, {"jobs", SourceType::jobs}});
    if (!type)
        return;
    s.type = *type;
    bool const events = s.type == SourceType::events;
    if (!check_source_keys(t, where, events))
        return;
    read_base_url(t, where, events, s);
    if (failed())
        return;
    if (auto sec = secret(t, events ? "token" : "api_key", where))
        s.secret = std::move(*sec);
    if (failed())
        return;
    if (auto ua = str(t, "user_agent"))
        s.user_agent = *ua;
    if (auto d = duration(t, "timeout"))
        s.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    if (auto c = integer(t, "max_concurrency", 1, 64))
        s.max_concurrency = static_cast<int>(*c);
    if (auto m = integer(t, "max_response_mb", 1, 1024))
        s.max_response_mb = static_cast<int>(*m);
    if (events)
        s.budget = default_events_budget;
    if (!read_budget(t, s))
        return;
    if (events && (t.contains("webhook_secret") || t.contains("webhook_secret_env")))
        read_webhook_secret(t, where, s);
    if (failed())
        return;
    read_ca_file(t, s);
}

bool Reader::check_source_keys(toml::table const& t, std::string const& where, bool events) {
    note_ = events ? " (an events source takes token or token_env)"
                   : " (a jobs source takes api_key or api_key_env; only events sources send webhooks)";
    bool const ok = events ? check_keys(
                                 t,
                                 where,
                                 {"type",
                                  "base_url",
                                  "token",
                                  "token_env",
                                  "user_agent",
                                  "timeout",
                                  "max_concurrency",
                                  "max_response_mb",
                                  "ca_file",
                                  "budget",
                                  "webhook_secret",
                                  "webhook_secret_env"},
                                 {"api_key", "api_key_env"}
                             )
                           : check_keys(
                                 t,
                                 where,
                                 {"type",
                                  "base_url",
                                  "api_key",
                                  "api_key_env",
                                  "user_agent",
                                  "timeout",
                                  "max_concurrency",
                                  "max_response_mb",
                                  "ca_file",
                                  "budget"},
                                 {"token", "token_env", "webhook_secret", "webhook_secret_env"}
                             );
    note_.clear();
    return ok;
}

void Reader::read_base_url(toml::table const& t, std::string const& where, bool events, SourceConfig& s) {
    if (!t.contains("base_url")) {
        fail_at(
            t.source(),
            where + " needs base_url (e.g. \"https://" + std::string(events ? "events" : "jobs") +
                ".example.com\")"
        );
        return;
    }
    if (auto url = str(t, "base_url")) {
        auto checked = check_http_url(*url);
        if (!checked) {
            fail_at(t.get("base_url")->source(), "base_url " + checked.error().message);
            return;
        }
        s.base_url = *checked;
    }
}

bool Reader::read_budget(toml::table const& t, SourceConfig& s) {
    auto b = str(t, "budget");
    if (!b)
        return true;
    if (auto parsed = parse_budget(*b)) {
        s.budget = *parsed;
        return true;
    }
    fail_at(
        t.get("budget")->source(),
        "budget = \"" + *b + "\" is not a call budget: use calls/period, e.g. \"2000/h\" or \"100/15m\""
    );
    return false;
}

void Reader::read_ca_file(toml::table const& t, SourceConfig& s) {
    if (auto ca = ca_file(t))
        s.ca_file = *ca;
}

void Reader::read_webhook_secret(toml::table const& t, std::string const& where, SourceConfig& s) {
    // Only `serve` answers hooks: exporting the source's feeds does not need it.
    auto value = secret(t, "webhook_secret", where, where + " webhook_secret");
    if (!value)
        return;
    auto const key = t.contains("webhook_secret") ? "webhook_secret" : "webhook_secret_env";
    // It is the whole credential of the hook URL, and it travels as a path segment: long enough not to be
    // guessed, and nothing a proxy or a client would percent-encode or normalise differently.
    constexpr std::size_t min_length = 16;
    if (value->size() < min_length) {
        fail_at(
            t.get(key)->source(),
            "the webhook secret of " + where + " is shorter than " + std::to_string(min_length) +
                " characters; make one with `openssl rand -hex 16`"
        );
        return;
    }
    for (char c : *value) {
        bool const safe = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                          c == '-' || c == '_' || c == '.' || c == '~';
        if (!safe) {
            fail_at(
                t.get(key)->source(),
                "the webhook secret of " + where +
                    " may hold only letters, digits and - _ . ~ (it is a URL path segment); make one with "
                    "`openssl rand -hex 16`"
            );
            return;
        }
    }
    s.webhook_secret = std::move(*value);
}

} // namespace icsbridge::config_detail
