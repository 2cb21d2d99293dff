// File: main.cpp
// Entry point: process-wide library settings, then the command dispatcher; the one top-level catch.
#include "cli/commands.hpp"
#include <icsbridge/ical.hpp>

#include <csignal>
#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
    // libical keeps process-wide settings (error fatality, TZID prefix): set them once, before any thread.
    icsbridge::init_libical();
    // sendfile() has no MSG_NOSIGNAL: a client hanging up in the middle of a body would otherwise end the
    // whole process with SIGPIPE. Servers ignore it (nginx does); the write then fails with EPIPE.
    std::signal(SIGPIPE, SIG_IGN);
    try {
        return icsbridge::cli::dispatch(argc, argv);
    } catch (std::exception const& e) {
        // Expected failures come back as Result values; reaching here is a bug or resource exhaustion.
        std::fprintf(stderr, "icsbridge: internal error: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "icsbridge: internal error\n");
    }
    return 1;
}
