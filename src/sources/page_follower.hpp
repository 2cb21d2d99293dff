// File: page_follower.hpp
// Reading a paged list of the events API (page numbers or continuation tokens, UPSTREAM.md 1.8) over an
// UpstreamCall, with PageCursor's guards: counted lists a window of requests ahead by page number, handed
// over in page order (where the endpoint takes page numbers: paging.hpp decides), everything else one page
// at a time. Private to src/sources/ (used by events_source.cpp).
#pragma once

#include "sources/page_parse_elsewhere.hpp"
#include "sources/paging.hpp"
#include "sources/upstream_call.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

enum class Paging { sequential, parallel };

// What a page handler tells the paging loop.
struct PageStep {
    std::size_t items = 0; // entries on the page
    std::size_t fresh = 0; // of which not seen before
    bool enough = false; // the rest of the list cannot matter (past list, ordered, wholly before the cutoff)
};

// Called when a list is read again from its first page (it changed while its pages were read by number):
// the page handler drops what it took from the earlier read.
using OnReread = std::function<void()>;

class PageFollower {
  public:
    /// `memory` (optional, outlives this): what each endpoint of the source did with page numbers.
    /// `parse_on` (optional): where the pages of a numbered read are parsed, off the executor that awaits
    /// them (in `serve`, the control thread); they are still handed over in page order.
    explicit PageFollower(
        UpstreamCall const& call,
        PageNumberMemory* memory = nullptr,
        std::optional<boost::asio::any_io_executor> parse_on = std::nullopt
    )
        : call_(call)
        , memory_(memory)
        , parse_on_(std::move(parse_on)) {}

    // Follows a paged list (page numbers or continuation tokens, UPSTREAM.md 1.8) with PageCursor's guards,
    // handing each parsed page to on_page, which returns a PageStep. Once page 1 has announced a page count,
    // the following pages are requested by number a window at a time (HttpClient keeps max_concurrency in
    // flight) and handed over in page order, so the result is the same as reading them one by one; where the
    // list also gives continuation tokens, only if the endpoint takes page numbers (read_after_first) and
    // while it keeps its count (judge_numbered): a refusal goes on by token, a list that changed meanwhile
    // is read again by token (on_reread first). A list that may stop early (`Paging::sequential`) is read
    // one page at a time. Returns the number of pages used.
    template <class Page, class OnPage>
    boost::asio::awaitable<Result<int>> follow(
        std::string const& path,
        Query const& base,
        Result<Page> (*parse)(std::string_view),
        OnPage on_page,
        Paging paging = Paging::parallel,
        OnReread const& on_reread = {}
    ) const {
        int used = 0;
        for (int round = 0;; ++round) {
            PageCursor cursor;
            // The second round reads one page at a time, so there is no third.
            auto const mode = round == 0 ? paging : Paging::sequential;
            auto complete = co_await follow_once<Page>(path, base, parse, on_page, mode, cursor);
            used += cursor.pages();
            if (!complete)
                co_return complete.error();
            if (*complete)
                co_return used;
            call_.log().info(
                std::string(call_.service()) + ": " + path +
                " changed while its pages were read by number; reading it again by continuation token"
            );
            if (on_reread)
                on_reread();
        }
    }

  private:
    enum class Numbered { complete, go_on, reread };

    PageNumbers known(std::string const& path) const {
        return memory_ ? memory_->known(path) : PageNumbers::untried;
    }

    void remember(std::string const& path, PageNumbers what) const {
        if (memory_)
            memory_->remember(path, what);
    }

    // One read of the list from its first page: true when complete, false when it must be read again.
    template <class Page, class OnPage>
    boost::asio::awaitable<Result<bool>> follow_once(
        std::string const& path,
        Query const& base,
        Result<Page> (*parse)(std::string_view),
        OnPage& on_page,
        Paging paging,
        PageCursor& cursor
    ) const {
        auto read = [&](Result<HttpResponse> const& resp) { return parsed<Page>(path, parse, cursor, resp); };
        // One page handed over, in page order: true to go on.
        auto use = [&](Page& page) -> Result<bool> {
            Result<PageStep> step = on_page(page, cursor.pages() + 1);
            if (!step)
                return call_.in_context(step.error(), path);
            auto more = cursor.arrived(page.pagination, step->items, step->fresh);
            if (!more)
                return call_.in_context(more.error(), path);
            return *more && !step->enough;
        };
        std::optional<Pagination> first;
        bool numbers_tried = false; // a list with tokens is read by number at most once, after page 1
        for (;;) {
            PageRequest const next = cursor.next();
            if (paging == Paging::parallel && first &&
                wants_numbers(path, next, cursor, *first, numbers_tried)) {
                numbers_tried = true;
                auto r = co_await follow_numbered<
                    Page>(path, base, cursor, *first, next.page.value_or(2), read, use, parse);
                if (!r)
                    co_return r.error();
                if (*r == Numbered::complete)
                    co_return true;
                if (*r == Numbered::reread)
                    co_return false;
                continue; // refused, or the count grew: go on from where the cursor is
            }
            Query const q = at_position(base, next);
            auto page = read(co_await call_.get(path, q));
            if (!page)
                co_return page.error();
            if (!*page)
                co_return true;
            if (!first)
                first = (*page)->pagination;
            auto go = use(**page);
            if (!go)
                co_return go.error();
            if (!*go)
                co_return true;
        }
    }

    // One answer parsed; an empty optional: a BAD_PAGE that ends a list of unknown length.
    template <class Page>
    Result<std::optional<Page>> parsed(
        std::string const& path,
        Result<Page> (*parse)(std::string_view),
        PageCursor const& cursor,
        Result<HttpResponse> const& resp
    ) const {
        if (!resp)
            return resp.error();
        if (resp->status == 400 && resp->body.find("\"BAD_PAGE\"") != std::string::npos) {
            auto end = cursor.bad_page();
            if (!end)
                return call_.in_context(end.error(), path);
            return std::optional<Page>();
        }
        auto body = call_.body(*resp, path);
        if (!body)
            return body.error();
        auto page = parse(*body);
        if (!page)
            return call_.in_context(page.error(), path);
        return std::optional<Page>(std::move(*page));
    }

    static Query at_position(Query q, PageRequest const& next) {
        if (next.continuation)
            q.emplace_back("continuation", *next.continuation);
        else if (next.page)
            q.emplace_back("page", std::to_string(*next.page));
        return q;
    }

    // Whether the pages from `next` on are asked by number. A list without tokens: whenever pages of the
    // announced count are left (also again after its count grew). A list with tokens: once, after page 1.
    bool wants_numbers(
        std::string const& path,
        PageRequest const& next,
        PageCursor const& cursor,
        Pagination const& first,
        bool numbers_tried
    ) const {
        if (first.continuation.empty())
            return next.page && cursor.page_count() && *next.page < *cursor.page_count();
        return !numbers_tried && cursor.pages() == 1 &&
               read_after_first(first, known(path), false) == ListRead::by_number;
    }

    // One page request started now and awaited later (in page order). Its coroutine refers to the client
    // and to the path, so whoever starts one must see it finish (cancelling it first when giving up).
    template <class Page>
    struct Pending {
        int page = 0; // the page asked for
        std::optional<Result<HttpResponse>> result;
        std::optional<Result<Page>> parsed;    // a 2xx answer parsed on parse_on_ (when given)
        boost::asio::steady_timer ready;       // cancelled when the result is in
        boost::asio::cancellation_signal stop; // emitted when the list is abandoned
        explicit Pending(boost::asio::any_io_executor const& ex)
            : ready(ex, boost::asio::steady_timer::time_point::max()) {}
    };

    template <class Page>
    std::shared_ptr<Pending<Page>> start(
        boost::asio::any_io_executor const& ex,
        std::string const& path,
        Query q,
        int page,
        Result<Page> (*parse)(std::string_view)
    ) const {
        auto p = std::make_shared<Pending<Page>>(ex);
        p->page = page;
        boost::asio::co_spawn(
            ex,
            [this, &path, p, q = std::move(q), parse]() -> boost::asio::awaitable<void> {
                try {
                    auto r = co_await call_.get(path, q, gzip_for(parse_on_));
                    p->parsed = co_await parse_elsewhere(parse_on_, call_, parse, r, path, q);
                    p->result.emplace(std::move(r)); // with its parse: finish() waits for both
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

    template <class Page>
    static boost::asio::awaitable<void> finish(Pending<Page>& p) {
        while (!p.result)
            co_await p.ready.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }

    template <class Page>
    static void stop_all(std::deque<std::shared_ptr<Pending<Page>>>& in_flight) {
        for (auto& p : in_flight)
            if (!p->result)
                p->stop.emit(boost::asio::cancellation_type::terminal);
    }

    // The list is abandoned (the refresh was cancelled: a reload, fetch_timeout, shutdown): cancel every
    // request still out and wait until each has ended, since they use the client the caller frees next.
    // The caller has reset its cancellation state first: a cancelled coroutine's next co_await throws.
    template <class Page>
    static boost::asio::awaitable<void> abandon(std::deque<std::shared_ptr<Pending<Page>>>& in_flight) {
        stop_all(in_flight);
        for (auto& p : in_flight)
            co_await finish(*p);
        in_flight.clear();
    }

    // The answer to page=N of a numbered read, in page order: what ends the numbered read (a refusal goes on
    // by token, a changed list is read again, the last page completes it), or nothing to go on.
    template <class Page, class Read, class Use>
    Result<std::optional<Numbered>> take_numbered(
        std::string const& path, Pending<Page>& p, Pagination const& first, Read& read, Use& use
    ) const {
        bool const tokens = !first.continuation.empty();
        auto const& answer = *p.result;
        auto verdict = NumberedVerdict::use;
        Result<std::optional<Page>> page = std::optional<Page>();
        if (tokens && answer && answer->status == 400)
            verdict = NumberedVerdict::refused;
        else if (p.parsed && !*p.parsed)
            page = call_.in_context(p.parsed->error(), path);
        else if (p.parsed)
            page = std::optional<Page>(std::move(**p.parsed));
        else
            page = read(answer);
        if (tokens && page && *page) {
            verdict = judge_numbered(p.page, answer->status, &(*page)->pagination, first);
            if (verdict == NumberedVerdict::use && known(path) == PageNumbers::untried)
                remember(path, PageNumbers::accepted);
        }
        if (verdict == NumberedVerdict::refused) {
            remember(path, PageNumbers::refused);
            call_.log().info(
                std::string(call_.service()) + ": " + path + " did not answer page=" +
                std::to_string(p.page) + " with that page; reading on by continuation token"
            );
            return std::optional<Numbered>(Numbered::go_on);
        }
        if (verdict == NumberedVerdict::reread)
            return std::optional<Numbered>(Numbered::reread);
        if (!page)
            return page.error();
        if (!*page)
            return std::optional<Numbered>(Numbered::complete);
        auto go = use(**page);
        if (!go)
            return go.error();
        return *go ? std::nullopt : std::optional<Numbered>(Numbered::complete);
    }

    // Pages `from`..page_count of a counted list by number: up to numbered_window() requests ahead of the
    // page being used, each handed over in page order. Where the list also gives tokens, each answer is
    // judged against page 1 first (judge_numbered). Every request started is awaited before returning, also
    // on an error or when cancelled: they refer to this client.
    template <class Page, class Read, class Use>
    boost::asio::awaitable<Result<Numbered>> follow_numbered(
        std::string const& path,
        Query const& base,
        PageCursor& cursor,
        Pagination const& first,
        int from,
        Read& read,
        Use& use,
        Result<Page> (*parse)(std::string_view)
    ) const {
        auto const ex = co_await boost::asio::this_coro::executor;
        bool const tokens = !first.continuation.empty();
        int next_page = from;
        std::deque<std::shared_ptr<Pending<Page>>> in_flight;
        auto top_up = [&] {
            int const ahead = numbered_window(known(path), tokens, call_.max_concurrency());
            while (static_cast<int>(in_flight.size()) < ahead && next_page <= cursor.page_count().value_or(0)
            ) {
                Query q = base;
                q.emplace_back("page", std::to_string(next_page));
                in_flight.push_back(start<Page>(ex, path, std::move(q), next_page++, parse));
            }
        };
        Result<Numbered> outcome = Numbered::go_on;
        bool done = false;
        std::exception_ptr cancelled; // the refresh was cancelled while requests were out
        try {
            top_up();
            while (!in_flight.empty()) {
                auto p = in_flight.front();
                co_await finish(*p);
                in_flight.pop_front();
                if (done)
                    continue; // draining after the end or an error
                auto ended = take_numbered<Page>(path, *p, first, read, use);
                if (!ended || *ended) {
                    outcome = ended ? Result<Numbered>(**ended) : Result<Numbered>(ended.error());
                    done = true;
                    stop_all(in_flight); // their answers would not be used
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
        co_return outcome; // go_on when not done: the count grew while paging
    }

    UpstreamCall const& call_;
    PageNumberMemory* memory_;
    std::optional<boost::asio::any_io_executor> parse_on_;
};

} // namespace icsbridge
