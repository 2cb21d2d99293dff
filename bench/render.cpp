// File: render.cpp (bench)
// Calendar rendering speed and memory: N generated events and N job posts through the real builder;
// full render rate, output MB/s, peak RSS (one fresh child process per case), and the refresh
// speed-up with a warm RenderCache when 0% and 1% of the items changed.
//
//   icsbridge-bench-render [--n 1000,10000,100000]
#include <icsbridge/ical.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace icsbridge;

// Kilobytes from a /proc/self/status line such as "VmHWM:    1234 kB".
long status_kb(char const* field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field, 0) == 0)
            return std::strtol(line.c_str() + std::strlen(field) + 1, nullptr, 10);
    return -1;
}

char const* const zones[] = {
    "America/New_York",
    "America/Los_Angeles",
    "Europe/Berlin",
    "Europe/London",
    "Asia/Kolkata",
    "Australia/Sydney",
};

std::string description_html(std::size_t i) {
    std::string d = "<p>Join us for the <strong>" + std::to_string(i) +
                    "th</strong> meetup of the season &mdash; talks, demos &amp; drinks.</p>"
                    "<p>We&rsquo;ll cover caf&eacute; culture, r\u00e9sum\u00e9 reviews and the newest "
                    "tools; bring your laptop, questions, and friends.</p><ul><li>18:00 doors open</li>"
                    "<li>18:30 talks (2 \u00d7 20 min)</li><li>19:30 networking</li></ul><p>Details and "
                    "the full agenda: <a href=\"https://example.com/agenda/";
    d += std::to_string(i);
    d += "\">agenda</a>. Questions? Write to us, we answer within a day. Accessible venue, step-free "
         "entrance; \u6f22\u5b57 and \U0001F389 welcome.</p>";
    return d;
}

std::vector<Event> make_events(std::size_t n) {
    std::vector<Event> v;
    v.reserve(n);
    auto const base = std::chrono::sys_days(std::chrono::year(2026) / 1 / 1);
    for (std::size_t i = 0; i < n; ++i) {
        Event e;
        e.id = std::to_string(100000000 + i);
        e.name = "Tech meetup #" + std::to_string(i) + ": C++, calendars & time zones";
        e.description_html = description_html(i);
        e.url = "https://events.example.com/e/tech-meetup-tickets-" + e.id;
        std::string const zone = zones[i % std::size(zones)];
        auto const start = base + std::chrono::hours(static_cast<long>((i * 7919) % (2 * 365 * 24)));
        e.start = {zone, {}, start};
        e.end = {zone, {}, start + std::chrono::hours(3)};
        e.created = base - std::chrono::days(30);
        e.changed = base - std::chrono::days(1) + std::chrono::seconds(i);
        e.status = i % 50 == 0 ? "canceled" : "live";
        e.online = i % 10 == 0;
        if (!e.online)
            e.venue = Venue{
                "v" + e.id,
                "Hall " + std::to_string(i % 97),
                "1 Main St, Springfield, IL 62701, US",
                39.78,
                -89.65};
        e.organizer_name = "Springfield Tech Collective";
        e.organizer_url = "https://events.example.com/o/42";
        e.category_id = "102";
        e.is_free = i % 3 == 0;
        if (i % 3 != 0) {
            e.min_price = Money{"USD", 1000, "10.00"};
            e.max_price = Money{"USD", 2500, "25.00"};
        }
        e.currency = "USD";
        v.push_back(std::move(e));
    }
    return v;
}

std::vector<JobPost> make_jobs(std::size_t n) {
    std::vector<JobPost> v;
    v.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        JobPost p;
        p.id = std::to_string(5000000 + i);
        p.title = "Senior C++ Engineer (calendars, networking)";
        p.description_html = description_html(i);
        p.perks = "<ul><li>Remote-friendly</li><li>Learning budget</li></ul>";
        p.howto_apply =
            "Apply on our site, or email <a href=\"mailto:jobs@acme.example\">jobs@acme.example</a>.";
        p.posted = {2026, static_cast<int>(1 + i % 12), static_cast<int>(1 + i % 28), 10, 0, 0};
        p.type = "Full-time";
        p.category = "Software Development";
        p.company = "Acme Widgets";
        p.location = "Berlin, Germany";
        p.latitude = 52.52;
        p.longitude = 13.40;
        p.remote = i % 2 == 0;
        p.url = "https://jobs.example.com/posts/" + p.id;
        p.apply_url = "https://acme.example/careers/apply?job=" + p.id;
        v.push_back(std::move(p));
    }
    return v;
}

double cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// CPU seconds, not wall time: the machine may be shared, and the renderer is single-threaded.
double seconds_of(auto&& fn) {
    double const t0 = cpu_now();
    fn();
    return cpu_now() - t0;
}

std::string
render_or_die(std::function<Result<std::string>(RenderCache*)> const& render, RenderCache* cache) {
    auto r = render(cache);
    if (!r) {
        std::fprintf(stderr, "render failed: %s\n", r.error().message.c_str());
        std::exit(1);
    }
    return std::move(*r);
}

// One case in this (fresh) process: full render (timed, peak memory), then refresh with a warm cache.
template <class Item>
void run_case(char const* kind, std::vector<Item> items, bool refresh, auto render, auto touch) {
    long const rss_before = status_kb("VmRSS:");
    std::size_t bytes = 0;
    double const full = seconds_of([&] {
        bytes = render_or_die([&](RenderCache* c) { return render(items, c); }, nullptr).size();
    });
    long const hwm = status_kb("VmHWM:");
    if (!refresh) {
        std::printf(
            "%-6s N=%-7zu full %7.3f s cpu %8.0f items/s\n",
            kind,
            items.size(),
            full,
            items.size() / full
        );
        return;
    }

    RenderCache cache;
    std::string const warm = render_or_die([&](RenderCache* c) { return render(items, c); }, &cache);
    std::size_t const reps = std::max<std::size_t>(1, 200000 / items.size());
    double const same = seconds_of([&] {
                            for (std::size_t r = 0; r < reps; ++r)
                                render_or_die([&](RenderCache* c) { return render(items, c); }, &cache);
                        }) /
                        static_cast<double>(reps);
    for (std::size_t i = 0; i < items.size(); i += 100)
        touch(items[i]);
    double const one_percent =
        seconds_of([&] { render_or_die([&](RenderCache* c) { return render(items, c); }, &cache); });

    double const mb = static_cast<double>(bytes) / 1e6;
    std::printf(
        "%-6s N=%-7zu full %7.3f s cpu  %8.0f items/s  %6.1f MB/s  out %7.1f MB  RSS %6.1f -> peak %6.1f MB "
        "(peak-before = %.2fx output)  refresh 0%%: %8.4f s (%5.1fx)  1%%: %8.4f s (%5.1fx)\n",
        kind,
        items.size(),
        full,
        static_cast<double>(items.size()) / full,
        mb / full,
        mb,
        rss_before / 1024.0,
        hwm / 1024.0,
        (static_cast<double>(hwm - rss_before) * 1024.0) / static_cast<double>(bytes),
        same,
        full / same,
        one_percent,
        full / one_percent
    );
    std::fflush(stdout);
    if (warm.size() != bytes)
        std::printf("  (note: cached render size %zu differs from full render %zu)\n", warm.size(), bytes);
}

void in_child(std::function<void()> const& fn) {
    std::fflush(stdout);
    pid_t const pid = fork();
    if (pid == 0) {
        fn();
        std::fflush(stdout);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        std::printf("  (case failed: status %d)\n", status);
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::size_t> sizes{1000, 10000, 100000};
    bool refresh = true; // --full-only: skip the refresh cases (for profiling the full render)
    for (int i = 1; i < argc; ++i) {
        std::string const arg = argv[i];
        if (arg == "--n" && i + 1 < argc) {
            sizes.clear();
            std::string list = argv[++i];
            for (std::size_t p = 0; p < list.size();) {
                std::size_t const comma = list.find(',', p);
                sizes.push_back(std::stoul(list.substr(p, comma - p)));
                p = comma == std::string::npos ? list.size() : comma + 1;
            }
        } else if (arg == "--full-only") {
            refresh = false;
        } else {
            std::fprintf(stderr, "usage: %s [--n 1000,10000,100000] [--full-only]\n", argv[0]);
            return 2;
        }
    }
    init_libical();

    CalendarMeta meta;
    meta.feed_name = "bench";
    meta.uid_domain = "events.example.com";
    EventRenderOptions event_opts;
    event_opts.alarm = std::chrono::hours(1);
    JobRenderOptions job_opts;
    job_opts.jobs_as = JobsAs::both;

    for (std::size_t n : sizes) {
        in_child([&] {
            run_case(
                "events",
                make_events(n),
                refresh,
                [&](std::vector<Event> const& v, RenderCache* c) {
                    return render_events(meta, v, event_opts, c);
                },
                [](Event& e) {
                    *e.changed += std::chrono::hours(1);
                    e.name += " (updated)";
                }
            );
        });
        in_child([&] {
            run_case(
                "jobs",
                make_jobs(n),
                refresh,
                [&](std::vector<JobPost> const& v, RenderCache* c) {
                    return render_jobs(meta, v, job_opts, c);
                },
                [](JobPost& p) { p.title += " (updated)"; }
            );
        });
    }
    return 0;
}
