// File: check_command.hpp
// `icsbridge check`: the config validated, each feed with its URL, the push targets, and the warnings.
#pragma once

#include <icsbridge/config.hpp>

#include <string>

namespace icsbridge::cli {

/** @brief Prints `line` and a newline on stderr (every command's one-line messages). */
void print_err(std::string const& line);

/**
 * @brief 0 when `needed` (require_secrets(), require_all_secrets()) holds; else prints its message (each
 * missing secret at its FILE:LINE:COL) and returns the exit status of a config error.
 */
int missing_secrets_status(Result<void> const& needed);

/** @brief Validates `cfg` (already loaded) and prints it; 0 when valid, 2 (after naming each) when secrets
 * are missing. */
int check_command(Config const& cfg);

} // namespace icsbridge::cli
