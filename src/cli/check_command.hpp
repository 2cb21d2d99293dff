// File: check_command.hpp
// `icsbridge check`: the config validated, each feed with its URL, the push targets, and the warnings.
#pragma once

#include <icsbridge/config.hpp>

#include <string>

namespace icsbridge::cli {

/** @brief Prints `line` and a newline on stderr (every command's one-line messages). */
void print_err(std::string const& line);

/** @brief Validates `cfg` (already loaded) and prints it; 0 when valid. */
int check_command(Config const& cfg);

} // namespace icsbridge::cli
