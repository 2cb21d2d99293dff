// File: connect_wiring.hpp
// The self-serve connections of `serve` ([connect]), wired here because it joins the connect, push and
// cluster rooms: the key from its file, the records in the store make_backends chose.
#pragma once

#include "connect/connections.hpp"

#include <memory>

namespace icsbridge::cli {

/**
 * @brief The connections of `cfg` (which has [connect]). A key file that cannot be read stops no one: the
 * error is logged, stored sign-ins show "reconnect needed" and new sign-ins are refused until a restart
 * with a readable key.
 */
std::unique_ptr<connect::Connections> make_connections(
    std::shared_ptr<Config const> cfg,
    push::PushService& push,
    PushStatus& status,
    push::PushService::Keeping keeping,
    std::unique_ptr<connect::ConnectionStore> store,
    Logger const& log
);

} // namespace icsbridge::cli
