// File: history_state.hpp
// A feed's change history as plain values (private to src/dav/ and its tests), and its kept form: the JSON
// written beside the snapshot (DIR/NAME.davhistory, or the snapshot's row in cluster mode) and read back
// after a restart or on another replica.
#pragma once

#include <icsbridge/store.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::dav::detail {

/** @brief One publication: the names that appeared, changed or went away, and the snapshot it made. */
struct HistoryEntry {
    std::uint64_t seq = 0;
    sys_seconds at{};
    std::string etag; ///< the snapshot's
    std::vector<std::string> names;
};

/**
 * @brief The points a token may name: `floor` (what came before it is trimmed or was never recorded) and
 * each entry's sequence. A sequence between them names nothing: a token carrying one was never given out by
 * this history (it may have been by a run that crashed before keeping it) and is refused.
 */
struct HistoryState {
    std::uint64_t epoch = 0;
    std::uint64_t floor = 0;
    std::string floor_etag;
    std::deque<HistoryEntry> entries; ///< oldest first, sequences rising

    /** @brief The newest point whose snapshot is `etag`; nullopt when there is none. */
    std::optional<std::uint64_t> point_of(std::string_view etag) const;
    /** @brief Whether `seq` is one of the points. */
    bool is_point(std::uint64_t seq) const;
    /** @brief Drops the entries after `seq` (the point a kept history resumes at). */
    void truncate_after(std::uint64_t seq);
    /** @brief Drops the entries older than `oldest`; floor moves to the last one dropped. */
    void trim(sys_seconds oldest);
};

/** @brief The kept form (JSON) of `state` up to and including point `upto`. */
std::string to_kept(HistoryState const& state, std::uint64_t upto);

/** @brief A kept form read back; nullopt when it is not one (damaged, another format, empty). */
std::optional<HistoryState> from_kept(std::string_view kept);

} // namespace icsbridge::dav::detail
