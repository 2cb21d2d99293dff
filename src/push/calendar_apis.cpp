// File: calendar_apis.cpp
// The adapter for a target's type.
#include "push/api_json.hpp"
#include "push/calendar_api.hpp"

namespace icsbridge::push {

std::unique_ptr<CalendarApi>
calendar_api(boost::asio::any_io_executor ex, TargetConfig const& target, Logger log, Authorizer oauth) {
    switch (target.type) {
    case TargetType::google:
        return google_api(std::move(ex), target, std::move(log), std::move(oauth));
    case TargetType::microsoft:
        return graph_api(std::move(ex), target, std::move(log), std::move(oauth));
    case TargetType::caldav:
        break;
    }
    return caldav_api(std::move(ex), target, std::move(log));
}

boost::asio::awaitable<Result<void>> CalendarApi::delete_calendar(TargetState const&) {
    co_return fail(errc::usage, "this kind of calendar is not deleted by icsbridge");
}

boost::asio::awaitable<Result<void>> delete_calendar_at(TargetClient& http, std::string url) {
    auto sending = http.send("DELETE", url);
    auto r = co_await std::move(sending);
    if (!r)
        co_return r.error();
    if ((r->status >= 200 && r->status < 300) || r->status == 404 || r->status == 410)
        co_return Result<void>{};
    co_return api_refusal(http.name(), "DELETE", url, *r, false);
}

} // namespace icsbridge::push
