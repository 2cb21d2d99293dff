// File: read_target.cpp
// [targets.NAME] (calendars icsbridge writes into) and a feed's `push = [...]`, each mistake reported at its
// FILE:LINE:COL; CalDAV targets here, the OAuth ones in read_oauth_target.cpp. Secrets (password,
// client_secret) are resolved here (inline, environment or file) and never echoed.
#include "config/reader.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

namespace icsbridge {

TargetConfig const* Config::find_target(std::string_view name) const {
    auto it = targets.find(std::string(name));
    return it == targets.end() ? nullptr : &it->second;
}

namespace config_detail {

void Reader::read_target(std::string const& name, toml::table const& t, TargetConfig& out) {
    std::string const where = "[targets." + name + "]";
    out.line = static_cast<int>(t.source().begin.line);
    if (!t.contains("type")) {
        // A misspelt `type` is named as such before its absence is.
        bool const keys_ok = check_keys(
            t,
            where,
            key_list({"tenant"}, target_keys, caldav_target_keys, oauth_client_keys, oauth_target_keys)
        );
        if (keys_ok)
            fail_at(t.source(), where + " needs type = \"caldav\", \"google\" or \"microsoft\"");
        return;
    }
    if (auto v = choice<TargetType>(
            t,
            "type",
            {{"caldav", TargetType::caldav},
             {"google", TargetType::google},
             {"microsoft", TargetType::microsoft}}
        ))
        out.type = *v;
    if (failed())
        return;
    if (out.type == TargetType::caldav)
        read_caldav_target(t, where, out);
    else
        read_oauth_target(t, where, out);
    if (failed())
        return;
    read_target_limits(t, out);
}

void Reader::read_caldav_target(toml::table const& t, std::string const& where, TargetConfig& out) {
    // The keys of OAuth targets are named as such, not offered as typos of CalDAV ones.
    note_ = " (it is a key of google and microsoft targets)";
    bool const keys_ok = check_keys(
        t,
        where,
        key_list({}, target_keys, caldav_target_keys),
        key_list({"tenant"}, oauth_client_keys, oauth_target_keys)
    );
    note_.clear();
    if (!keys_ok)
        return;
    for (std::string_view key : {"url", "username"})
        if (!t.contains(key)) {
            fail_at(t.source(), where + " needs " + std::string(key));
            return;
        }
    read_target_url(t, out);
    if (auto v = str(t, "calendar"))
        out.calendar = *v;
    if (auto v = str(t, "username"))
        out.username = *v;
    if (failed())
        return;
    read_secret_of(t, where, "password", true, out.password);
}

namespace {

/** A URL with the scheme and host in lower case and without a default port. */
std::string normal_url(std::string const& url) {
    auto u = boost::urls::parse_absolute_uri(url);
    if (!u)
        return url;
    boost::urls::url v(*u);
    v.normalize_scheme();
    v.normalize_authority();
    bool const default_port = (v.scheme_id() == boost::urls::scheme::http && v.port_number() == 80) ||
                              (v.scheme_id() == boost::urls::scheme::https && v.port_number() == 443);
    if (default_port)
        v.remove_port();
    return std::string(v.buffer());
}

/**
 * The calendar a target names, as one string; "" when the config cannot tell (an OAuth target's calendar
 * by name or "primary": which account it is in only its sign-in knows, and push compares what the API
 * resolves). A CalDAV collection by its URL; one found by display name under the user's calendar home
 * also by the user (two users' "Work" are two calendars); an OAuth calendar id by its API.
 */
std::string calendar_key(TargetConfig const& t) {
    if (t.type != TargetType::caldav) {
        if (t.calendar_id.empty() || t.calendar_id == "primary")
            return {};
        return normal_url(t.api_base) + "\n" + t.calendar_id;
    }
    auto const url = normal_url(t.url);
    return t.calendar.empty() ? url : url + "\n" + t.username + "\n" + t.calendar;
}

/** The calendar as the message names it: the URL and display name, or the calendar id. */
std::string calendar_words(TargetConfig const& t) {
    if (t.type != TargetType::caldav)
        return "calendar_id \"" + t.calendar_id + "\"";
    return t.url + (t.calendar.empty() ? std::string() : " \"" + t.calendar + "\"");
}

} // namespace

void Reader::check_shared_calendars(toml::table const& targets, Config const& cfg) {
    // A writer owns what it wrote, so neither would delete the other's items; but both would write the
    // items of a feed they share, each item twice, and only one of them may own the calendar.
    std::map<std::string, std::pair<std::string, toml::source_position>> seen;
    for (auto const& [key, node] : in_file_order(targets)) {
        auto const& t = cfg.targets.at(std::string(key->str()));
        auto const calendar = calendar_key(t);
        if (calendar.empty())
            continue;
        auto const at = node->source().begin;
        auto const [first, fresh] = seen.emplace(calendar, std::pair{t.name, at});
        if (fresh)
            continue;
        auto const& [other, there] = first->second;
        fail_at(
            node->source(),
            "[targets." + t.name + "] writes into the same calendar as [targets." + other + "] (" + path_ +
                ":" + std::to_string(there.line) + ":" + std::to_string(there.column) + ", " +
                calendar_words(t) +
                "): give each target its own calendar, or push the feeds into one target (a target takes "
                "several feeds)"
        );
        return;
    }
}

void Reader::read_target_limits(toml::table const& t, TargetConfig& out) {
    if (!read_rate(t, out.rate))
        return;
    if (auto c = integer(t, "max_concurrency", 1, 64))
        out.max_concurrency = static_cast<int>(*c);
    if (auto ca = ca_file(t))
        out.ca_file = *ca;
    if (auto const* n = t.get("max_response")) {
        constexpr std::size_t least = std::size_t{64} * 1024, most = std::size_t{1024} * 1024 * 1024;
        auto const size = n->is_string() ? parse_size(n->as_string()->get()) : std::nullopt;
        if (!size || *size < least || *size > most) {
            fail_at(n->source(), "max_response must be a size from \"64KiB\" to \"1GiB\", such as \"32MiB\"");
            return;
        }
        out.max_response = *size;
    }
}

bool Reader::read_rate(toml::table const& t, Budget& out) {
    auto r = str(t, "rate");
    if (!r)
        return !failed();
    auto parsed = parse_budget(*r);
    if (!parsed)
        return fail_at(
            t.get("rate")->source(),
            "rate = \"" + *r + "\" is not a request rate: use requests/period, e.g. \"300/m\" or \"20/1s\""
        );
    out = *parsed;
    return true;
}

void Reader::read_target_url(toml::table const& t, TargetConfig& out) {
    auto url = str(t, "url");
    if (!url)
        return;
    auto checked = check_http_url(*url);
    if (!checked) {
        fail_at(t.get("url")->source(), "url " + checked.error().message);
        return;
    }
    // Collections are directories: DAV servers answer a path without its slash with a redirect.
    out.url = *checked + "/";
}

void Reader::read_secret_of(
    toml::table const& t, std::string const& where, std::string const& key, bool required, std::string& out
) {
    std::string const file_key = key + "_file";
    if (!t.contains(file_key)) {
        bool const none = !t.contains(key) && !t.contains(key + "_env");
        if (!required && none)
            return;
        if (none) {
            fail_at(t.source(), where + " needs " + key + ", " + key + "_env or " + file_key);
            return;
        }
        if (auto value = secret(t, key, where))
            out = std::move(*value);
        return;
    }
    if (t.contains(key) || t.contains(key + "_env")) {
        fail_at(
            key_pos(t, file_key),
            "give one of " + key + ", " + key + "_env or " + file_key + " in " + where
        );
        return;
    }
    auto file = str(t, file_key);
    if (!file)
        return;
    // A file this environment lacks (a service credential, on a workstation) is a missing secret: only the
    // commands that use this table fail over it.
    std::ifstream in(*file, std::ios::binary);
    if (!in) {
        missing_at(
            t.get(file_key)->source(),
            where,
            file_key + " \"" + *file + "\" of " + where + " cannot be read: " + std::strerror(errno)
        );
        return;
    }
    std::string value((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Files written by `echo` or an editor end with a newline that is no part of the secret.
    while (!value.empty() && (value.back() == '\n' || value.back() == '\r'))
        value.pop_back();
    if (value.empty()) {
        missing_at(
            t.get(file_key)->source(),
            where,
            file_key + " \"" + *file + "\" of " + where + " is empty"
        );
        return;
    }
    out = std::move(value);
}

void Reader::read_push(toml::table const& t, std::string const& where, Config const& cfg, FeedConfig& f) {
    auto const* a = typed(t, "push", toml::node_type::array);
    if (!a)
        return;
    for (auto const& entry : *a->as_array()) {
        PushTo to;
        if (auto const* s = entry.as_string()) {
            to.target = s->get();
        } else if (auto const* e = entry.as_table()) {
            if (!check_keys(*e, where + ".push", {"target", "view"}))
                return;
            if (!e->contains("target")) {
                fail_at(e->source(), "a push entry needs target = \"NAME\"");
                return;
            }
            auto target = str(*e, "target");
            auto view = str(*e, "view", true);
            if (!target || failed())
                return;
            to.target = *target;
            to.view = view.value_or("");
            if (auto const* v = e->get("view")) {
                to.view_line = static_cast<int>(v->source().begin.line);
                to.view_column = static_cast<int>(v->source().begin.column);
            }
        } else {
            fail_at(
                entry.source(),
                "push lists target names or { target = \"NAME\", view = \"days=90\" } tables, not " +
                    std::string(type_name(entry.type()))
            );
            return;
        }
        if (!check_push_target(to.target, cfg, entry))
            return;
        // Two mirrors of one feed in one calendar would delete each other's items.
        for (auto const& earlier : f.push)
            if (earlier.target == to.target) {
                fail_at(entry.source(), "push lists target '" + to.target + "' twice");
                return;
            }
        f.push.push_back(std::move(to));
    }
}

bool Reader::check_push_target(std::string const& name, Config const& cfg, toml::node const& at) {
    if (cfg.find_target(name))
        return true;
    std::vector<std::string_view> names;
    for (auto const& [n, tc] : cfg.targets)
        names.push_back(n);
    std::string msg = "unknown target '" + name + "' in push";
    if (names.empty())
        msg += " (no [targets.NAME] table is defined)";
    else if (auto best = closest_match(name, names); !best.empty())
        msg += "; did you mean '" + best + "'?";
    else
        msg += " (defined: " + join(names) + ")";
    return fail_at(at.source(), msg);
}

} // namespace config_detail

} // namespace icsbridge
