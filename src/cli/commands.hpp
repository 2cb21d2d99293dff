// File: commands.hpp
// The command-line interface: serve, export, check, categories, tags, --help, --version.
#pragma once

namespace icsbridge::cli {

/** @brief Runs the command named by argv; returns the process exit status (0 ok, 1 runtime, 2 usage/config).
 */
int dispatch(int argc, char** argv);

} // namespace icsbridge::cli
