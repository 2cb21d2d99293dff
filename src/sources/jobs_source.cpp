// File: jobs_source.cpp
// STUB until the job board client lands (owner: sources).
#include <icsbridge/sources.hpp>

namespace icsbridge {

JobsSource::JobsSource(SourceConfig const& src, HttpClient& http, Logger log)
    : src_(src)
    , http_(http)
    , log_(std::move(log)) {}

boost::asio::awaitable<Result<std::vector<JobPost>>> JobsSource::fetch(FeedConfig const&, ProgressFn) {
    co_return fail(errc::upstream_status, "job board client not implemented yet");
}
boost::asio::awaitable<Result<JobPost>> JobsSource::post(std::string const&) {
    co_return fail(errc::upstream_status, "job board client not implemented yet");
}
boost::asio::awaitable<Result<std::vector<Category>>> JobsSource::categories() {
    co_return fail(errc::upstream_status, "job board client not implemented yet");
}
boost::asio::awaitable<Result<std::vector<Category>>> JobsSource::tags() {
    co_return fail(errc::upstream_status, "job board client not implemented yet");
}

} // namespace icsbridge
