// File: jobs_source.cpp
// The job board client: search and recent listings (paged, guarded, deduplicated), one post, categories
// and tags. Parsing: jobs_json.cpp; requests, api_key and error mapping: upstream_call.cpp.
#include "sources/jobs_json.hpp"
#include "sources/paging.hpp"
#include "sources/upstream_call.hpp"
#include <icsbridge/sources.hpp>

#include <unordered_set>

namespace icsbridge {

namespace net = boost::asio;

namespace {

// The board's documented maximum page size (UPSTREAM.md 2.2): fewer requests per refresh.
constexpr char const* page_size = "100";

class JobsClient {
  public:
    JobsClient(SourceConfig const& src, HttpClient& http, Logger const& log, RateBudget* budget)
        : call_(src, http, log, Api::jobs, budget) {}

    net::awaitable<Result<std::vector<JobPost>>>
    fetch(UpstreamQuery const& question, ProgressFn const& progress) const {
        auto listing = listing_of(question);
        if (!listing)
            co_return listing.error();
        Collected got;
        int page = 1;
        for (;; ++page) {
            Query q = listing->query;
            q.emplace_back("page", std::to_string(page));
            auto body = co_await call_.get_body(listing->path, q);
            if (!body)
                co_return body.error();
            auto parsed = parse_jobs_page(*body);
            if (!parsed)
                co_return call_.in_context(parsed.error(), listing->path);
            auto more = take_page(got, std::move(*parsed), page, question, listing->path);
            if (!more)
                co_return more.error();
            if (progress)
                progress(FetchProgress{page, got.posts.size(), got.total});
            if (listing->first_page_only || !*more)
                break;
        }
        call_.log().info(
            std::string(call_.service()) + ": feed " + question.name + ": " +
            std::to_string(got.posts.size()) + " posts from " + std::to_string(page) + " page(s)"
        );
        co_return std::move(got.posts);
    }

    net::awaitable<Result<JobPost>> post(std::string id) const {
        std::string const path = "/api/posts/" + path_segment(id) + "/";
        auto body = co_await call_.get_body(path, Query{});
        if (!body)
            co_return body.error();
        auto p = parse_job_body(*body);
        if (!p)
            co_return call_.in_context(p.error(), path);
        co_return p;
    }

    net::awaitable<Result<std::vector<Category>>>
    named_list(std::string path, Result<std::vector<Category>> (*parse)(std::string_view)) const {
        auto body = co_await call_.get_body(path, Query{});
        if (!body)
            co_return body.error();
        auto list = parse(*body);
        if (!list)
            co_return call_.in_context(list.error(), path);
        co_return list;
    }

  private:
    /** Which list a question reads: its path, its query (paging aside), whether page 1 is all of it. */
    struct Listing {
        std::string path;
        Query query;
        bool first_page_only = false;
    };

    /** What the pages read so far gave. */
    struct Collected {
        std::vector<JobPost> posts;
        std::unordered_set<std::string> seen;
        int stale_pages = 0; ///< pages in a row that only repeated earlier posts
        std::optional<std::size_t> total;
    };

    static Result<Listing> listing_of(UpstreamQuery const& question) {
        Listing l;
        if (question.select == "search") {
            l.path = "/api/posts/search/";
            for (auto const& [k, v] : question.params) {
                // The client owns paging, and the key comes from the source, never from a feed's params.
                if (v.empty() || k == "api_key" || k == "page" || k == "perpage")
                    continue;
                l.query.emplace_back(k, v);
            }
        } else if (question.select == "recent") {
            l.path = "/api/posts/recent/";
            l.first_page_only = true;
        } else {
            return fail(
                errc::config_invalid,
                "feed " + question.name + ": select = \"" + question.select +
                    "\" is not one of search, recent for a jobs source"
            );
        }
        l.query.emplace_back("perpage", page_size);
        return l;
    }

    /**
     * Adds page `page`'s new posts to `got` after checking the page is the one asked for and holds what it
     * announced. @return whether another page follows
     */
    Result<bool> take_page(
        Collected& got, JobsPage parsed, int page, UpstreamQuery const& question, std::string const& path
    ) const {
        // A server that ignores `page` would hand out page 1 forever.
        if (parsed.page && *parsed.page != page)
            return call_.malformed(
                path,
                "asked for page " + std::to_string(page) + ", got page " + std::to_string(*parsed.page) +
                    "; stopped following pages"
            );
        std::size_t const items = parsed.posts.size();
        std::size_t fresh = 0;
        for (auto& p : parsed.posts) {
            if (!got.seen.insert(p.id).second)
                continue;
            ++fresh;
            if (got.posts.size() >= question.max_items)
                return call_.in_context(too_many_items(question.name, question.max_items), path);
            got.posts.push_back(std::move(p));
        }
        got.total = parsed.total;
        // An envelope that announces posts but lists none (or a gap before the last page) is a page we
        // failed to read, not an empty board: publishing it would wipe every subscriber's list.
        if (items == 0 && (page < parsed.pages || (got.posts.empty() && parsed.total.value_or(0) > 0)))
            return call_.malformed(
                path,
                "page " + std::to_string(page) + " of " + std::to_string(parsed.pages) +
                    " listed no posts although " +
                    (parsed.total ? std::to_string(*parsed.total) : std::string("more")) +
                    " were announced; the last good calendar is kept"
            );
        got.stale_pages = items > 0 && fresh == 0 ? got.stale_pages + 1 : 0;
        if (got.stale_pages >= 3)
            return call_.malformed(
                path,
                std::to_string(got.stale_pages) +
                    " pages in a row repeated earlier posts; stopped following pages"
            );
        return items > 0 && page < parsed.pages;
    }

    UpstreamCall call_;
};

} // namespace

JobsSource::JobsSource(SourceConfig const& src, HttpClient& http, Logger log, RateBudget* budget)
    : src_(src)
    , http_(http)
    , log_(std::move(log))
    , budget_(budget) {}

net::awaitable<Result<std::vector<JobPost>>>
JobsSource::fetch(UpstreamQuery const& question, ProgressFn progress) {
    JobsClient client(src_, http_, log_, budget_);
    co_return co_await client.fetch(question, progress);
}

net::awaitable<Result<JobPost>> JobsSource::post(std::string id) {
    JobsClient client(src_, http_, log_, budget_);
    co_return co_await client.post(id);
}

net::awaitable<Result<std::vector<Category>>> JobsSource::categories() {
    JobsClient client(src_, http_, log_, budget_);
    co_return co_await client.named_list("/api/categories/", parse_categories);
}

net::awaitable<Result<std::vector<Category>>> JobsSource::tags() {
    JobsClient client(src_, http_, log_, budget_);
    co_return co_await client.named_list("/api/tags/", parse_tags);
}

} // namespace icsbridge
