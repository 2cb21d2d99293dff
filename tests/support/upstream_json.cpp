// File: upstream_json.cpp
// UpstreamEvent::json() and the page around events, member by member as the events API writes them.
#include "support/upstream_json.hpp"

#include "fake_upstream/lifecycle.hpp"

namespace icsbridge::test {

UpstreamEvent& UpstreamEvent::between(std::chrono::sys_seconds start, std::chrono::sys_seconds end) {
    start_local = fake::format_utc(start, false);
    start_utc_json = '"' + fake::format_utc(start, true) + '"';
    end_local = fake::format_utc(end, false);
    end_utc_json = '"' + fake::format_utc(end, true) + '"';
    return *this;
}

std::string UpstreamEvent::json() const {
    std::string out =
        R"({"id":")" + id + R"(","name":)" + (name_json.empty() ? R"({"text":"E)" + id + R"("})" : name_json);
    if (!status.empty())
        out += R"(,"status":")" + status + '"';
    out += R"(,"start":{"timezone":)" + zone_json + R"(,"local":")" + start_local + R"(","utc":)" +
           start_utc_json + "}";
    out += R"(,"end":{"timezone":)" + zone_json + R"(,"local":")" + end_local + R"(","utc":)" + end_utc_json +
           "}";
    return out + more + "}";
}

std::string events_page(std::vector<std::string> const& events, std::string const& pagination) {
    std::string out = R"({"pagination":)" + pagination + R"(,"events":[)";
    for (std::size_t i = 0; i < events.size(); ++i)
        out += (i ? "," : "") + events[i];
    return out + "]}";
}

std::string numbered_pagination(int number, int count) {
    return R"({"page_number":)" + std::to_string(number) + R"(,"page_count":)" + std::to_string(count) +
           R"(,"has_more_items":)" + (number < count ? "true" : "false") + "}";
}

} // namespace icsbridge::test
