// File: log.hpp
// The injected logger (a value, never a global) and the redaction every logged URL goes through.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace icsbridge {

enum class LogLevel { debug = 0, info = 1, warn = 2, error = 3 };

/** @brief A level and a sink; tests swap the sink for a string collector. Thread-safe if the sink is. */
struct Logger {
    LogLevel min = LogLevel::info;
    std::function<void(LogLevel, std::string_view)> sink;

    void log(LogLevel lvl, std::string_view msg) const {
        if (sink && lvl >= min)
            sink(lvl, msg);
    }
    void debug(std::string_view m) const { log(LogLevel::debug, m); }
    void info(std::string_view m) const { log(LogLevel::info, m); }
    void warn(std::string_view m) const { log(LogLevel::warn, m); }
    void error(std::string_view m) const { log(LogLevel::error, m); }
};

/** @brief One line per message on stderr, "2026-11-22T10:00:00Z info message", serialised by a mutex. */
Logger stderr_logger(LogLevel min = LogLevel::info);

/** @brief A logger that drops everything. */
inline Logger null_logger() {
    return Logger{LogLevel::error, {}};
}

/**
 * @brief Replaces the values of secret-bearing query parameters (api_key, token, access_token, key,
 * client_secret, apikey, code, state, refresh_token; names compared percent-decoded and case-insensitively, every occurrence) in a URL or
 * request target with "***", and the whole fragment's contents with "***". Safe on malformed input.
 */
std::string redact_url(std::string_view url_or_target);

/**
 * @brief A value a client chose (a user agent, a hook's action), fit for one log line: at most `max_bytes`,
 * control characters, quotes and DEL replaced by '?', so it cannot forge or break lines.
 */
std::string loggable(std::string_view s, std::size_t max_bytes);

} // namespace icsbridge
