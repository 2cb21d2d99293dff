# File: ical.cmake
# Real-parser check of the calendar builder's output: the unit test ical_builder_test writes
# ical_sample.ics + ical_sample.expect.json into the build dir (fixture setup), then check_ics.py
# parses it with python3-icalendar and vobject (Debian's /usr/bin/python3 has both).
if(TEST unit.ical_builder_test)
    set_tests_properties(unit.ical_builder_test PROPERTIES FIXTURES_SETUP ical_sample)
    add_test(
        NAME python.check_ics_sample
        COMMAND /usr/bin/python3 "${CMAKE_CURRENT_SOURCE_DIR}/python/check_ics.py" "${CMAKE_BINARY_DIR}/ical_sample.ics"
                --expect "${CMAKE_BINARY_DIR}/ical_sample.expect.json"
    )
    set_tests_properties(python.check_ics_sample PROPERTIES FIXTURES_REQUIRED ical_sample LABELS python TIMEOUT 120)
endif()
