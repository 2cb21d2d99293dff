// File: page_follower.hpp
// Reading a paged list of the events API (page numbers or continuation tokens, UPSTREAM.md 1.8) over an
// UpstreamCall, with PageCursor's guards: counted lists a window of requests ahead, handed over in page
// order; continuation lists and lists that may stop early one page at a time. Also all_of(), for the
// concurrent detail requests. Private to src/sources/ (used by events_source.cpp).
#pragma once

#include "sources/paging.hpp"
#include "sources/upstream_call.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

// Runs all tasks at once and returns their results in task order; HttpClient bounds the requests in flight.
template <class T>
inline boost::asio::awaitable<std::vector<T>> all_of(std::vector<boost::asio::awaitable<T>> tasks) {
    if (tasks.empty())
        co_return std::vector<T>{};
    auto ex = co_await boost::asio::this_coro::executor;
    using Op =
        decltype(boost::asio::co_spawn(ex, std::declval<boost::asio::awaitable<T>>(), boost::asio::deferred));
    std::vector<Op> ops;
    ops.reserve(tasks.size());
    for (auto& t : tasks)
        ops.push_back(boost::asio::co_spawn(ex, std::move(t), boost::asio::deferred));
    auto [order, errors, results] =
        co_await boost::asio::experimental::make_parallel_group(std::move(ops))
            .async_wait(boost::asio::experimental::wait_for_all(), boost::asio::use_awaitable);
    for (auto const& e : errors)
        if (e)
            std::rethrow_exception(e);
    co_return std::move(results);
}

enum class Paging { sequential, parallel };

// What a page handler tells the paging loop.
struct PageStep {
    std::size_t items = 0; // entries on the page
    std::size_t fresh = 0; // of which not seen before
    bool enough = false; // the rest of the list cannot matter (past list, ordered, wholly before the cutoff)
};

class PageFollower {
  public:
    explicit PageFollower(UpstreamCall const& call)
        : call_(call) {}

    // Follows a paged list (page numbers or continuation tokens, UPSTREAM.md 1.8) with PageCursor's guards,
    // handing each parsed page to on_page, which returns a PageStep. Once page 1 has announced a page count,
    // the following pages are requested a window at a time (HttpClient keeps max_concurrency in flight) and
    // handed over in page order, so the result is the same as reading them one by one. A continuation list,
    // or one that may stop early (`Paging::sequential`), is read one page at a time.
    template <class Page, class OnPage>
    boost::asio::awaitable<Result<int>> follow(
        std::string const& path,
        Query const& base,
        Result<Page> (*parse)(std::string_view),
        OnPage on_page,
        Paging paging = Paging::parallel
    ) const {
        PageCursor cursor;
        // One answer, in page order: true to go on.
        auto handle = [&](Result<HttpResponse> const& resp) -> Result<bool> {
            if (!resp)
                return resp.error();
            if (resp->status == 400 && resp->body.find("\"BAD_PAGE\"") != std::string::npos) {
                auto end = cursor.bad_page();
                if (!end)
                    return call_.in_context(end.error(), path);
                return false;
            }
            auto body = call_.body(*resp, path);
            if (!body)
                return body.error();
            auto page = parse(*body);
            if (!page)
                return call_.in_context(page.error(), path);
            Result<PageStep> step = on_page(*page, cursor.pages() + 1);
            if (!step)
                return call_.in_context(step.error(), path);
            auto more = cursor.arrived(page->pagination, step->items, step->fresh);
            if (!more)
                return call_.in_context(more.error(), path);
            return *more && !step->enough;
        };
        for (;;) {
            PageRequest const next = cursor.next();
            if (paging == Paging::parallel && next.page && cursor.page_count() &&
                *next.page < *cursor.page_count()) {
                auto finished = co_await follow_counted(path, base, cursor, handle);
                if (!finished)
                    co_return finished.error();
                if (*finished)
                    co_return cursor.pages();
                continue; // the count grew while paging: go on from where the cursor is
            }
            Query q = base;
            if (next.continuation)
                q.emplace_back("continuation", *next.continuation);
            else if (next.page)
                q.emplace_back("page", std::to_string(*next.page));
            auto go = handle(co_await call_.get(path, q));
            if (!go)
                co_return go.error();
            if (!*go)
                co_return cursor.pages();
        }
    }

  private:
    // One page request started now and awaited later (in page order). Its coroutine refers to the client
    // and to the path, so whoever starts one must see it finish (cancelling it first when giving up).
    struct Pending {
        std::optional<Result<HttpResponse>> result;
        boost::asio::steady_timer ready;       // cancelled when the result is in
        boost::asio::cancellation_signal stop; // emitted when the list is abandoned
        explicit Pending(boost::asio::any_io_executor const& ex)
            : ready(ex, boost::asio::steady_timer::time_point::max()) {}
    };

    std::shared_ptr<Pending>
    start(boost::asio::any_io_executor const& ex, std::string const& path, Query q) const {
        auto p = std::make_shared<Pending>(ex);
        boost::asio::co_spawn(
            ex,
            [this, &path, p, q = std::move(q)]() -> boost::asio::awaitable<void> {
                try {
                    p->result.emplace(co_await call_.get(path, q));
                } catch (std::exception const& e) {
                    p->result.emplace(fail(errc::upstream_io, std::string("page request failed: ") + e.what())
                    );
                }
                p->ready.cancel();
            },
            boost::asio::bind_cancellation_slot(p->stop.slot(), boost::asio::detached)
        );
        return p;
    }

    static boost::asio::awaitable<Result<HttpResponse>> finish(Pending& p) {
        while (!p.result)
            co_await p.ready.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        co_return std::move(*p.result);
    }

    // The list is abandoned (the refresh was cancelled: a reload, fetch_timeout, shutdown): cancel every
    // request still out and wait until each has ended, since they use the client the caller frees next.
    // The caller has reset its cancellation state first: a cancelled coroutine's next co_await throws.
    static boost::asio::awaitable<void> abandon(std::deque<std::shared_ptr<Pending>>& in_flight) {
        for (auto& p : in_flight)
            if (!p->result)
                p->stop.emit(boost::asio::cancellation_type::terminal);
        for (auto& p : in_flight)
            co_await finish(*p);
        in_flight.clear();
    }

    // The pages after the first of a counted list: up to 2 x max_concurrency requests ahead of the page being
    // handled (HttpClient keeps max_concurrency of them on the wire), each handed over in page order. Every
    // request started is awaited before returning, also on an error or when cancelled: they refer to this
    // client.
    // Returns true when the list is complete, false when the count grew while paging.
    template <class Handle>
    boost::asio::awaitable<Result<bool>>
    follow_counted(std::string const& path, Query const& base, PageCursor& cursor, Handle& handle) const {
        auto const ex = co_await boost::asio::this_coro::executor;
        int const ahead = std::max(2, 2 * call_.max_concurrency());
        int next_page = *cursor.next().page;
        std::deque<std::shared_ptr<Pending>> in_flight;
        auto top_up = [&] {
            while (static_cast<int>(in_flight.size()) < ahead && next_page <= cursor.page_count().value_or(0)
            ) {
                Query q = base;
                q.emplace_back("page", std::to_string(next_page++));
                in_flight.push_back(start(ex, path, std::move(q)));
            }
        };
        Result<bool> outcome = true;
        bool done = false;
        std::exception_ptr cancelled; // the refresh was cancelled while requests were out
        try {
            top_up();
            while (!in_flight.empty()) {
                auto answer = co_await finish(*in_flight.front());
                in_flight.pop_front();
                if (done)
                    continue; // draining after the end or an error
                auto go = handle(answer);
                if (!go || !*go) {
                    outcome = go ? Result<bool>(true) : Result<bool>(go.error());
                    done = true;
                    continue;
                }
                top_up();
            }
        } catch (...) {
            cancelled = std::current_exception();
        }
        if (cancelled) {
            co_await boost::asio::this_coro::reset_cancellation_state();
            co_await boost::asio::this_coro::throw_if_cancelled(false);
            co_await abandon(in_flight);
            co_await boost::asio::this_coro::throw_if_cancelled(true);
            std::rethrow_exception(cancelled);
        }
        if (!done)
            co_return false;
        co_return outcome;
    }

    UpstreamCall const& call_;
};

} // namespace icsbridge
