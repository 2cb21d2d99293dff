// File: connect_wiring.cpp
// make_connections(): the key (or, unreadable, a throwaway one that opens nothing), and the records' store.
#include "cli/connect_wiring.hpp"

#include <icsbridge/config.hpp>

#include <openssl/rand.h>

#include <array>
#include <stdexcept>

namespace icsbridge::cli {

namespace {

connect::ConnectKey throwaway_key() {
    std::array<unsigned char, 32> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
        throw std::runtime_error("the random generator failed");
    return connect::ConnectKey::from_bytes(bytes);
}

} // namespace

std::unique_ptr<connect::Connections> make_connections(
    std::shared_ptr<Config const> cfg,
    push::PushService& push,
    PushStatus& status,
    push::PushService::Keeping keeping,
    std::unique_ptr<connect::ConnectionStore> store,
    Logger const& log
) {
    auto key = connect::ConnectKey::from_file(cfg->connect->key_file);
    bool const readable = static_cast<bool>(key);
    if (!readable)
        log.error(
            key.error().message +
            "; connected calendars wait (\"reconnect needed\") and new ones are refused until a restart"
        );
    // In a cluster other replicas add and remove connections: their records are read again every 5 s.
    std::chrono::seconds const poll{cfg->cluster ? 5 : 0};
    auto c = std::make_unique<connect::Connections>(
        cfg,
        readable ? std::move(*key) : throwaway_key(),
        std::move(store),
        push,
        status,
        std::move(keeping),
        log,
        poll
    );
    c->set_accepting(readable);
    return c;
}

} // namespace icsbridge::cli
