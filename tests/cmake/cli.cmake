# File: cli.cmake
# The command line as users and scripts see it (CONTRACT.md "Binary"): exit statuses, messages, no secrets.
# Each case is one CTest entry running tests/cli/cli_test.sh against the built binary.
foreach(
    case
    version
    help
    usage_errors
    check_example
    check_invalid
    export_unknown_feed
    export_dead_upstream
    export_stdout_dead
    categories
)
    add_test(
        NAME cli.${case}
        COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_test.sh" ${case} $<TARGET_FILE:icsbridge> "${CMAKE_SOURCE_DIR}"
                "${PROJECT_VERSION}"
    )
    set_tests_properties(cli.${case} PROPERTIES LABELS cli TIMEOUT 120)
endforeach()

# End to end against the fake upstream: golden files + real iCalendar parsers. Regenerate the goldens with
#   ICSBRIDGE_UPDATE_GOLDEN=1 ctest --test-dir build -R cli.e2e
add_test(
    NAME cli.e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/cli/e2e_test.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(cli.e2e PROPERTIES LABELS cli TIMEOUT 300)

# An organizer feed over its events' whole life (the fake upstream's --lifecycle data, dated around now).
add_test(
    NAME cli.lifecycle
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/cli/lifecycle_test.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(cli.lifecycle PROPERTIES LABELS cli TIMEOUT 300)

# export --output against what is already at PATH: modes, owners, FIFOs, devices, symlinks (issue 16).
add_test(
    NAME cli.export_output
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/cli/output_test.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(cli.export_output PROPERTIES LABELS cli TIMEOUT 120)

# check warns (exit 0) about readable secrets and plain http:// upstreams (issue 16).
add_test(NAME cli.config_warnings COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/cli/warnings_test.sh"
                                            $<TARGET_FILE:icsbridge>)
set_tests_properties(cli.config_warnings PROPERTIES LABELS cli TIMEOUT 60)
