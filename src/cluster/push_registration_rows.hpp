// File: push_registration_rows.hpp
// Cluster mode: the WebDAV-Push registrations in the database, so a registration made through one replica
// is sent to by whichever replica sends, and survives any replica; and the VAPID key, made once for the
// cluster (push services tie every registration to the key that signs its messages). Its own connection;
// it migrates the schema on each new connection.
#pragma once

#include "cluster/pg.hpp"
#include "dav/push_registry.hpp"
#include <icsbridge/error.hpp>
#include <icsbridge/webpush.hpp>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace icsbridge::cluster {

class PushRegistrationRows final : public dav::PushPersistence {
  public:
    /** @param url the database (never shown: mask_database_url); @param node this replica's name */
    PushRegistrationRows(std::string url, std::string node);

    Result<std::vector<dav::PushRegistration>> load() override;
    Result<void> put(dav::PushRegistration const& r) override;
    Result<bool> remove(std::string const& id) override;

    /**
     * @brief The cluster's VAPID key: the row's, or a new one inserted with ON CONFLICT DO NOTHING and then
     * read back, so replicas starting at once all end up with the one that was inserted first. The key is
     * never in a message. errc::io_error when the database is away or the row holds no P-256 key.
     */
    Result<webpush::VapidKey> vapid_key();

  private:
    Result<void> prepare();

    std::mutex mtx_;
    PgConnection db_;
    std::string node_;
    std::uint64_t migrated_on_ = 0; ///< the connection (connects()) the schema was last checked on
};

} // namespace icsbridge::cluster
