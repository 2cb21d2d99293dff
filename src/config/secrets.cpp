// File: secrets.cpp
// Which secrets a command needs: the loader notes the ones this environment lacks (Config::missing_secrets),
// and each command asks only for those of the tables it touches, so `export` of one feed does not need the
// other sources' keys. `serve` and `check` touch every table.
#include <icsbridge/config.hpp>

#include <algorithm>

namespace icsbridge {

std::vector<std::string> secret_owners_of_feed(Config const& cfg, FeedConfig const& feed) {
    std::vector<std::string> out;
    auto add_source = [&](FeedConfig const& f) {
        if (!f.source.empty() && cfg.find_source(f.source))
            out.push_back("[sources." + f.source + "]");
    };
    if (!feed.is_merged()) {
        add_source(feed);
        return out;
    }
    // The loader allows no merge of merges: each part is fetched.
    for (auto const& part : feed.merge)
        if (auto const* f = cfg.find_feed(part))
            add_source(*f);
    return out;
}

Result<void> require_secrets(Config const& cfg, std::vector<std::string> const& owners) {
    std::string lines;
    for (auto const& m : cfg.missing_secrets)
        if (std::find(owners.begin(), owners.end(), m.owner) != owners.end())
            lines += (lines.empty() ? "" : "\n") + m.message;
    if (lines.empty())
        return {};
    return fail(errc::config_invalid, lines);
}

Result<void> require_all_secrets(Config const& cfg) {
    if (cfg.missing_secrets.empty())
        return {};
    std::string out;
    for (auto const& m : cfg.missing_secrets)
        out += m.message + "\n";
    auto const n = cfg.missing_secrets.size();
    out += "icsbridge: " + std::to_string(n) + (n == 1 ? " secret is" : " secrets are") +
           " missing. The service reads *_env secrets from its environment: under systemd put NAME=value "
           "lines in /etc/icsbridge/secrets.env (the unit's EnvironmentFile, 0600 root), then check as the "
           "service will run: sudo sh -c 'set -a; . /etc/icsbridge/secrets.env; exec icsbridge check "
           "--config /etc/icsbridge/config.toml'. A *_file must exist and be readable by the service.";
    return fail(errc::config_invalid, out);
}

} // namespace icsbridge
