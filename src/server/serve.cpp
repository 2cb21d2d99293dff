// File: serve.cpp
// STUB until the server lands (owner: server).
#include "server/serve.hpp"

namespace icsbridge {

int serve_command(Config const&, Logger const& log) {
    log.error("serve is not implemented yet");
    return 1;
}

} // namespace icsbridge
