// File: row_then_file.hpp
// The one shape of a target's persistence in cluster mode, for the push state and the OAuth sign-in alike:
// the database's row is the truth the replicas share, the file under storage.dir the copy for when the
// database is away.
#pragma once

#include <icsbridge/log.hpp>

#include <memory>
#include <string>
#include <utility>

namespace icsbridge::cli {

/** @brief The log's words for one kind of kept value. */
struct PersistenceWords {
    std::string who;       ///< "push office", "target office": starts each warning
    std::string from_file; ///< after "the database is away (…); ": what happens instead
    std::string disk_only; ///< after who + ": ", when the row could not be written
};

/**
 * @brief A Persistence (a load/save pair) over `rows` and `file`. load: the row, or the file when there is no
 * row or the database is away (a warning). save: the file, then the row; a row that cannot be written is
 * a warning (the value is still in use from memory and file), the file's result is save's.
 * `from_row(json)` and `to_row(value)` convert between the value and the row's JSON.
 */
template <class P, class File, class Rows, class FromRow, class ToRow>
P row_then_file(
    File file,
    std::shared_ptr<Rows> rows,
    std::string target,
    Logger const& log,
    PersistenceWords words,
    FromRow from_row,
    ToRow to_row
) {
    auto shared_words = std::make_shared<PersistenceWords const>(std::move(words));
    P k;
    k.load = [file, rows, target, log, shared_words, from_row]() -> decltype(file.load()) {
        auto row = rows->load(target);
        if (!row) {
            log.warn(
                shared_words->who + ": the database is away (" + row.error().message + "); " +
                shared_words->from_file
            );
            return file.load();
        }
        if (!*row)
            return file.load();
        return from_row(**row);
    };
    k.save = [file, rows, target, log, shared_words, to_row](auto const& value) {
        auto written = file.save(value);
        if (auto saved = rows->save(target, to_row(value)); !saved)
            log.warn(shared_words->who + ": " + shared_words->disk_only + saved.error().message);
        return written;
    };
    return k;
}

} // namespace icsbridge::cli
