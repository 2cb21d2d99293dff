// File: args.cpp
// argv -> Args, and the usage texts (they must agree with the README's "Command line" and icsbridge(1)).
#include "cli/args.hpp"

#include "config/suggest.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace icsbridge::cli {

namespace {

struct CommandInfo {
    Command command;
    std::string_view name;
    std::vector<std::string_view> flags;         ///< accepted value flags
    std::vector<std::string_view> required;      ///< flags that must be given
    std::vector<std::string_view> switches = {}; ///< accepted flags without a value
    std::string_view positional = {};            ///< the one (required) argument without a flag, if any
};

std::array<CommandInfo, 7> const commands{{
    {Command::serve, "serve", {"--config"}, {"--config"}},
    {Command::export_feed, "export", {"--config", "--feed", "--output"}, {"--config", "--feed"}},
    {Command::check, "check", {"--config"}, {"--config"}},
    {Command::categories, "categories", {"--config", "--source"}, {"--config", "--source"}},
    {Command::tags, "tags", {"--config", "--source"}, {"--config", "--source"}},
    {Command::push, "push", {"--config", "--target"}, {"--config"}, {"--dry-run"}},
    {Command::connect, "connect", {"--config", "--timeout"}, {"--config"}, {}, "TARGET"},
}};

CommandInfo const* find_command(std::string_view name) {
    for (auto const& c : commands)
        if (c.name == name)
            return &c;
    return nullptr;
}

CommandInfo const& info(Command c) {
    for (auto const& ci : commands)
        if (ci.command == c)
            return ci;
    return commands[0];
}

std::string* slot(Args& a, std::string_view flag) {
    if (flag == "--config")
        return &a.config;
    if (flag == "--feed")
        return &a.feed;
    if (flag == "--output")
        return &a.output;
    if (flag == "--source")
        return &a.source;
    if (flag == "--target")
        return &a.target;
    return nullptr;
}

/** Where a value flag without a field of its own (--timeout) is kept until it is checked. */
struct Pending {
    std::string timeout;
};

std::string* slot(Args& a, Pending& p, std::string_view flag) {
    if (flag == "--timeout")
        return &p.timeout;
    return slot(a, flag);
}

std::string_view placeholder(std::string_view flag) {
    if (flag == "--config")
        return "FILE";
    if (flag == "--output")
        return "PATH";
    if (flag == "--timeout")
        return "SECONDS";
    return "NAME";
}

Error usage_error(std::string msg) {
    return fail(errc::usage, std::move(msg));
}

/** The command named `first`, or a usage error with the closest command name. */
Result<CommandInfo const*> command_named(std::string_view first) {
    if (CommandInfo const* cmd = find_command(first))
        return cmd;
    std::vector<std::string_view> names;
    names.reserve(std::size(commands));
    for (auto const& c : commands)
        names.push_back(c.name);
    std::string msg =
        (first.substr(0, 1) == "-" ? "unknown option '" : "unknown command '") + std::string(first) + "'";
    if (auto best = closest_match(first, names); !best.empty())
        msg += "; did you mean '" + best + "'?";
    return usage_error(msg);
}

/**
 * `--flag VALUE` or `--flag=VALUE` at args[i] (moving i past the value) into its slot of `a`: the flag
 * must be the command's, the value given, non-empty and not given before.
 */
Result<void> take_flag(
    Args& a,
    Pending& pending,
    CommandInfo const& cmd,
    std::vector<std::string_view> const& args,
    std::size_t& i
) {
    std::string const where = std::string(cmd.name) + ": ";
    std::string_view arg = args[i];
    if (arg.substr(0, 2) != "--") {
        if (cmd.positional.empty() || !a.target.empty())
            return usage_error(where + "unexpected argument '" + std::string(arg) + "'");
        a.target = std::string(arg);
        return {};
    }
    std::string_view flag = arg;
    std::optional<std::string_view> value;
    if (auto eq = arg.find('='); eq != std::string_view::npos) {
        flag = arg.substr(0, eq);
        value = arg.substr(eq + 1);
    }
    if (std::find(cmd.switches.begin(), cmd.switches.end(), flag) != cmd.switches.end()) {
        if (value)
            return usage_error(where + std::string(flag) + " takes no value");
        a.dry_run = true;
        return {};
    }
    if (std::find(cmd.flags.begin(), cmd.flags.end(), flag) == cmd.flags.end()) {
        std::string msg = where + "unknown option '" + std::string(flag) + "'";
        if (auto best = closest_match(flag, cmd.flags); !best.empty())
            msg += "; did you mean '" + best + "'?";
        return usage_error(msg);
    }
    if (!value) {
        if (i + 1 >= args.size())
            return usage_error(
                where + std::string(flag) + " needs a value (" + std::string(flag) + " " +
                std::string(placeholder(flag)) + ")"
            );
        value = args[++i];
    }
    if (value->empty())
        return usage_error(where + std::string(flag) + " needs a non-empty value");
    std::string* dst = slot(a, pending, flag);
    if (!dst->empty())
        return usage_error(where + std::string(flag) + " given twice");
    *dst = std::string(*value);
    return {};
}

} // namespace

Command command_from_name(std::string_view name) {
    CommandInfo const* c = find_command(name);
    return c ? c->command : Command::none;
}

std::string_view command_name(Command c) {
    return c == Command::none ? "icsbridge" : info(c).name;
}

Result<Args> parse_args(std::vector<std::string_view> const& args) {
    Args a;
    if (args.empty())
        return usage_error("no command given");

    // Program-level options come before any command.
    std::string_view const first = args[0];
    if (first == "--help" || first == "-h") {
        a.help = true;
        return a;
    }
    if (first == "--version") {
        a.version = true;
        return a;
    }
    auto cmd = command_named(first);
    if (!cmd)
        return cmd.error();
    a.command = (*cmd)->command;

    // --help anywhere after the command asks for that command's usage, whatever else is wrong.
    if (std::find_if(args.begin() + 1, args.end(), [](std::string_view s) {
            return s == "--help" || s == "-h";
        }) != args.end()) {
        a.help = true;
        return a;
    }

    Pending pending;
    for (std::size_t i = 1; i < args.size(); ++i)
        if (auto taken = take_flag(a, pending, **cmd, args, i); !taken)
            return taken.error();
    std::string const where = std::string((*cmd)->name) + ": ";
    for (auto req : (*cmd)->required)
        if (slot(a, req)->empty())
            return usage_error(where + "missing " + std::string(req) + " " + std::string(placeholder(req)));
    if (!(*cmd)->positional.empty() && a.target.empty())
        return usage_error(where + "missing " + std::string((*cmd)->positional));
    if (!pending.timeout.empty()) {
        auto const& t = pending.timeout;
        bool const digits = t.size() <= 5 && t.find_first_not_of("0123456789") == std::string::npos;
        long const seconds = digits ? std::stol(t) : 0;
        if (seconds < 1 || seconds > 86400)
            return usage_error(
                where + "--timeout takes a whole number of seconds from 1 to 86400, not '" + t + "'"
            );
        a.timeout = std::chrono::seconds(seconds);
    }
    return a;
}

namespace {

// Each command's --help text, one constant each.
constexpr char const* overview_help =
    "icsbridge " ICSBRIDGE_VERSION " - iCalendar subscriptions from the events service and the job board\n"
    "\n"
    "Usage:\n"
    "  icsbridge serve --config FILE\n"
    "  icsbridge export --config FILE --feed NAME [--output PATH]\n"
    "  icsbridge check --config FILE\n"
    "  icsbridge categories --config FILE --source NAME\n"
    "  icsbridge tags --config FILE --source NAME\n"
    "  icsbridge push --config FILE [--target NAME] [--dry-run]\n"
    "  icsbridge connect --config FILE TARGET [--timeout SECONDS]\n"
    "  icsbridge --help | --version\n"
    "\n"
    "Commands:\n"
    "  serve       serve every feed of FILE over HTTP, refreshing them in the background,\n"
    "              until SIGINT/SIGTERM\n"
    "  export      fetch one feed from its upstream once and write the .ics to PATH or stdout\n"
    "  check       validate the config and print each feed with its URL\n"
    "  categories  list the categories of a source (ids for the `categories`/`category` params)\n"
    "  tags        list the tags of a jobs source\n"
    "  push        write the feeds' items into their [targets] calendars once\n"
    "  connect     sign a google or microsoft target in to its account (OAuth), once\n"
    "\n"
    "Exit status: 0 ok, 1 upstream or runtime failure, 2 usage or config error.\n"
    "Environment: ICSBRIDGE_LOG=debug|info|warn|error sets what is logged to stderr\n"
    "(serve: info; other commands: nothing but the one error line).\n"
    "Run 'icsbridge COMMAND --help' for more about a command.\n";

constexpr char const* serve_help =
    "Usage: icsbridge serve --config FILE\n"
    "\n"
    "Serves every feed of FILE at GET/HEAD /feeds/NAME.ics on [server] listen, with /healthz,\n"
    "/metrics and an index page at /, and refreshes each feed every `refresh`. When an upstream\n"
    "fails, the last good snapshot (kept in [storage] dir) keeps being served.\n"
    "Stops cleanly on SIGINT or SIGTERM.\n"
    "\n"
    "Options:\n"
    "  --config FILE  the TOML config (see config/example.toml)\n"
    "  -h, --help     show this text\n"
    "\n"
    "Exit status: 0 after a clean stop, 1 runtime failure, 2 usage or config error.\n";

constexpr char const* export_help =
    "Usage: icsbridge export --config FILE --feed NAME [--output PATH]\n"
    "\n"
    "Fetches one feed from its upstream once, renders the calendar and writes it to PATH\n"
    "(atomically: a temp file renamed over PATH, so a failed run leaves PATH untouched),\n"
    "or to stdout when --output is absent or '-'. A merged feed (merge = [...]) fetches each\n"
    "of its parts once and merges them; a part that fails fails the export.\n"
    "\n"
    "Options:\n"
    "  --config FILE  the TOML config\n"
    "  --feed NAME    a [feeds.NAME] table of FILE\n"
    "  --output PATH  where to write the .ics (default: stdout)\n"
    "  -h, --help     show this text\n"
    "\n"
    "Exit status: 0 ok, 1 upstream or runtime failure, 2 usage or config error (unknown feed).\n";

constexpr char const* check_help =
    "Usage: icsbridge check --config FILE\n"
    "\n"
    "Validates FILE (every key, source, duration and environment variable) and prints each\n"
    "feed with its URL, source, select and refresh. Secrets are never printed.\n"
    "Errors are reported as FILE:LINE:COL: what is wrong.\n"
    "\n"
    "Options:\n"
    "  --config FILE  the TOML config\n"
    "  -h, --help     show this text\n"
    "\n"
    "Exit status: 0 valid, 2 invalid.\n";

constexpr char const* categories_help =
    "Usage: icsbridge categories --config FILE --source NAME\n"
    "\n"
    "Prints the categories of a source as `id<TAB>name` lines: the events service's fixed\n"
    "table, or the job board's GET /api/categories/. Use the ids in a feed's params.\n"
    "\n"
    "Options:\n"
    "  --config FILE  the TOML config\n"
    "  --source NAME  a [sources.NAME] table of FILE\n"
    "  -h, --help     show this text\n"
    "\n"
    "Exit status: 0 ok, 1 upstream failure, 2 usage or config error.\n";

constexpr char const* tags_help =
    "Usage: icsbridge tags --config FILE --source NAME\n"
    "\n"
    "Prints the tags of a jobs source (GET /api/tags/) as `id<TAB>name` lines.\n"
    "The events service has no tags.\n"
    "\n"
    "Options:\n"
    "  --config FILE  the TOML config\n"
    "  --source NAME  a [sources.NAME] table of FILE (type = \"jobs\")\n"
    "  -h, --help     show this text\n"
    "\n"
    "Exit status: 0 ok, 1 upstream failure, 2 usage or config error.\n";

constexpr char const* push_help =
    "Usage: icsbridge push --config FILE [--target NAME] [--dry-run]\n"
    "\n"
    "Fetches the feeds that push into targets ([targets.NAME], a feed's push = [...]) once and\n"
    "makes each target's calendar hold exactly their items: creates, updates and deletes only\n"
    "the items icsbridge wrote, never the calendar's other events. Prints per target what was\n"
    "created, updated, deleted and left unchanged. What was written is kept in [storage] dir,\n"
    "so the next run writes only what changed.\n"
    "\n"
    "Options:\n"
    "  --config FILE  the TOML config\n"
    "  --target NAME  only this target (default: every target)\n"
    "  --dry-run      print what would be written; write nothing\n"
    "  -h, --help     show this text\n"
    "\n"
    "Exit status: 0 every target in sync, 1 a target failed (the reason on stderr),\n"
    "2 usage or config error.\n";

constexpr char const* connect_help =
    "Usage: icsbridge connect --config FILE TARGET [--timeout SECONDS]\n"
    "\n"
    "Connects [targets.TARGET] (type google or microsoft) to the account it writes into: prints\n"
    "the URL of the provider's sign-in page, waits on 127.0.0.1 (a free port) for the browser to\n"
    "come back from it, trades the answer for a refresh token and stores that under [storage] dir\n"
    "(oauth/TARGET.json, mode 0600; also in the database in cluster mode). Open the URL in a\n"
    "browser on this machine, signed in to the account. Nothing secret is printed. An answer\n"
    "that is not this sign-in's (a different state) is refused, and the command goes on waiting.\n"
    "\n"
    "Options:\n"
    "  --config FILE      the TOML config\n"
    "  --timeout SECONDS  how long to wait for the sign-in (default 600)\n"
    "  -h, --help         show this text\n"
    "\n"
    "Exit status: 0 connected, 1 sign-in refused, timed out or not traded for a token,\n"
    "2 usage or config error (an unknown target, a caldav target).\n";

} // namespace

std::string usage(Command c) {
    switch (c) {
    case Command::none:
        return overview_help;
    case Command::serve:
        return serve_help;
    case Command::export_feed:
        return export_help;
    case Command::check:
        return check_help;
    case Command::categories:
        return categories_help;
    case Command::tags:
        return tags_help;
    case Command::push:
        return push_help;
    case Command::connect:
        return connect_help;
    }
    return {};
}

std::string usage_hint(Command c) {
    if (c == Command::none)
        return "Try 'icsbridge --help'.";
    return "Try 'icsbridge " + std::string(command_name(c)) + " --help'.";
}

} // namespace icsbridge::cli
