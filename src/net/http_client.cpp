// File: http_client.cpp
// STUB until the HTTP client lands (owner: net).
#include <icsbridge/http_client.hpp>

namespace icsbridge {

struct HttpClient::Impl {
    ClientOptions opts;
};

HttpClient::HttpClient(boost::asio::any_io_executor, ClientOptions opts, Logger)
    : impl_(std::make_shared<Impl>(Impl{std::move(opts)})) {}
HttpClient::~HttpClient() = default;
ClientOptions const& HttpClient::options() const { return impl_->opts; }

boost::asio::awaitable<Result<HttpResponse>> HttpClient::get(HttpRequest) {
    co_return fail(errc::upstream_connect, "HTTP client not implemented yet");
}

std::string HttpResponse::header(std::string_view) const { return {}; }

std::optional<std::chrono::seconds> parse_retry_after(std::string_view, std::chrono::system_clock::time_point) {
    return std::nullopt;
}

} // namespace icsbridge
