// File: push_views.hpp
// The `view` of each `push` entry, checked with the views' own parser once the config is read (the
// config room comes before views, so it only records where each view was written).
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>

namespace icsbridge::push {

/** @brief errc::config_invalid `FILE:LINE:COL: view = "…": what is wrong` for the first invalid view. */
Result<void> check_push_views(Config const& cfg);

} // namespace icsbridge::push
