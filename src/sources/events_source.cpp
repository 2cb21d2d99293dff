// File: events_source.cpp
// STUB until the events client lands (owner: sources).
#include <icsbridge/sources.hpp>

namespace icsbridge {

EventsSource::EventsSource(SourceConfig const& src, HttpClient& http, Logger log)
    : src_(src)
    , http_(http)
    , log_(std::move(log)) {}

boost::asio::awaitable<Result<std::vector<Event>>>
EventsSource::fetch(FeedConfig const&, sys_seconds, ProgressFn) {
    co_return fail(errc::upstream_status, "events client not implemented yet");
}

std::vector<Category> EventsSource::categories() const {
    return event_categories();
}

ClientOptions client_options_for(SourceConfig const& src) {
    ClientOptions o;
    o.service_name = src.type == SourceType::events ? "events API" : "job board API";
    o.user_agent = src.user_agent;
    o.request_timeout = src.timeout;
    o.max_concurrency = src.max_concurrency;
    o.ca_file = src.ca_file;
    return o;
}

} // namespace icsbridge
