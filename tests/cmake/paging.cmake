# File: paging.cmake
# Paged upstream lists read under stress: a refresh cancelled while its page requests are out (issue 29).
add_test(
    NAME integration.paging_cancel
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/integration/paging_cancel_test.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(integration.paging_cancel PROPERTIES LABELS "integration;paging" TIMEOUT 240)
