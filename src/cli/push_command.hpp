// File: push_command.hpp
// `icsbridge push`: one reconcile of every target (or one), after reading the feeds pushed into them once.
#pragma once

#include "cli/args.hpp"
#include <icsbridge/config.hpp>

namespace icsbridge::cli {

/** @brief 0: every target in sync; 1: a target failed (its reason on stderr); 2: an unknown target. */
int push_command(Config const& cfg, Args const& args);

} // namespace icsbridge::cli
