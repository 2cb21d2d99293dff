// File: read_target.cpp
// [targets.NAME] (calendars icsbridge writes into) and a feed's `push = [...]`, each mistake reported at its
// FILE:LINE:COL. The password is resolved here (inline, environment or file) and never echoed.
#include "config/reader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace icsbridge {

TargetConfig const* Config::find_target(std::string_view name) const {
    auto it = targets.find(std::string(name));
    return it == targets.end() ? nullptr : &it->second;
}

namespace config_detail {

void Reader::read_target(std::string const& name, toml::table const& t, TargetConfig& out) {
    std::string const where = "[targets." + name + "]";
    out.line = static_cast<int>(t.source().begin.line);
    if (!check_keys(
            t,
            where,
            {"type",
             "url",
             "calendar",
             "username",
             "password",
             "password_env",
             "password_file",
             "rate",
             "ca_file",
             "max_concurrency"}
        ))
        return;
    if (!t.contains("type")) {
        fail_at(t.source(), where + " needs type = \"caldav\"");
        return;
    }
    if (auto v = choice<TargetType>(t, "type", {{"caldav", TargetType::caldav}}))
        out.type = *v;
    if (failed())
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
    read_password(t, where, out);
    if (failed())
        return;
    if (auto r = str(t, "rate")) {
        auto parsed = parse_budget(*r);
        if (!parsed) {
            fail_at(
                t.get("rate")->source(),
                "rate = \"" + *r +
                    "\" is not a request rate: use requests/period, e.g. \"300/m\" or \"20/1s\""
            );
            return;
        }
        out.rate = *parsed;
    }
    if (auto c = integer(t, "max_concurrency", 1, 64))
        out.max_concurrency = static_cast<int>(*c);
    if (auto ca = ca_file(t))
        out.ca_file = *ca;
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

void Reader::read_password(toml::table const& t, std::string const& where, TargetConfig& out) {
    if (!t.contains("password_file")) {
        if (auto pw = secret(t, "password", where))
            out.password = std::move(*pw);
        return;
    }
    if (t.contains("password") || t.contains("password_env")) {
        fail_at(
            key_pos(t, "password_file"),
            "give one of password, password_env or password_file in " + where
        );
        return;
    }
    auto file = str(t, "password_file");
    if (!file)
        return;
    std::ifstream in(*file, std::ios::binary);
    if (!in) {
        fail_at(
            t.get("password_file")->source(),
            "password_file \"" + *file + "\" cannot be read: " + std::strerror(errno)
        );
        return;
    }
    std::string pw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Files written by `echo` or an editor end with a newline that is no part of the password.
    while (!pw.empty() && (pw.back() == '\n' || pw.back() == '\r'))
        pw.pop_back();
    if (pw.empty()) {
        fail_at(t.get("password_file")->source(), "password_file \"" + *file + "\" is empty");
        return;
    }
    out.password = std::move(pw);
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
