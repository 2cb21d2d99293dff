// File: connect_wiring.cpp
// make_connections(): the key (or, unreadable, a throwaway one that opens nothing), and the records' store;
// check_connect_key(): whether the key file can be used at all (a config error otherwise).
#include "app/connect_wiring.hpp"

#include <icsbridge/config.hpp>

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
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

std::string key_file_state(std::string const& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    auto const st = fs::status(path, ec);
    std::string const make = "; make one with: openssl rand -hex 32 > " + path + " && chmod 600 " + path;
    if (!fs::exists(st))
        return "missing" + make;
    if (!fs::is_regular_file(st))
        return "not a regular file" + make;
    if (!std::ifstream(path, std::ios::binary).is_open())
        return "not readable by this user";
    if (!connect::ConnectKey::from_file(path)) // what is wrong with its content is never printed
        return "not a key: it must hold 64 hex digits or 32 raw bytes" + make;
    if ((st.permissions() & (fs::perms::group_read | fs::perms::others_read)) != fs::perms::none)
        return "readable by others: chmod 600 " + path;
    return "readable";
}

Result<void> check_connect_key(Config const& cfg) {
    if (!cfg.connect)
        return {};
    auto const& c = *cfg.connect;
    auto const state = key_file_state(c.key_file);
    if (state == "readable" || state.starts_with("readable by others"))
        return {};
    return fail(
        errc::config_invalid,
        // The table's place: `line` is where its header starts, which is in the first column.
        cfg.path + ":" + std::to_string(std::max(c.line, 1)) + ":1" + ": [connect] key_file " + c.key_file +
            ": " + state + " (it seals the stored sign-ins; without it no one could connect a calendar)"
    );
}

std::unique_ptr<connect::Connections> make_connections(
    std::shared_ptr<Config const> cfg,
    push::PushService& push,
    PushStatus& status,
    PersistenceFor<push::KeptState> keeping,
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
