// File: pipeline.cpp
// STUB until the pipeline lands (owner: cli).
#include <icsbridge/pipeline.hpp>

namespace icsbridge {

struct Pipeline::Impl {};
Pipeline::Pipeline(Config const&, boost::asio::any_io_executor, Logger) : impl_(std::make_unique<Impl>()) {}
Pipeline::~Pipeline() = default;
boost::asio::awaitable<Result<FeedOutput>> Pipeline::run(FeedConfig const&, sys_seconds, ProgressFn) {
    co_return fail(errc::render_failed, "pipeline not implemented yet");
}
boost::asio::awaitable<Result<FeedItems>> Pipeline::fetch(FeedConfig const&, sys_seconds, ProgressFn) {
    co_return fail(errc::render_failed, "pipeline not implemented yet");
}
Result<FeedOutput> Pipeline::render(FeedConfig const&, FeedItems const&) {
    return fail(errc::render_failed, "pipeline not implemented yet");
}
boost::asio::awaitable<Result<std::vector<Category>>> Pipeline::categories(std::string const&) {
    co_return fail(errc::usage, "not implemented yet");
}
boost::asio::awaitable<Result<std::vector<Category>>> Pipeline::tags(std::string const&) {
    co_return fail(errc::usage, "not implemented yet");
}

} // namespace icsbridge
