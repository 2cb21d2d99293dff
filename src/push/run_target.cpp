// File: run_target.cpp
// run_target(): the options a reconcile runs with, the call, and the report's words.
#include "push/run_target.hpp"

namespace icsbridge::push {

namespace net = boost::asio;

net::awaitable<Report> run_target(
    CalendarApi& api,
    std::vector<FeedCalendar> const& feeds,
    Persistence<KeptState> const& keeping,
    RunOptions const& options
) {
    ReconcileOptions reconciling;
    reconciling.writer = options.writer;
    reconciling.dry_run = options.dry_run;
    reconciling.today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    reconciling.cancelled = options.cancelled;
    reconciling.on_write = options.on_write;
    reconciling.shared = options.shared;
    if (options.claims)
        reconciling.claim = [claims = options.claims, writer = options.writer](std::string const& calendar) {
            return claims->claim(writer, calendar);
        };
    Persistence<KeptState> kept = keeping;
    if (options.dry_run)
        kept.save = [](KeptState const&) { return Result<void>{}; };
    auto& dav = api.client();
    auto const requests_before = dav.requests();
    auto const conflicts_before = dav.conflicts();
    auto running = reconcile(api, feeds, kept, reconciling);
    Report report;
    report.outcome = co_await std::move(running);
    report.requests = dav.requests() - requests_before;
    report.conflicts = dav.conflicts() - conflicts_before;
    if (!report.outcome) {
        report.failure = report.outcome.error().message;
        co_return report;
    }
    auto const& o = *report.outcome;
    if (o.skipped_todos > 0)
        report.todos_note =
            std::to_string(o.skipped_todos) +
            " job posts left out: the calendar takes no tasks (VTODO); set jobs_as = \"vevent\" "
            "on the feed to send them as events";
    if (!o.refused.empty())
        report.failure =
            "the server refused " + std::to_string(o.refused.size()) + " items, e.g. " + o.refused.front();
    co_return report;
}

} // namespace icsbridge::push
