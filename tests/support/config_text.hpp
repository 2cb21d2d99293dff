// File: config_text.hpp
// A config read from a test's text in a made-up environment: the one way the unit tests parse configs, so
// no test depends on the real environment.
#pragma once

#include <icsbridge/config.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace icsbridge::test {

/** @brief An environment holding exactly `vars`: any other variable is unset. */
inline EnvLookup env_of(std::map<std::string, std::string> vars = {}) {
    return [vars = std::move(vars)](std::string const& name) -> std::optional<std::string> {
        auto it = vars.find(name);
        if (it == vars.end())
            return std::nullopt;
        return it->second;
    };
}

/** @brief `text` read as the config file `path` in an environment holding exactly `env`. */
inline Result<Config> parse_config_text(
    std::string const& text, std::string const& path, std::map<std::string, std::string> env = {}
) {
    return parse_config(text, path, env_of(std::move(env)));
}

} // namespace icsbridge::test
