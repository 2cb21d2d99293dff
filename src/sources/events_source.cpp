// File: events_source.cpp
// The events API v3 client: picks the list endpoint for a feed's selection, follows every page with guards,
// and completes events (expansions, ticket classes) with concurrent requests. Parsing: events_json.cpp.
#include "sources/events_json.hpp"
#include "sources/json_read.hpp"
#include "sources/upstream_call.hpp"
#include <icsbridge/sources.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>
#include <set>
#include <unordered_set>

namespace icsbridge {

namespace net = boost::asio;

namespace {

constexpr char const* expansions = "venue,ticket_availability,organizer";

// Runs all tasks at once and returns their results in task order; HttpClient bounds the requests in flight.
template <class T>
net::awaitable<std::vector<T>> all_of(std::vector<net::awaitable<T>> tasks) {
    if (tasks.empty())
        co_return std::vector<T>{};
    auto ex = co_await net::this_coro::executor;
    using Op = decltype(net::co_spawn(ex, std::declval<net::awaitable<T>>(), net::deferred));
    std::vector<Op> ops;
    ops.reserve(tasks.size());
    for (auto& t : tasks)
        ops.push_back(net::co_spawn(ex, std::move(t), net::deferred));
    auto [order, errors, results] = co_await net::experimental::make_parallel_group(std::move(ops))
                                        .async_wait(net::experimental::wait_for_all(), net::use_awaitable);
    for (auto const& e : errors)
        if (e)
            std::rethrow_exception(e);
    co_return std::move(results);
}

// Pass-through params (empty values omitted, file order kept), the date window and the expansions.
Query search_query(FeedConfig const& feed, sys_seconds now) {
    Query q;
    bool has_start = false, has_end = false, has_expand = false;
    for (auto const& [k, v] : feed.params) {
        if (v.empty())
            continue;
        has_start = has_start || k == "start_date.range_start";
        has_end = has_end || k == "start_date.range_end";
        has_expand = has_expand || k == "expand";
        q.emplace_back(k, v);
    }
    if (feed.window) {
        // The API wants naive local date-times and reads them in each event's own zone; UTC wall time is
        // off by at most a zone offset, which does not matter for a window of days.
        if (!has_start)
            q.emplace_back("start_date.range_start", jsonr::format_local(jsonr::to_local(now)));
        if (!has_end)
            q.emplace_back("start_date.range_end", jsonr::format_local(jsonr::to_local(now + *feed.window)));
    }
    if (!has_expand)
        q.emplace_back("expand", expansions);
    return q;
}

class EventsClient {
  public:
    EventsClient(SourceConfig const& src, HttpClient& http, Logger const& log)
        : call_(src, http, log, Api::events) {}

    net::awaitable<Result<std::vector<Event>>>
    fetch(FeedConfig const& feed, sys_seconds now, ProgressFn const& progress) {
        std::string path;
        Query query{{"status", "live"}, {"expand", expansions}};
        if (feed.select == "organizer") {
            path = "/v3/users/me/events/";
        } else if (feed.select == "organization") {
            auto org = co_await organization_id(feed);
            if (!org)
                co_return org.error();
            path = "/v3/organizations/" + path_segment(*org) + "/events/";
        } else if (feed.select == "search") {
            // The public /events/search/ endpoint was shut down on 2019-12-12 (organizers' own keys kept it
            // until 2020-02-20); it is here for compatible self-hosted upstreams, and its 404 says so.
            path = "/v3/events/search/";
            query = search_query(feed, now);
        } else {
            co_return fail(
                errc::config_invalid,
                "feed " + feed.name + ": select = \"" + feed.select +
                    "\" is not one of organizer, organization, search for an events source"
            );
        }

        auto listed = co_await list_events(path, query, progress);
        if (!listed)
            co_return listed.error();
        auto& [events, incomplete, pages] = *listed;
        auto completed = co_await complete(events, incomplete);
        if (!completed)
            co_return completed.error();
        if (feed.ticket_classes) {
            auto tc = co_await add_ticket_classes(events);
            if (!tc)
                co_return tc.error();
        }
        call_.log().info(
            std::string(call_.service()) + ": feed " + feed.name + ": " + std::to_string(events.size()) +
            " events from " + std::to_string(pages) + " page(s), " + std::to_string(*completed) +
            " completed individually"
        );
        co_return std::move(events);
    }

  private:
    struct Listed {
        std::vector<Event> events;
        std::vector<bool> incomplete;
        int pages = 0;
    };

    // Follows `page` numbers or `continuation` tokens (UPSTREAM.md 1.8), calling on_page(page, pages_so_far),
    // which returns how many items the page held. Stops with an error on a repeated token, a page number
    // that does not advance, or after max_pages_per_feed pages.
    template <class Page, class OnPage>
    net::awaitable<Result<int>> follow(
        std::string const& path, Query const& base, Result<Page> (*parse)(std::string_view), OnPage on_page
    ) const {
        std::set<std::string> tokens;
        std::optional<std::string> continuation;
        int next_page = 0; // 0: the first request, sent without a page parameter
        int last_page_number = 0;
        for (int pages = 0;;) {
            if (pages >= max_pages_per_feed)
                co_return call_.too_many_pages(path);
            Query q = base;
            if (continuation)
                q.emplace_back("continuation", *continuation);
            else if (next_page > 0)
                q.emplace_back("page", std::to_string(next_page));
            auto resp = co_await call_.get(path, q);
            if (!resp)
                co_return resp.error();
            // Old clients paged until BAD_PAGE: past the last page, not a failure.
            if (next_page > 0 && resp->status == 400 && resp->body.find("\"BAD_PAGE\"") != std::string::npos)
                co_return pages;
            auto body = call_.body(*resp, path);
            if (!body)
                co_return body.error();
            auto page = parse(*body);
            if (!page)
                co_return call_.in_context(page.error(), path);
            ++pages;
            Pagination const p = page->pagination;
            std::size_t const items = on_page(*page, pages);
            if (p.has_more_items == false || items == 0)
                co_return pages;
            if (!p.continuation.empty()) {
                if (!tokens.insert(p.continuation).second)
                    co_return call_.malformed(
                        path,
                        "the same continuation token came twice; stopped following pages"
                    );
                continuation = p.continuation;
                continue;
            }
            continuation.reset();
            int const current = p.page_number.value_or(next_page > 0 ? next_page : 1);
            if (current <= last_page_number)
                co_return call_.malformed(
                    path,
                    "page_number " + std::to_string(current) + " did not advance after page " +
                        std::to_string(last_page_number) + "; stopped following pages"
                );
            last_page_number = current;
            bool const more = p.page_count ? current < *p.page_count : p.has_more_items.value_or(false);
            if (!more)
                co_return pages;
            next_page = current + 1;
        }
    }

    net::awaitable<Result<Listed>>
    list_events(std::string const& path, Query const& query, ProgressFn const& progress) {
        Listed out;
        std::unordered_set<std::string> seen;
        auto pages =
            co_await follow<EventsPage>(path, query, parse_events_page, [&](EventsPage& page, int n) {
                // Contents can shift between page requests; the first copy of an id wins.
                for (std::size_t i = 0; i < page.events.size(); ++i) {
                    if (!seen.insert(page.events[i].id).second)
                        continue;
                    out.events.push_back(std::move(page.events[i]));
                    out.incomplete.push_back(page.incomplete[i]);
                }
                if (progress)
                    progress(FetchProgress{n, out.events.size(), page.pagination.object_count});
                return page.events.size();
            });
        if (!pages)
            co_return pages.error();
        out.pages = *pages;
        co_return out;
    }

    net::awaitable<Result<std::string>> organization_id(FeedConfig const& feed) const {
        if (!feed.organization_id.empty())
            co_return feed.organization_id;
        std::string const path = "/v3/users/me/organizations/";
        auto body = co_await call_.get_body(path, Query{});
        if (!body)
            co_return body.error();
        auto orgs = parse_organizations_page(*body);
        if (!orgs)
            co_return call_.in_context(orgs.error(), path);
        if (orgs->ids.empty())
            co_return fail(
                errc::upstream_not_found,
                std::string(call_.service()) + ": the token's user belongs to no organization (GET " + path +
                    " listed none); set organization_id for feed " + feed.name
            );
        co_return orgs->ids.front();
    }

    net::awaitable<Result<Event>> event_detail(std::string id) const {
        std::string const path = "/v3/events/" + path_segment(id) + "/";
        // A named query: g++ 12 miscompiles braced temporaries inside co_await expressions.
        Query const query{{"expand", expansions}};
        auto body = co_await call_.get_body(path, query);
        if (!body)
            co_return body.error();
        auto e = parse_event_body(*body);
        if (!e)
            co_return call_.in_context(e.error(), path);
        co_return e;
    }

    // Replaces each incomplete event by its expanded detail; returns how many were completed.
    net::awaitable<Result<std::size_t>>
    complete(std::vector<Event>& events, std::vector<bool> const& incomplete) {
        std::vector<net::awaitable<Result<Event>>> tasks;
        std::vector<std::size_t> index;
        for (std::size_t i = 0; i < events.size(); ++i) {
            if (!incomplete[i])
                continue;
            tasks.push_back(event_detail(events[i].id));
            index.push_back(i);
        }
        auto results = co_await all_of(std::move(tasks));
        std::size_t done = 0;
        for (std::size_t k = 0; k < results.size(); ++k) {
            auto& r = results[k];
            if (r) {
                events[index[k]] = std::move(*r);
                ++done;
            } else if (r.error().code == errc::upstream_not_found) {
                // Deleted between the list and the detail request: the list is what the upstream published.
                call_.log().warn(r.error().message + " (keeping the event as listed)");
            } else {
                co_return r.error();
            }
        }
        co_return done;
    }

    net::awaitable<Result<std::vector<TicketClass>>> ticket_classes(std::string id) const {
        std::string const path = "/v3/events/" + path_segment(id) + "/ticket_classes/";
        std::vector<TicketClass> out;
        std::unordered_set<std::string> seen;
        Query const no_query;
        auto pages = co_await follow<TicketClassesPage>(
            path,
            no_query,
            parse_ticket_classes_page,
            [&](TicketClassesPage& page, int) {
                for (auto& t : page.ticket_classes)
                    if (seen.insert(t.id).second)
                        out.push_back(std::move(t));
                return page.ticket_classes.size();
            }
        );
        if (!pages)
            co_return pages.error();
        co_return out;
    }

    net::awaitable<Result<void>> add_ticket_classes(std::vector<Event>& events) const {
        std::vector<net::awaitable<Result<std::vector<TicketClass>>>> tasks;
        for (auto const& e : events)
            tasks.push_back(ticket_classes(e.id));
        auto results = co_await all_of(std::move(tasks));
        for (std::size_t i = 0; i < results.size(); ++i) {
            if (!results[i])
                co_return results[i].error();
            events[i].ticket_classes = std::move(*results[i]);
        }
        co_return Result<void>{};
    }

    UpstreamCall call_;
};

} // namespace

EventsSource::EventsSource(SourceConfig const& src, HttpClient& http, Logger log)
    : src_(src)
    , http_(http)
    , log_(std::move(log)) {}

net::awaitable<Result<std::vector<Event>>>
EventsSource::fetch(FeedConfig const& feed, sys_seconds now, ProgressFn progress) {
    EventsClient client(src_, http_, log_);
    co_return co_await client.fetch(feed, now, progress);
}

std::vector<Category> EventsSource::categories() const {
    return event_categories();
}

ClientOptions client_options_for(SourceConfig const& src) {
    ClientOptions o;
    o.service_name = std::string(api_name(src.type == SourceType::events ? Api::events : Api::jobs));
    o.user_agent = src.user_agent;
    o.request_timeout = src.timeout;
    o.max_concurrency = src.max_concurrency;
    o.ca_file = src.ca_file;
    return o;
}

} // namespace icsbridge
