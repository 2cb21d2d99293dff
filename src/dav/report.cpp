// File: report.cpp
// The three REPORTs on a collection: calendar-multiget (by href), calendar-query (by filter) and
// sync-collection (RFC 6578: everything for an empty token, else what the history says changed), each a
// listing (listing.cpp), streamed when long.
#include "dav/answer_detail.hpp"
#include "dav/props.hpp"

namespace icsbridge::dav::detail {

namespace {

std::string_view last_segment(std::string_view href) {
    if (auto const q = href.find_first_of("?#"); q != std::string_view::npos)
        href = href.substr(0, q);
    auto const slash = href.rfind('/');
    return slash == std::string_view::npos ? href : href.substr(slash + 1);
}

/** The hrefs asked for, each echoed as sent: the item's response, or 404. */
Response multiget(std::shared_ptr<ItemsOf const> of, std::vector<std::string> hrefs) {
    auto const count = hrefs.size();
    Step step = [of = std::move(of), hrefs = std::move(hrefs), i = std::size_t{0}](MultistatusWriter& w
                ) mutable {
        if (i < hrefs.size()) {
            auto const& h = hrefs[i++];
            if (Item const* item = of->collection().find(last_segment(h)))
                of->write(w, *item, h);
            else
                w.status(h, 404);
        }
        return i < hrefs.size();
    };
    return listing(std::move(step), count);
}

/** What changed since a token: the items there now, then the names gone (404). */
Response changes(std::shared_ptr<ItemsOf const> of, Changes ch) {
    auto const count = ch.changed.size() + ch.gone.size();
    auto token = of->collection().token();
    Step step = [of = std::move(of), ch = std::move(ch), i = std::size_t{0}](MultistatusWriter& w) mutable {
        if (i < ch.changed.size()) {
            auto const& name = ch.changed[i];
            if (Item const* item = of->collection().find(name))
                of->write(w, *item, of->href + name);
        } else if (i < ch.changed.size() + ch.gone.size()) {
            w.status(of->href + ch.gone[i - ch.changed.size()], 404);
        }
        ++i;
        return i < ch.changed.size() + ch.gone.size();
    };
    return listing(std::move(step), count, std::move(token));
}

} // namespace

Response report(Request const& req, Tree const& tree, FeedEntry const& feed, History const& history) {
    auto rep = parse_report(req.body);
    if (!rep)
        return plain(400, rep.error().message);
    if (rep->kind == Report::Kind::unsupported)
        return dav_error(403, "<D:supported-report/>");
    if (!feed.collection) {
        auto r = plain(503, "this feed has not been fetched yet; try again shortly");
        r.headers.emplace_back("Retry-After", "60");
        return r;
    }
    Collection const& c = *feed.collection;
    std::optional<Changes> changed;
    if (rep->kind == Report::Kind::sync && !rep->sync_token.empty()) {
        auto since = history.since(feed.name, c, rep->sync_token);
        if (!since)
            return dav_error(403, "<D:valid-sync-token/>");
        changed = std::move(*since);
    }
    auto const kind = rep->kind;
    auto of = std::make_shared<ItemsOf const>(tree, feed, std::move(rep->props));
    if (changed)
        return changes(std::move(of), std::move(*changed));
    if (kind == Report::Kind::sync)
        return items_listing(std::move(of), std::nullopt, c.token(), false);
    if (kind == Report::Kind::multiget)
        return multiget(std::move(of), std::move(rep->hrefs));
    return items_listing(std::move(of), std::move(rep->filter), {}, false);
}

} // namespace icsbridge::dav::detail
