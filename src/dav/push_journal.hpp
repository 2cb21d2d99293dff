// File: push_journal.hpp
// Where WebDAV-Push registrations outlive the process: their JSON form (shared by the single box's journal
// and the cluster's rows) and the single box's journal, {storage.dir}/webpush/registrations.
#pragma once

#include "dav/push_registry.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::dav {

/** @brief One registration as one line of JSON (keys base64url; expires in Unix seconds). */
std::string to_json(PushRegistration const& r);
/** @brief The registration a to_json() line holds; nullopt for anything else. */
std::optional<PushRegistration> registration_from_json(std::string_view text);

/** @brief `{storage_dir}/webpush/registrations`. */
std::string push_journal_path(std::string const& storage_dir);

/**
 * @brief The single box's persistence: each change appended to the journal as one line (a put with the whole
 * registration, or a removal), owner-only (0600 in a 0700 directory). load() replays it and writes it
 * again compacted (atomically, fsynced); it is compacted again when the removed and replaced lines
 * outnumber the live ones. An append is not fsynced: a power cut may lose the last registrations, which
 * the clients make again on their next renewal.
 */
std::shared_ptr<PushPersistence> push_journal(std::string const& storage_dir);

} // namespace icsbridge::dav
