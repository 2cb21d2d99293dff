// File: hang_dns.cpp
// An LD_PRELOAD shim for the push tests: getaddrinfo of the one name in HANG_DNS_HOST never answers (as
// a DNS server that drops the query), every other lookup goes to the C library. Each hung lookup appends a
// line to HANG_DNS_LOG, so a test can tell the shim was in force. The name a test gives it is one
// /etc/hosts answers ("localhost"): should the shim not be loaded, no query leaves the machine.
#include <dlfcn.h>
#include <netdb.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using getaddrinfo_fn = int (*)(char const*, char const*, addrinfo const*, addrinfo**);

void note_hung(char const* node) {
    char const* path = std::getenv("HANG_DNS_LOG");
    if (!path)
        return;
    if (FILE* f = std::fopen(path, "a")) {
        std::fprintf(f, "hung %s\n", node);
        std::fclose(f);
    }
}

} // namespace

extern "C" int getaddrinfo(char const* node, char const* service, addrinfo const* hints, addrinfo** res) {
    char const* hang = std::getenv("HANG_DNS_HOST");
    // A numeric lookup (AI_NUMERICHOST) never asks DNS: only a real name lookup hangs.
    bool const numeric_only = hints && (hints->ai_flags & AI_NUMERICHOST);
    if (hang && node && !numeric_only && std::strcmp(node, hang) == 0) {
        note_hung(node);
        for (;;)
            ::pause();
    }
    static auto const real = reinterpret_cast<getaddrinfo_fn>(::dlsym(RTLD_NEXT, "getaddrinfo"));
    return real(node, service, hints, res);
}
