// File: events_source.cpp
// The events API v3 client: picks the list endpoint for a feed's selection, follows every page with guards,
// and completes events (expansions, ticket classes) with concurrent requests. Parsing: events_json.cpp.
#include "sources/all_of.hpp"
#include "sources/events_json.hpp"
#include "sources/events_lists.hpp"
#include "sources/json_read.hpp"
#include "sources/page_follower.hpp"
#include "sources/upstream_call.hpp"
#include "util/free_elsewhere.hpp"
#include <icsbridge/sources.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <unordered_set>

namespace icsbridge {

namespace net = boost::asio;

namespace {

// What one refresh has read so far, across the lists it follows.
struct Listing {
    std::vector<Event> events;
    std::vector<bool> incomplete;
    std::unordered_set<std::string> seen; // every id listed, kept or not
    int pages = 0;
};

// Room for the events a list announces (within max_items, which fails the refresh beyond it): a list of
// 100,000 events would otherwise move every event it holds some seventeen times as the vector grows.
void reserve_for(Listing& out, std::optional<std::size_t> announced, std::size_t max_items) {
    if (announced)
        out.events.reserve(out.events.size() + std::min(*announced, max_items));
}

class EventsClient {
  public:
    EventsClient(
        SourceConfig const& src,
        HttpClient& http,
        Logger const& log,
        RateBudget* budget,
        PageNumberMemory* page_numbers,
        std::optional<net::any_io_executor> parse_on = std::nullopt,
        std::optional<net::any_io_executor> free_on = std::nullopt
    )
        : call_(src, http, log, Api::events, budget)
        , pages_(call_, page_numbers, std::move(parse_on))
        , free_on_(std::move(free_on)) {}

    net::awaitable<Result<std::vector<Event>>>
    fetch(UpstreamQuery const& question, sys_seconds now, ProgressFn const& progress) {
        // What a list read, whether the refresh ends or is abandoned, is freed on free_on_ (when given).
        FreedElsewhere<Listing> held(free_on_);
        Listing& listing = *held;
        if (question.select == "organizer" || question.select == "organization") {
            std::string path = "/v3/users/me/events/";
            if (question.select == "organization") {
                auto org = co_await organization_id(question);
                if (!org)
                    co_return org.error();
                path = "/v3/organizations/" + path_segment(*org) + "/events/";
            }
            auto listed = co_await list_life(path, question, now, progress, listing);
            if (!listed)
                co_return listed.error();
        } else if (question.select == "search") {
            // The public /events/search/ endpoint was shut down on 2019-12-12 (organizers' own keys kept it
            // until 2020-02-20); it is here for compatible self-hosted upstreams, and its 404 says so.
            std::string const path = "/v3/events/search/";
            auto keep = [](Event const& e) { return !never_published(e); };
            auto listed = co_await list_events(
                path,
                search_query(question, now),
                question,
                keep,
                nullptr,
                progress,
                listing
            );
            if (!listed)
                co_return listed.error();
        } else {
            co_return fail(
                errc::config_invalid,
                "feed " + question.name + ": select = \"" + question.select +
                    "\" is not one of organizer, organization, search for an events source"
            );
        }

        auto& events = listing.events;
        auto completed = co_await complete(events, listing.incomplete);
        if (!completed)
            co_return completed.error();
        if (question.ticket_classes) {
            auto tc = co_await add_ticket_classes(events, question);
            if (!tc)
                co_return tc.error();
        }
        call_.log().info(
            std::string(call_.service()) + ": feed " + question.name + ": " + std::to_string(events.size()) +
            " events from " + std::to_string(listing.pages) + " page(s), " + std::to_string(*completed) +
            " completed individually"
        );
        co_return std::move(events);
    }

    /** @brief One event with its expansions: what a webhook names. errc::upstream_not_found when gone. */
    net::awaitable<Result<Event>> one(std::string id) const {
        co_return co_await event_detail(std::move(id));
    }

  private:
    // An organizer's events over their whole life: everything not yet ended (every page), then the ended
    // ones newest first until a page lies wholly before now - keep_past. The history of an organizer with
    // years of past events costs about one extra page, not one per page of history.
    net::awaitable<Result<void>> list_life(
        std::string const& path,
        UpstreamQuery const& question,
        sys_seconds now,
        ProgressFn const& progress,
        Listing& listing
    ) {
        auto keep = [&](Event const& e) { return in_event_life(e, now, question.keep_past); };
        Query current{
            {"status", published_statuses},
            {"time_filter", "current_future"},
            {"order_by", "start_asc"},
            {"expand", event_expansions}};
        auto r = co_await list_events(path, current, question, keep, nullptr, progress, listing);
        if (!r || question.keep_past.count() == 0)
            co_return r;
        Query past{
            {"status", published_statuses},
            {"time_filter", "past"},
            {"order_by", "start_desc"},
            {"expand", event_expansions}};
        PastCutoff cutoff(now - question.keep_past);
        co_return co_await list_events(path, past, question, keep, &cutoff, progress, listing);
    }

    template <class Keep>
    net::awaitable<Result<void>> list_events(
        std::string const& path,
        Query const& query,
        UpstreamQuery const& question,
        Keep keep,
        PastCutoff* cutoff,
        ProgressFn const& progress,
        Listing& out
    ) {
        // New to this list: the repeat guard is per list, since an upstream that ignores time_filter
        // answers the past list with the very events the current one listed.
        FreedElsewhere<std::unordered_set<std::string>> listed_held(free_on_);
        auto& listed = *listed_held;
        // What this list added to `out`, so that a list read again (it changed while read by number)
        // replaces it rather than keeping events it no longer lists.
        std::size_t const mark = out.events.size();
        FreedElsewhere<std::vector<std::string>> claimed_held(free_on_);
        auto& claimed = *claimed_held;
        auto const reread = [&] {
            out.events.resize(mark);
            out.incomplete.resize(mark);
            for (auto const& id : claimed)
                out.seen.erase(id);
            claimed.clear();
            listed.clear();
        };
        auto pages = co_await pages_.follow<EventsPage>(
            path,
            query,
            parse_events_page,
            [&](EventsPage& page, int n) -> Result<PageStep> {
                PageStep step{page.events.size(), 0, cutoff && cutoff->page_is_past(page.events)};
                if (n == 1)
                    reserve_for(out, page.pagination.object_count, question.max_items);
                std::size_t const before = out.events.size();
                for (std::size_t i = 0; i < page.events.size(); ++i) {
                    if (listed.insert(page.events[i].id).second)
                        ++step.fresh;
                    // Contents can shift between page requests; the first copy of an id wins.
                    if (!out.seen.insert(page.events[i].id).second)
                        continue;
                    claimed.push_back(page.events[i].id);
                    if (!keep(page.events[i]))
                        continue;
                    if (out.events.size() >= question.max_items)
                        return too_many_items(question.name, question.max_items);
                    out.events.push_back(std::move(page.events[i]));
                    out.incomplete.push_back(page.incomplete[i]);
                }
                // The items count both lists, a list's object_count only itself; the past list is read only
                // back to keep_past, so its count is no bound either: no total then.
                if (progress)
                    progress(FetchProgress{
                        out.pages + n,
                        out.events.size(),
                        cutoff ? std::nullopt : page.pagination.object_count,
                        std::span<Event const>(out.events).subspan(before)});
                return step;
            },
            // A list that may stop early is read page by page: a window would fetch pages it never needs.
            cutoff ? Paging::sequential : Paging::parallel,
            reread
        );
        if (!pages)
            co_return pages.error();
        out.pages += *pages;
        co_return Result<void>{};
    }

    net::awaitable<Result<std::string>> organization_id(UpstreamQuery const& question) const {
        if (!question.organization_id.empty())
            co_return question.organization_id;
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
                    " listed none); set organization_id for feed " + question.name
            );
        co_return orgs->ids.front();
    }

    net::awaitable<Result<Event>> event_detail(std::string id) const {
        std::string const path = "/v3/events/" + path_segment(id) + "/";
        // A named query: g++ 12 miscompiles braced temporaries inside co_await expressions.
        Query const query{{"expand", event_expansions}};
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

    net::awaitable<Result<std::vector<TicketClass>>>
    ticket_classes(std::string id, std::size_t max_items) const {
        std::string const path = "/v3/events/" + path_segment(id) + "/ticket_classes/";
        std::vector<TicketClass> out;
        std::unordered_set<std::string> seen;
        Query const no_query;
        auto pages = co_await pages_.follow<TicketClassesPage>(
            path,
            no_query,
            parse_ticket_classes_page,
            [&](TicketClassesPage& page, int) -> Result<PageStep> {
                PageStep step{page.ticket_classes.size(), 0, false};
                for (auto& t : page.ticket_classes) {
                    if (!seen.insert(t.id).second)
                        continue;
                    ++step.fresh;
                    if (out.size() >= max_items)
                        return fail(
                            errc::upstream_too_large,
                            "more than " + std::to_string(max_items) + " ticket classes (max_items)"
                        );
                    out.push_back(std::move(t));
                }
                return step;
            }
        );
        if (!pages)
            co_return pages.error();
        co_return out;
    }

    net::awaitable<Result<void>>
    add_ticket_classes(std::vector<Event>& events, UpstreamQuery const& question) const {
        std::vector<net::awaitable<Result<std::vector<TicketClass>>>> tasks;
        tasks.reserve(events.size());
        for (auto const& e : events)
            tasks.push_back(ticket_classes(e.id, question.max_items));
        auto results = co_await all_of(std::move(tasks));
        for (std::size_t i = 0; i < results.size(); ++i) {
            if (results[i]) {
                events[i].ticket_classes = std::move(*results[i]);
            } else if (results[i].error().code == errc::upstream_not_found) {
                // Deleted between the list and this request, as with details: the event stays as listed,
                // without prices, rather than failing the whole feed.
                call_.log().warn(results[i].error().message + " (keeping the event without ticket classes)");
            } else {
                co_return results[i].error();
            }
        }
        co_return Result<void>{};
    }

    UpstreamCall call_;
    PageFollower pages_;
    std::optional<net::any_io_executor> free_on_; ///< where a list's bookkeeping is freed (none: here)
};

} // namespace

EventsSource::EventsSource(SourceConfig const& src, HttpClient& http, Logger log, RateBudget* budget)
    : src_(src)
    , http_(http)
    , log_(std::move(log))
    , budget_(budget)
    , page_numbers_(std::make_unique<PageNumberMemory>()) {}

EventsSource::~EventsSource() = default;

net::awaitable<Result<std::vector<Event>>>
EventsSource::fetch(UpstreamQuery const& question, sys_seconds now, ProgressFn progress) {
    EventsClient client(src_, http_, log_, budget_, page_numbers_.get(), parse_on_, free_on_);
    co_return co_await client.fetch(question, now, progress);
}

net::awaitable<Result<Event>> EventsSource::event(std::string id) {
    EventsClient client(src_, http_, log_, budget_, page_numbers_.get());
    co_return co_await client.one(std::move(id));
}

std::vector<Category> EventsSource::categories() const {
    return event_categories();
}

void EventsSource::parse_pages_on(net::any_io_executor ex) {
    parse_on_ = std::move(ex);
}

void EventsSource::free_lists_on(net::any_io_executor ex) {
    free_on_ = std::move(ex);
}

ClientOptions client_options_for(SourceConfig const& src) {
    ClientOptions o;
    o.service_name = std::string(api_name(src.type == SourceType::events ? Api::events : Api::jobs));
    o.user_agent = src.user_agent;
    o.request_timeout = src.timeout;
    o.max_concurrency = src.max_concurrency;
    o.max_body = static_cast<std::size_t>(src.max_response_mb) * 1024 * 1024;
    o.max_body_key = "[sources." + src.name + "] max_response_mb";
    o.ca_file = src.ca_file;
    return o;
}

} // namespace icsbridge
