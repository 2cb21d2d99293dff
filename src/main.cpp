// File: main.cpp
// Entry point: process-wide library settings, then the command dispatcher.
#include <icsbridge/calendar.hpp>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
    // libical keeps process-wide settings (error fatality, TZID prefix): set them once, before any thread.
    icsbridge::init_libical();
    return icsbridge::cli::dispatch(argc, argv);
}
