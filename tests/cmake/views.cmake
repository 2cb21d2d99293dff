# File: views.cmake
# Subscriber views: every view the unit test view_test writes (build/view_*.ics + .expect.json) parsed
# with python3-icalendar and vobject with exact counts; and the views served by the real binary.
if(TEST unit.view_test)
    set_tests_properties(unit.view_test PROPERTIES FIXTURES_SETUP view_samples)
    foreach(v alarm_none alarm_30m december jobs_oct1 jobs_remote busy jobs_busy)
        add_test(
            NAME python.check_view_${v}
            COMMAND /usr/bin/python3 "${CMAKE_CURRENT_SOURCE_DIR}/python/check_ics.py" "${CMAKE_BINARY_DIR}/view_${v}.ics"
                    --expect "${CMAKE_BINARY_DIR}/view_${v}.expect.json"
        )
        set_tests_properties(python.check_view_${v} PROPERTIES FIXTURES_REQUIRED view_samples LABELS python TIMEOUT 120)
    endforeach()
endif()

add_test(
    NAME server.views_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/views_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.views_e2e PROPERTIES LABELS server TIMEOUT 180)

add_test(
    NAME server.index_page_look
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/browser/index_page_look_test.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/screens"
)
set_tests_properties(server.index_page_look PROPERTIES LABELS "server;browser" TIMEOUT 180 SKIP_RETURN_CODE 77)

add_test(
    NAME server.agenda_page_browser
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/browser/agenda_page_test.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/screens"
)
set_tests_properties(server.agenda_page_browser PROPERTIES LABELS "server;browser" TIMEOUT 180 SKIP_RETURN_CODE 77)

# The google view of a 10,000-event feed (unit.google_view_test writes it): python3-icalendar and vobject,
# and ical.js when it is installed (`npm install --prefix build ical.js@2`; skipped otherwise).
if(TEST unit.google_view_test)
    set_tests_properties(unit.google_view_test PROPERTIES FIXTURES_SETUP google_view_sample)
    add_test(
        NAME python.check_view_google
        COMMAND /usr/bin/python3 "${CMAKE_CURRENT_SOURCE_DIR}/python/check_ics.py" "${CMAKE_BINARY_DIR}/view_google.ics"
                --expect "${CMAKE_BINARY_DIR}/view_google.expect.json"
    )
    set_tests_properties(python.check_view_google PROPERTIES FIXTURES_REQUIRED google_view_sample LABELS python TIMEOUT 120)
    add_test(
        NAME js.check_view_google
        COMMAND node "${CMAKE_CURRENT_SOURCE_DIR}/js/check_icaljs.js" "${CMAKE_BINARY_DIR}/view_google.ics"
                "${CMAKE_BINARY_DIR}/view_google.expect.json" "${CMAKE_BINARY_DIR}/node_modules"
    )
    set_tests_properties(
        js.check_view_google PROPERTIES FIXTURES_REQUIRED google_view_sample LABELS js TIMEOUT 120 SKIP_RETURN_CODE 77
    )
endif()
