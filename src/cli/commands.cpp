// File: commands.cpp
// Placeholder dispatcher until the CLI lands.
#include "cli/commands.hpp"

#include <cstdio>
#include <cstring>

namespace icsbridge::cli {

int dispatch(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        std::puts("icsbridge " ICSBRIDGE_VERSION);
        return 0;
    }
    std::fputs("usage: icsbridge (serve|export|check) --config FILE\n", stderr);
    return 2;
}

} // namespace icsbridge::cli
