# File: hardening.cmake
# Issue 5, hardening: no secret in anything icsbridge prints, logs, stores or serves, on every error path.
# (The hostile request and upstream-data tests are Boost.Test suites: integration.hostile_requests_test,
# unit.hostile_upstream_test.)
add_test(
    NAME cli.secrets
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/cli/secrets_test.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(cli.secrets PROPERTIES LABELS "cli;hardening" TIMEOUT 180)
