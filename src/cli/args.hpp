// File: args.hpp
// The command line: which command, which flags, and the usage text of each command.
#pragma once

#include <icsbridge/error.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::cli {

enum class Command { none, serve, export_feed, check, categories, tags, push, connect };

/** @brief A parsed command line. `help`/`version` win over everything else. */
struct Args {
    Command command = Command::none;
    bool help = false;    ///< --help / -h (of the command, or of the program when command is none)
    bool version = false; ///< --version
    std::string config;   ///< --config FILE
    std::string feed;     ///< --feed NAME (export)
    std::string output;   ///< --output PATH (export); empty or "-": stdout
    std::string source;   ///< --source NAME (categories, tags)
    std::string target;   ///< --target NAME (push; empty: every target), or connect's TARGET
    bool dry_run = false; ///< --dry-run (push): print the plan, write nothing
    std::chrono::seconds timeout{600}; ///< --timeout SECONDS (connect): how long to wait for the sign-in
};

/**
 * @brief Parses the arguments after the program name. Flags take `--flag VALUE` or `--flag=VALUE`.
 * A command may take one positional argument (connect's TARGET).
 * @return the Args, or errc::usage with a one-line message (unknown command or flag, missing value,
 * repeated flag, missing required flag or argument, stray argument, a --timeout that is no whole number of
 * seconds from 1 to 86400).
 */
Result<Args> parse_args(std::vector<std::string_view> const& args);

/** @brief The command a name stands for ("export" -> Command::export_feed); Command::none if none. */
Command command_from_name(std::string_view name);

/** @brief The command's name as typed ("export"); "icsbridge" for Command::none. */
std::string_view command_name(Command c);

/** @brief Full usage text of a command, or of the program for Command::none. Ends with a newline. */
std::string usage(Command c);

/** @brief One line telling the user where to look next: "Try 'icsbridge export --help'." */
std::string usage_hint(Command c);

} // namespace icsbridge::cli
