// File: subscriber_fetches.hpp
// The `tokens` subscribers' last fetch times of a cluster: each replica writes the ones it saw and reads the
// others', so /healthz on any replica tells who still polls, whichever replica the balancer sent them to.
#pragma once

#include "cluster/pg.hpp"
#include <icsbridge/store.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace icsbridge::cluster {

/** @brief Syncs the store's subscriber fetch times with icsbridge_subscribers. Control thread only. */
class SubscriberFetches {
  public:
    SubscriberFetches(PgConnection& db, ServedFeeds& store)
        : db_(db)
        , store_(store) {}

    /**
     * @brief Writes the fetches this replica saw since the last sync (the later time wins in the row), then
     * takes every row's time into the store. errc::io_error when the database does not answer.
     */
    Result<void> sync();

  private:
    PgConnection& db_;
    ServedFeeds& store_;
    std::map<std::pair<std::string, std::string>, std::int64_t> written_; ///< (feed, name) -> time written
};

} // namespace icsbridge::cluster
