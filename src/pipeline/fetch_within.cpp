// File: fetch_within.cpp
// fetch_too_slow()'s words, and one feed's fetch within its fetch_timeout.
#include "pipeline/fetch_within.hpp"

#include <icsbridge/duration.hpp>

namespace icsbridge {

namespace net = boost::asio;

Error fetch_too_slow(FeedConfig const& feed) {
    return fail(
        errc::upstream_timeout,
        "the fetch took longer than fetch_timeout = " + format_duration(feed.fetch_timeout) +
            " (every page and retry included); raise [feeds." + feed.name +
            "] fetch_timeout if the upstream is just slow"
    );
}

net::awaitable<Result<Calendar>>
fetch_within(net::awaitable<Result<Calendar>> fetch, FeedConfig const& feed) {
    auto bounded = fetch_within(std::move(fetch), std::chrono::steady_clock::duration(feed.fetch_timeout));
    auto got = co_await std::move(bounded);
    if (!got)
        co_return fetch_too_slow(feed);
    co_return std::move(*got);
}

} // namespace icsbridge
