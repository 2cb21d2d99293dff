// File: state.hpp
// What one target's push remembers between runs (calendar URL, sync token, uid <-> resource, ETag, hash),
// kept as a JSON file under storage.dir and replaced atomically. Losing it costs requests, never a duplicate.
#pragma once

#include "push/plan.hpp"
#include <icsbridge/error.hpp>
#include <icsbridge/files.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace icsbridge::push {

struct TargetState {
    /// Which calendar the config named when `collection` was found (calendar_identity()): another one
    /// now means the config moved the target, and everything here is about the old calendar.
    std::string identity;
    std::string collection; ///< the calendar collection's URL, once discovered
    std::string sync_token; ///< RFC 6578 token of `listing`; empty: list in full next time
    bool todos = true;      ///< the collection takes VTODO (its supported-calendar-component-set)
    /// icsbridge created `collection` (it was not there): only such a calendar is deleted on a disconnect
    bool created = false;
    Known items;     ///< uid -> what we wrote
    Listing listing; ///< our resources as the server last listed them (name -> ETag)
    /// name -> the server's id, where the server picks ids (Graph); CalDAV and Google derive them from names
    std::map<std::string, std::string> ids;
    friend bool operator==(TargetState const&, TargetState const&) = default;
};

/**
 * @brief A state as saved and loaded: immutable and never null. A save makes one, and the saver's queue and
 * its write hold that same object until it is on the disk (issue 39: at a thousand connections, a copy
 * each was a third of the peak heap); a run copies what it loads once, into the state it changes, and its
 * last save is that state itself. Nothing keeps a state between runs.
 */
using KeptState = std::shared_ptr<TargetState const>;

/** @brief `s` made a KeptState (an error as it is). */
Result<KeptState> kept(Result<TargetState> s);

/**
 * @brief Ok when the calendar collection's URL the state keeps (CalDAV) is one `allowed` lets the target's
 * credentials go to; else that refusal, saying the kept state is not used. A state written before the
 * credential rule (issue 35) may point where a server's redirect once led.
 */
Result<void>
check_kept_urls(TargetState const& s, std::function<Result<void>(std::string_view url)> const& allowed);

/** @brief storage_dir + "/push/" + target + ".json". */
std::string state_path(std::string const& storage_dir, std::string_view target);

std::string to_json(TargetState const& s);
/** @brief errc::io_error naming what is malformed; the caller then starts from an empty state. */
Result<TargetState> state_from_json(std::string_view text);

/** @brief The state kept at `path`; an empty one when there is no file yet. */
Result<TargetState> load_state(std::string const& path);
/** @brief Writes the state atomically (0600: it names the calendar's URL), creating the directory. */
Result<void> save_state(std::string const& path, TargetState const& s);
/** @brief What save_state() writes, for a batch (write_files_atomically): the directory is made here. */
Result<FileWrite> state_write(std::string const& path, TargetState const& s);

} // namespace icsbridge::push
