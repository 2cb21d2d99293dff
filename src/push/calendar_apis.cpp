// File: calendar_apis.cpp
// The adapter for a target's type.
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

} // namespace icsbridge::push
