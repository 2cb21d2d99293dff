// File: serve.cpp
// The `serve` command: the checks before anything runs (warnings, the open-file limit, storage.dir), then
// the Service (service.hpp) until SIGINT/SIGTERM.
#include "cli/serve.hpp"

#include "app/service.hpp"

#include <sys/resource.h>

#include <filesystem>

namespace icsbridge {

namespace {

/**
 * @brief Raises the soft open-file limit to the hard one: every client connection is a descriptor, and
 * the soft default (1024) is as low as max_connections' default. Returns the limit now in force.
 */
rlim_t raise_open_file_limit(Logger const& log) {
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0)
        return 0;
    if (lim.rlim_cur < lim.rlim_max) {
        rlimit want = lim;
        want.rlim_cur = lim.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &want) == 0)
            lim = want;
        else
            log.warn("cannot raise the open-file limit to " + std::to_string(lim.rlim_max));
    }
    return lim.rlim_cur;
}

} // namespace

int serve_command(Config const& cfg, Logger const& log) {
    for (auto const& w : config_warnings(cfg))
        log.warn(w);
    auto const nofile = raise_open_file_limit(log);
    log.info(
        "open-file limit " + (nofile == RLIM_INFINITY ? std::string("unlimited") : std::to_string(nofile))
    );
    std::error_code ec;
    std::filesystem::create_directories(cfg.storage.dir, ec);
    if (ec) {
        log.error("cannot create storage directory " + cfg.storage.dir + ": " + ec.message());
        return 1;
    }
    Service service(cfg, log);
    return service.run();
}

} // namespace icsbridge
