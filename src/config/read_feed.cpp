// File: read_feed.cpp
// [feeds.NAME]: the keys each kind of feed takes (decided by its source), their values, params, filter and
// subscriber tokens, each mistake reported at its FILE:LINE:COL.
#include "config/reader.hpp"
#include <icsbridge/digest.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace icsbridge::config_detail {

void Reader::read_feed(std::string const& name, toml::table const& t, Config const& cfg, FeedConfig& f) {
    std::string const where = "[feeds." + name + "]";
    f.line = static_cast<int>(t.source().begin.line);
    f.title = name;
    if (t.contains("merge")) {
        read_merged_feed(name, t, f);
        if (!failed())
            read_push(t, where, cfg, f);
        return;
    }
    // The source decides which keys make sense, so it is read first.
    SourceConfig const* src = read_feed_source(t, where, cfg, f);
    if (!src)
        return;
    bool const events = src->type == SourceType::events;
    if (!check_feed_keys(t, where, events, f) || !read_select(t, where, events, f))
        return;
    read_feed_common(t, f);
    if (failed())
        return;
    if (events)
        read_events_feed(t, f);
    else
        read_jobs_feed(t, f);
    if (failed())
        return;
    read_feed_extras(t, where, cfg, f);
}

SourceConfig const*
Reader::read_feed_source(toml::table const& t, std::string const& where, Config const& cfg, FeedConfig& f) {
    if (!t.contains("source")) {
        fail_at(
            t.source(),
            where + " needs source = \"NAME\" (one of the [sources.NAME] tables), or merge = [\"FEED\", ...]"
        );
        return nullptr;
    }
    auto src_name = str(t, "source");
    if (!src_name)
        return nullptr;
    SourceConfig const* src = cfg.find_source(*src_name);
    if (!src) {
        std::vector<std::string_view> names;
        for (auto const& [n, s] : cfg.sources)
            names.push_back(n);
        std::string msg = "unknown source '" + *src_name + "' in " + where;
        if (names.empty())
            msg += " (no [sources.NAME] table is defined)";
        else if (auto best = closest_match(*src_name, names); !best.empty())
            msg += "; did you mean '" + best + "'?";
        else
            msg += " (defined: " + join(names) + ")";
        fail_at(t.get("source")->source(), msg);
        return nullptr;
    }
    f.source = *src_name;
    return src;
}

bool Reader::check_feed_keys(
    toml::table const& t, std::string const& where, bool events, FeedConfig const& f
) {
    note_ = " (it applies only to feeds of " + std::string(events ? "a jobs" : "an events") + " source; '" +
            f.source + "' is " + (events ? "an events" : "a jobs") + " source)";
    bool const ok =
        events ? check_keys(
                     t,
                     where,
                     {"source", "select",    "title",         "description",    "timezone",
                      "color",  "refresh",   "fetch_timeout", "token",          "tokens",
                      "params", "alarm",     "cancelled",     "ticket_classes", "organization_id",
                      "window", "keep_past", "max_items",     "filter",         "push"},
                     {"due_after", "jobs_as"}
                 )
               : check_keys(
                     t,
                     where,
                     {"source",
                      "select",
                      "title",
                      "description",
                      "timezone",
                      "color",
                      "refresh",
                      "fetch_timeout",
                      "token",
                      "tokens",
                      "params",
                      "due_after",
                      "jobs_as",
                      "max_items",
                      "filter",
                      "push"},
                     {"alarm", "cancelled", "ticket_classes", "organization_id", "window", "keep_past"}
                 );
    note_.clear();
    return ok;
}

bool Reader::read_select(toml::table const& t, std::string const& where, bool events, FeedConfig& f) {
    std::vector<std::string_view> const selects =
        events ? std::vector<std::string_view>{"organizer", "organization", "search"}
               : std::vector<std::string_view>{"search", "recent"};
    if (!t.contains("select")) {
        fail_at(t.source(), where + " needs select = one of: " + join(selects));
        return false;
    }
    auto select = str(t, "select");
    if (!select)
        return false;
    if (std::find(selects.begin(), selects.end(), *select) == selects.end()) {
        fail_at(
            t.get("select")->source(),
            "select = \"" + *select + "\" does not fit " + std::string(events ? "events" : "jobs") +
                " source '" + f.source + "'; use one of: " + join(selects)
        );
        return false;
    }
    f.select = *select;

    return true;
}

void Reader::read_feed_common(toml::table const& t, FeedConfig& f) {
    if (auto v = str(t, "title"))
        f.title = *v;
    if (auto v = str(t, "description", true))
        f.description = *v;
    read_timezone(t, f);
    read_color(t, f);
    if (auto v = duration(t, "refresh"))
        f.refresh = *v;
    if (auto v = integer(t, "max_items", 1, 10'000'000))
        f.max_items = static_cast<std::size_t>(*v);
    if (auto v = duration(t, "fetch_timeout"))
        f.fetch_timeout = *v;
}

void Reader::read_color(toml::table const& t, FeedConfig& f) {
    auto v = str(t, "color");
    if (!v)
        return;
    bool const hex = v->size() == 7 && v->front() == '#' &&
                     std::all_of(v->begin() + 1, v->end(), [](char c) { return hex_digit(c) >= 0; });
    if (!hex) {
        fail_at(
            t.get("color")->source(),
            "color = \"" + *v + "\" is not a colour such as \"#3A7BD5\" (#RRGGBB)"
        );
        return;
    }
    f.color = *v;
    std::transform(f.color.begin(), f.color.end(), f.color.begin(), [](unsigned char c) {
        return static_cast<char>(std::toupper(c));
    });
}

void Reader::read_timezone(toml::table const& t, FeedConfig& f) {
    auto v = str(t, "timezone");
    if (!v)
        return;
    auto const& at = t.get("timezone")->source();
    // The form here; whether the system knows the zone is check_feed_zones()' (the zone lookup is libical's).
    bool const area_city =
        v->size() <= 64 && v->find("..") == std::string::npos && v->front() != '/' && v->back() != '/' &&
        v->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-") ==
            std::string::npos;
    if (!area_city) {
        fail_at(
            at,
            "timezone = \"" + *v + "\" is not a time zone name such as \"America/Los_Angeles\" or \"UTC\""
        );
        return;
    }
    f.timezone = *v;
    f.timezone_line = static_cast<int>(at.begin.line);
    f.timezone_column = static_cast<int>(at.begin.column);
}

void Reader::read_events_feed(toml::table const& t, FeedConfig& f) {
    if (auto v = duration(t, "alarm"))
        f.alarm = *v;
    if (auto v = choice<CancelledPolicy>(
            t,
            "cancelled",
            {{"status", CancelledPolicy::status},
             {"prefix", CancelledPolicy::prefix},
             {"drop", CancelledPolicy::drop}}
        ))
        f.cancelled = *v;
    if (auto v = boolean(t, "ticket_classes"))
        f.ticket_classes = *v;
    if (failed())
        return;
    if (t.contains("organization_id")) {
        if (f.select != "organization") {
            fail_at(
                key_pos(t, "organization_id"),
                "organization_id applies only to select = \"organization\""
            );
            return;
        }
        // Ids are strings in the API but look like numbers; accept both spellings.
        auto const* n = t.get("organization_id");
        if (auto const* i = n->as_integer())
            f.organization_id = std::to_string(i->get());
        else if (auto v = str(t, "organization_id"))
            f.organization_id = *v;
        else
            return;
    }
    if (t.contains("keep_past")) {
        if (f.select == "search") {
            fail_at(
                key_pos(t, "keep_past"),
                "keep_past applies only to select = \"organizer\" or \"organization\" (a search keeps "
                "its window)"
            );
            return;
        }
        if (auto v = duration(t, "keep_past", true))
            f.keep_past = *v;
    }
    if (t.contains("window")) {
        if (f.select != "search") {
            fail_at(key_pos(t, "window"), "window applies only to select = \"search\"");
            return;
        }
        if (auto v = duration(t, "window"))
            f.window = *v;
    }
}

void Reader::read_jobs_feed(toml::table const& t, FeedConfig& f) {
    if (auto v = duration(t, "due_after"))
        f.due_after = *v;
    if (auto v = choice<JobsAs>(
            t,
            "jobs_as",
            {{"vtodo", JobsAs::vtodo}, {"vevent", JobsAs::vevent}, {"both", JobsAs::both}}
        ))
        f.jobs_as = *v;
}

void Reader::read_feed_extras(
    toml::table const& t, std::string const& where, Config const& cfg, FeedConfig& f
) {
    if (auto const* n = t.get("params")) {
        if (!n->is_table()) {
            fail_at(n->source(), "params must be a table, e.g. params = { q = \"rust\" }");
            return;
        }
        read_params(*n->as_table(), f);
        if (failed())
            return;
    }
    read_filter_and_tokens(t, where, f);
    if (!failed())
        read_push(t, where, cfg, f);
}

void Reader::read_filter_and_tokens(toml::table const& t, std::string const& where, FeedConfig& f) {
    if (auto const* n = t.get("filter")) {
        read_filter(*n, where + ".filter", f.filter);
        if (failed())
            return;
    }
    read_tokens(t, where, f);
}

void Reader::read_filter(toml::node const& n, std::string const& where, FeedFilter& out) {
    if (!n.is_table()) {
        fail_at(n.source(), "filter must be a table, e.g. filter = { keywords = [\"rust\"] }");
        return;
    }
    auto const& t = *n.as_table();
    if (!check_keys(t, where, {"categories", "keywords", "exclude_keywords", "online"}))
        return;
    for (auto [key, list] :
         {std::pair{"categories", &out.categories},
          std::pair{"keywords", &out.keywords},
          std::pair{"exclude_keywords", &out.exclude_keywords}}) {
        auto const* a = typed(t, key, toml::node_type::array);
        for (std::size_t i = 0; a && i < a->as_array()->size(); ++i) {
            auto const& v = *a->as_array()->get(i);
            if (!v.is_string() || v.as_string()->get().empty()) {
                fail_at(v.source(), std::string(key) + " must list non-empty strings");
                return;
            }
            list->push_back(v.as_string()->get());
        }
        if (failed())
            return;
    }
    if (auto v = boolean(t, "online"))
        out.online = *v;
}

void Reader::read_params(toml::table const& t, FeedConfig& f) {
    for (auto const& [k, v] : in_file_order(t)) {
        std::string const key(k->str());
        if (auto const* s = v->as_string()) {
            f.params.emplace_back(key, s->get());
        } else if (auto const* i = v->as_integer()) {
            f.params.emplace_back(key, std::to_string(i->get()));
        } else {
            std::string msg =
                "params." + key + " must be a string or an integer, not " + std::string(type_name(v->type()));
            if (v->is_table())
                msg += " (quote dotted names: \"" + key + ".…\" = \"…\")";
            fail_at(v->source(), msg);
            return;
        }
    }
}

void Reader::read_tokens(toml::table const& t, std::string const& where, FeedConfig& f) {
    if (t.contains("token") && t.contains("tokens")) {
        fail_at(key_pos(t, "tokens"), "give either token or tokens in " + where + ", not both");
        return;
    }
    if (auto v = str(t, "token"))
        f.token = *v;
    if (failed())
        return;
    auto const* n = t.get("tokens");
    if (!n)
        return;
    if (!n->is_table()) {
        fail_at(
            n->source(),
            "tokens must be a table of subscriber = \"secret\", e.g. tokens = { alice = \"...\" }"
        );
        return;
    }
    std::set<std::string> seen;
    for (auto const& [k, v] : *n->as_table()) {
        std::string const who(k.str());
        // Never echo a secret: name the subscriber only.
        if (!v.is_string()) {
            fail_at(
                v.source(),
                "tokens." + who + " must be a string, not " + std::string(type_name(v.type()))
            );
            return;
        }
        std::string const& secret = v.as_string()->get();
        if (secret.empty()) {
            fail_at(v.source(), "tokens." + who + " must not be empty");
            return;
        }
        if (!seen.insert(secret).second) {
            fail_at(v.source(), "tokens." + who + " repeats another subscriber's secret; each needs its own");
            return;
        }
        f.tokens.emplace(who, secret);
    }
    if (f.tokens.empty())
        fail_at(n->source(), "tokens must list at least one subscriber");
}

} // namespace icsbridge::config_detail
