// File: reload_plan.hpp
// What a config reload changes: which feeds start, stop, must be fetched again or keep their calendar,
// and which settings only a restart applies. Pure, so every case is tested without a server.
#pragma once

#include <icsbridge/config.hpp>

#include <string>
#include <vector>

namespace icsbridge {

struct ReloadPlan {
    std::vector<std::string> added;   ///< new feeds: fetched at once, 503 until then
    std::vector<std::string> removed; ///< gone: 404 from now on (their snapshot files stay)
    std::vector<std::string> changed; ///< their calendar would differ: fetched again at once
    std::vector<std::string> kept;    ///< same calendar: keep snapshot and ETag, next refresh as planned
    std::vector<std::string> restart_needed; ///< settings the running process cannot change, by key
    bool sources_changed = false;            ///< a source's URL, secret, budget… differs
};

/**
 * @brief Compares the config in force with the one just read. A feed is kept when everything that goes
 * into its calendar is equal: its own keys except tokens (access changes apply at once without a
 * refetch), its source's, and the public URL.
 */
ReloadPlan plan_reload(Config const& old, Config const& next);

} // namespace icsbridge
