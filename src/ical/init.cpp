// File: init.cpp
// Process-wide libical settings.
#include <icsbridge/ical.hpp>

#include <libical/ical.h>

namespace icsbridge {

void init_libical() {
    // A malformed value must come back as an error we can report, not abort() the service.
    icalerror_set_errors_are_fatal(0);
}

} // namespace icsbridge
