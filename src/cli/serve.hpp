// File: serve.hpp
// The `serve` command: server + refreshers until SIGINT/SIGTERM.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>

namespace icsbridge {

/** @brief Serves every feed of `cfg` and refreshes them until SIGINT/SIGTERM; returns the exit status. */
int serve_command(Config const& cfg, Logger const& log);

} // namespace icsbridge
