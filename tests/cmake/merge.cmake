# File: merge.cmake
# Merged feeds: the sample merge_test writes (events, to-dos and job events of three calendars) parsed with
# python3-icalendar and vobject with exact counts; and merged feeds served by the real binary, one part
# failing upstream.
if(TEST unit.merge_test)
    set_tests_properties(unit.merge_test PROPERTIES FIXTURES_SETUP merge_sample)
    add_test(
        NAME python.check_merge_sample
        COMMAND /usr/bin/python3 "${CMAKE_CURRENT_SOURCE_DIR}/python/check_ics.py" "${CMAKE_BINARY_DIR}/merge_sample.ics"
                --expect "${CMAKE_BINARY_DIR}/merge_sample.expect.json"
    )
    set_tests_properties(python.check_merge_sample PROPERTIES FIXTURES_REQUIRED merge_sample LABELS python TIMEOUT 120)
endif()

add_test(
    NAME server.merge_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/merge_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.merge_e2e PROPERTIES LABELS server TIMEOUT 180)
