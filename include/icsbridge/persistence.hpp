// File: persistence.hpp
// Where a piece of state outlives the process: a file under storage.dir on one box, a database row (and the
// file as its fallback) in cluster mode. Every such piece (a push target's state, an OAuth target's token)
// has this one shape, so the code that uses it never knows which backend was chosen.
#pragma once

#include <icsbridge/error.hpp>

#include <functional>
#include <string>

namespace icsbridge {

/** @brief A load/save pair: `load` what was kept (Loaded), `save` a new value (Saved). */
template <class Loaded, class Saved = Loaded>
struct Persistence {
    std::function<Result<Loaded>()> load;
    std::function<Result<void>(Saved const&)> save;
    /// True while a save now would only wait behind others (a writer that has fallen behind the disk); empty:
    /// never. A caller that saves again soon anyway may skip one then, and not make what the save holds.
    std::function<bool()> busy = {};
};

/** @brief The Persistence of each target, by its name. */
template <class Loaded, class Saved = Loaded>
using PersistenceFor = std::function<Persistence<Loaded, Saved>(std::string const& target)>;

} // namespace icsbridge
