// File: load_config.cpp
// STUB until the config loader lands (owner: cli).
#include <icsbridge/config.hpp>

namespace icsbridge {

FeedConfig const* Config::find_feed(std::string_view name) const {
    for (auto const& f : feeds)
        if (f.name == name)
            return &f;
    return nullptr;
}
SourceConfig const* Config::find_source(std::string_view name) const {
    auto it = sources.find(std::string(name));
    return it == sources.end() ? nullptr : &it->second;
}
EnvLookup process_env() { return [](std::string const&) { return std::optional<std::string>{}; }; }
Result<Config> load_config(std::string const& path, EnvLookup const&) {
    return fail(errc::config_invalid, path + ": config loader not implemented yet");
}
Result<Config> parse_config(std::string_view, std::string const& path, EnvLookup const&) {
    return fail(errc::config_invalid, path + ": config loader not implemented yet");
}
std::optional<std::chrono::seconds> parse_duration(std::string_view) { return std::nullopt; }
std::string format_duration(std::chrono::seconds d) { return std::to_string(d.count()) + "s"; }
std::string feed_url(Config const& cfg, FeedConfig const& feed) {
    return cfg.server.public_url + "/feeds/" + feed.name + ".ics";
}

} // namespace icsbridge
