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
