// File: commands.cpp
// The commands behind the command line: serve, export, check, categories, tags, push, connect, --help,
// --version.
// Each prints one clear line on failure and maps the errc to the exit status in one place (exit_code()).
#include "cli/commands.hpp"

#include "app/connect_wiring.hpp"
#include "cli/args.hpp"
#include "cli/check_command.hpp"
#include "cli/connect_command.hpp"
#include "cli/feed_run.hpp"
#include "cli/output_file.hpp"
#include "cli/push_command.hpp"
#include "cli/serve.hpp"
#include "cli/terminal_text.hpp"
#include "push/push_views.hpp"
#include "views/view.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/duration.hpp>
#include <icsbridge/ical.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/merge.hpp>
#include <icsbridge/pipeline.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace icsbridge::cli {

namespace net = boost::asio;

namespace {

/** The `\r  my-events: page 3, 27 of 28 events` line, rewritten in place on a terminal and cleared at the
 * end. */
class ProgressLine {
  public:
    ProgressLine(std::string feed, std::string noun)
        : feed_(std::move(feed))
        , noun_(std::move(noun)) {}
    ~ProgressLine() { clear(); }

    ProgressFn callback() {
        if (!::isatty(STDERR_FILENO))
            return {};
        return [this](FetchProgress const& p) { show(p); };
    }

    void clear() {
        if (width_ == 0)
            return;
        std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
        std::fflush(stderr);
        width_ = 0;
    }

  private:
    void show(FetchProgress const& p) {
        std::string line =
            "  " + feed_ + ": page " + std::to_string(p.pages) + ", " + std::to_string(p.items);
        if (p.total)
            line += " of " + std::to_string(*p.total);
        line += " " + noun_;
        // Pad over a longer previous line so no stale characters remain.
        std::size_t const shown = line.size();
        if (line.size() < width_)
            line.append(width_ - line.size(), ' ');
        std::fprintf(stderr, "\r%s", line.c_str());
        std::fflush(stderr);
        width_ = std::max(width_, shown);
    }

    std::string feed_;
    std::string noun_;
    std::size_t width_ = 0;
};

std::string names_of_feeds(Config const& cfg) {
    std::string out;
    for (auto const& f : cfg.feeds)
        out += (out.empty() ? "" : ", ") + f.name;
    return out.empty() ? "none defined" : out;
}

std::string names_of_sources(Config const& cfg) {
    std::string out;
    for (auto const& [name, src] : cfg.sources)
        out += (out.empty() ? "" : ", ") + name;
    return out.empty() ? "none defined" : out;
}

/**
 * A one-shot export lives for a second or so: memory it frees is better kept for its next allocation than
 * handed back to the kernel and faulted in again, zeroed, a moment later (glibc gives back large blocks at
 * once and trims the heap's top as soon as 128 KB are free). About 5% of a 1,000-event export.
 */
void keep_freed_memory() {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20); // the largest glibc takes: a page's body comes from the heap
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 64 << 20);
#endif
}

int export_command(Config const& cfg, Args const& args) {
    FeedConfig const* feed = cfg.find_feed(args.feed);
    if (!feed) {
        print_err(
            "icsbridge: export: unknown feed '" + args.feed + "' (feeds in " + cfg.path + ": " +
            names_of_feeds(cfg) + ")"
        );
        return exit_code(errc::feed_unknown);
    }
    if (int const rc = missing_secrets_status(require_secrets(cfg, secret_owners_of_feed(cfg, *feed)));
        rc != 0)
        return rc;
    keep_freed_memory();
    SourceConfig const* src = cfg.find_source(feed->source);
    ProgressLine progress(feed->name, src && src->type == SourceType::jobs ? "job posts" : "events");
    auto const now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    std::jthread teardown; // frees the pipeline while the calendar is written; joins before returning
    auto out = run_sync<Calendar>(
        [&](Pipeline& p) {
            // The render caches stay: run() fills the feed's with each page's events while the next pages
            // travel, which takes the render off the end of a long fetch (for a few MB more at the peak).
            return run_feed_once(p, cfg, *feed, now, progress.callback());
        },
        cfg,
        command_logger(),
        &teardown
    );
    progress.clear();
    std::string const what = "icsbridge: export " + feed->name + ": ";
    if (!out) {
        print_err(what + out.error().message);
        return exit_code(out.error().code);
    }

    if (args.output.empty() || args.output == "-") {
        if (std::fwrite(out->ics.data(), 1, out->ics.size(), stdout) != out->ics.size() ||
            std::fflush(stdout) != 0) {
            print_err(what + "cannot write to stdout");
            return exit_code(errc::io_error);
        }
    } else if (auto w = write_output(args.output, out->ics, !feed->is_public()); !w) {
        print_err(what + w.error().message);
        return exit_code(w.error().code);
    }
    if (::isatty(STDERR_FILENO))
        print_err(
            what + std::to_string(out->items) +
            (feed->is_merged()                      ? " items"
             : src && src->type == SourceType::jobs ? " job posts"
                                                    : " events") +
            (args.output.empty() || args.output == "-" ? "" : " written to " + args.output)
        );
    return 0;
}

int list_command(Config const& cfg, Args const& args) {
    if (!cfg.find_source(args.source)) {
        print_err(
            "icsbridge: " + std::string(command_name(args.command)) + ": unknown source '" + args.source +
            "' (sources in " + cfg.path + ": " + names_of_sources(cfg) + ")"
        );
        return exit_code(errc::feed_unknown);
    }
    if (int const rc = missing_secrets_status(require_secrets(cfg, {"[sources." + args.source + "]"}));
        rc != 0)
        return rc;
    bool const tags = args.command == Command::tags;
    auto list = run_sync<std::vector<Category>>(
        [&](Pipeline& p) { return tags ? p.tags(args.source) : p.categories(args.source); },
        cfg,
        command_logger()
    );
    if (!list) {
        print_err("icsbridge: " + std::string(command_name(args.command)) + ": " + list.error().message);
        return exit_code(list.error().code);
    }
    // Upstream text: escaped, so a name can neither add a line or a column nor send terminal escapes.
    for (auto const& c : *list)
        std::printf("%s\t%s\n", terminal_field(c.id).c_str(), terminal_field(c.name).c_str());
    return std::fflush(stdout) == 0 ? 0 : exit_code(errc::io_error);
}

/** Once per run, whatever reads the level later: a typo must neither pass for a level nor be fatal. */
void warn_unknown_log_level() {
    if (char const* level = std::getenv("ICSBRIDGE_LOG"); level && *level && !log_level_from_env())
        print_err(
            "icsbridge: warning: ICSBRIDGE_LOG=" + terminal_field(level) +
            " is not a level (debug, info, warn, error); using the default"
        );
}

/** The config of `args`, with what is checked after loading (push views, feed zones) before any command. */
Result<Config> load_checked(Args const& args) {
    auto cfg = load_config(args.config, process_env());
    if (!cfg)
        return cfg;
    if (auto views = push::check_push_views(*cfg); !views)
        return views.error();
    if (auto zones = check_feed_zones(*cfg); !zones)
        return zones.error();
    return cfg;
}

} // namespace

int dispatch(int argc, char** argv) {
    std::vector<std::string_view> words(argv + 1, argv + argc);
    auto parsed = parse_args(words);
    if (!parsed) {
        Command const cmd = words.empty() ? Command::none : command_from_name(words[0]);
        print_err("icsbridge: " + parsed.error().message);
        print_err(usage_hint(cmd));
        return exit_code(parsed.error().code);
    }
    Args const& args = *parsed;
    if (args.version) {
        std::puts("icsbridge " ICSBRIDGE_VERSION);
        return 0;
    }
    if (args.help) {
        std::fputs(usage(args.command).c_str(), stdout);
        return 0;
    }

    warn_unknown_log_level();
    auto cfg = load_checked(args);
    // Only the commands that use [connect]'s key need it (a command needs only the secrets it touches).
    if (cfg && (args.command == Command::serve || args.command == Command::check))
        if (auto key = check_connect_key(*cfg); !key)
            cfg = key.error();
    if (!cfg) {
        // FILE:LINE:COL first, as compilers do, so editors can jump to it.
        print_err(cfg.error().message);
        return exit_code(cfg.error().code);
    }
    switch (args.command) {
    case Command::serve:
        // The service touches every table: all that is missing at once, with how the service gets them.
        if (int const rc = missing_secrets_status(require_all_secrets(*cfg)); rc != 0)
            return rc;
        return serve_command(*cfg, stderr_logger(log_level_from_env().value_or(LogLevel::info)));
    case Command::export_feed:
        return export_command(*cfg, args);
    case Command::check:
        return check_command(*cfg);
    case Command::categories:
    case Command::tags:
        return list_command(*cfg, args);
    case Command::push:
        return push_command(*cfg, args);
    case Command::connect:
        return connect_command(*cfg, args);
    case Command::none:
        break;
    }
    std::fputs(usage(Command::none).c_str(), stderr);
    return exit_code(errc::usage);
}

} // namespace icsbridge::cli
