// File: read_merge.cpp
// Merged feeds, `[feeds.NAME] merge = ["a", "b"]`: the keys such a feed takes (its own filter and alarm
// too), and (once every feed is read) that each part is another, fetched feed, each mistake reported at
// its FILE:LINE:COL.
#include "config/reader.hpp"

#include <set>

namespace icsbridge::config_detail {

void Reader::read_merged_feed(std::string const& name, toml::table const& t, FeedConfig& f) {
    std::string const where = "[feeds." + name + "]";
    if (t.contains("source")) {
        fail_at(
            key_pos(t, "source"),
            "give either source or merge in " + where +
                ", not both: a merged feed is built from other feeds and never fetched"
        );
        return;
    }
    if (!check_merged_feed_keys(t, where) || !read_merge_parts(t, f))
        return;
    if (auto v = str(t, "title"))
        f.title = *v;
    if (auto v = str(t, "description", true))
        f.description = *v;
    read_timezone(t, f);
    read_color(t, f);
    if (auto v = duration(t, "alarm"))
        f.alarm = *v;
    if (!failed())
        read_filter_and_tokens(t, where, f);
}

bool Reader::check_merged_feed_keys(toml::table const& t, std::string const& where) {
    // Items arrive as their parts rendered them, so what fetches or renders an item belongs on the part;
    // what selects items (filter) or reminds of them (alarm) works on the published items too.
    note_ = " (a merged feed publishes its parts' items as they rendered them: set it on the parts; a merge "
            "takes only title, description, timezone, color, token/tokens, filter, alarm and push)";
    // The second list is every key of a fetched feed, sorted: "not valid here" says more than "unknown key".
    bool const ok = check_keys(
        t,
        where,
        {"merge", "title", "description", "timezone", "color", "token", "tokens", "filter", "alarm", "push"},
        {"cancelled",
         "due_after",
         "fetch_timeout",
         "jobs_as",
         "keep_past",
         "max_items",
         "organization_id",
         "params",
         "refresh",
         "select",
         "ticket_classes",
         "window"}
    );
    note_.clear();
    return ok;
}

/** The `merge` list: at least one feed name, each once (that they name fetched feeds is check_merges'). */
bool Reader::read_merge_parts(toml::table const& t, FeedConfig& f) {
    auto const* list = typed(t, "merge", toml::node_type::array);
    if (!list)
        return false;
    auto const& parts = *list->as_array();
    if (parts.empty())
        return fail_at(
            list->source(),
            "merge must list at least one feed, e.g. merge = [\"events\", \"jobs\"]"
        );
    std::set<std::string> seen;
    for (auto const& v : parts) {
        if (!v.is_string() || v.as_string()->get().empty())
            return fail_at(v.source(), "merge must list feed names (non-empty strings)");
        std::string const& part = v.as_string()->get();
        if (!seen.insert(part).second)
            return fail_at(v.source(), "merge lists '" + part + "' twice");
        f.merge.push_back(part);
    }
    return true;
}

void Reader::check_merges(toml::table const& feeds, Config& cfg) {
    std::vector<std::string_view> names;
    for (auto const& f : cfg.feeds)
        names.push_back(f.name);
    for (auto& f : cfg.feeds) {
        if (!f.is_merged())
            continue;
        std::string const where = "[feeds." + f.name + "] merge";
        auto const& parts = *feeds.get(f.name)->as_table()->get("merge")->as_array();
        std::chrono::seconds shortest{0};
        for (std::size_t i = 0; i < parts.size(); ++i) {
            auto const& at = parts.get(i)->source();
            std::string const& part = f.merge[i];
            if (part == f.name) {
                fail_at(at, where + " lists the feed itself; list the feeds it is made of");
                return;
            }
            FeedConfig const* p = cfg.find_feed(part);
            if (!p) {
                std::string msg = "unknown feed '" + part + "' in " + where;
                if (auto best = closest_match(part, names); !best.empty())
                    msg += "; did you mean '" + best + "'?";
                else
                    msg += " (defined: " + join(names) + ")";
                fail_at(at, msg);
                return;
            }
            // One level only: a merge's items come from fetched feeds, which also rules out every loop.
            if (p->is_merged()) {
                fail_at(
                    at,
                    "'" + part + "' in " + where +
                        " is itself a merged feed; list its parts instead (a merge of a merge, and so a "
                        "loop, is not allowed)"
                );
                return;
            }
            // Its items would be served to anyone through the merge (and /healthz would name it).
            if (f.is_public() && !p->is_public()) {
                fail_at(
                    at,
                    "'" + part + "' in " + where + " needs a token, so [feeds." + f.name +
                        "] must have one too: give it token or tokens (a public merge would serve the part's "
                        "items to anyone)"
                );
                return;
            }
            shortest = shortest.count() == 0 ? p->refresh : std::min(shortest, p->refresh);
        }
        // The calendar's refresh hint and /healthz's staleness: the merge changes as often as its
        // busiest part.
        f.refresh = shortest;
    }
}

} // namespace icsbridge::config_detail
