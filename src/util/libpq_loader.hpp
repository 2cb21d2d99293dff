// File: libpq_loader.hpp
// libpq is loaded when cluster mode first needs it, not at every start of the binary (see the .cpp).
// In the base layer: the config reader checks a database_url with it too.
#pragma once

#include <icsbridge/error.hpp>

namespace icsbridge {

/**
 * @brief Loads libpq.so.5 on the first call (later calls give the first one's answer). Call before any PQ
 * function: those abort the process if the library could not be loaded. The error says which package to
 * install.
 */
Result<void> libpq_loaded();

} // namespace icsbridge
