// File: push_views.cpp
// check_push_views(): every push entry's view parsed as a subscriber's query would be.
#include "push/push_views.hpp"

#include "views/view.hpp"

#include <boost/url/parse_query.hpp>

namespace icsbridge::push {

Result<void> check_push_views(Config const& cfg) {
    for (auto const& feed : cfg.feeds)
        for (auto const& to : feed.push) {
            if (to.view.empty())
                continue;
            auto const where = cfg.path + ":" + std::to_string(to.view_line) + ":" +
                               std::to_string(to.view_column) + ": view = \"" + to.view + "\": ";
            auto query = boost::urls::parse_query(to.view);
            if (!query)
                return fail(errc::config_invalid, where + "not a query string such as \"days=90\"");
            // Which day a `days` view starts on does not matter here: only whether it is valid.
            auto parsed = views::parse_view_params(*query, std::chrono::sys_days{});
            if (!parsed)
                return fail(errc::config_invalid, where + parsed.error().message);
        }
    return {};
}

} // namespace icsbridge::push
