# File: server.cmake
# `icsbridge serve` end to end against the fake upstream binary, and the index page in headless Chromium.
add_test(
    NAME server.serve_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/serve_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.serve_e2e PROPERTIES LABELS server TIMEOUT 180)

add_test(NAME server.index_page_browser COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/browser/index_page_test.sh"
                                                  $<TARGET_FILE:icsbridge>)
set_tests_properties(server.index_page_browser PROPERTIES LABELS "server;browser" TIMEOUT 120 SKIP_RETURN_CODE 77)

# Open-file limits (issue 16): the soft limit raised, max_connections kept below the limit, 503 not a hang.
add_test(NAME server.fd_limit COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/fd_limit_test.sh"
                                          $<TARGET_FILE:icsbridge> "${CMAKE_SOURCE_DIR}")
set_tests_properties(server.fd_limit PROPERTIES LABELS server TIMEOUT 120)

# Incoming webhooks (issue 12): latency, bursts, refusals without upstream requests, secrecy, the budget.
add_test(
    NAME server.hooks_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/hooks_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.hooks_e2e PROPERTIES LABELS server TIMEOUT 180)

# SIGHUP reload under wrk load (issue 12): added, revoked, kept, removed, refused.
add_test(
    NAME server.reload_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/reload_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.reload_e2e PROPERTIES LABELS server TIMEOUT 180 SKIP_RETURN_CODE 77)
# A kept snapshot is served only under the definition it was made under; a feed added back serves its own.
add_test(
    NAME server.definition_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/definition_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.definition_e2e PROPERTIES LABELS server TIMEOUT 120)
