// File: init.cpp
// Process-wide libical settings, made before any second thread exists.
#include <icsbridge/ical.hpp>

#include <libical/ical.h>

namespace icsbridge {

void init_libical() {
    // A malformed value must come back as an error we can report, not abort() the service.
    icalerror_set_errors_are_fatal(0);
    // libical builds its list of built-in zones on the first call that needs it, without a lock, and
    // icaltimezone_get_utc_timezone() is such a call: two render threads making it at once crashed `export`
    // 4 runs in 100. Built here, on the one thread, the list is only read afterwards; each zone's own
    // lazy loading and expansion happen under the zones' lock (timezones.cpp).
    icaltimezone_get_builtin_timezones();
    icaltimezone_get_utc_timezone();
}

} // namespace icsbridge
