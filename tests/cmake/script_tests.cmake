# File: script_tests.cmake
# Shell tests are registered by folder: every tests/FOLDER/NAME_test.sh (or NAME.sh) is the CTest entry
# PREFIX.NAME, run as
#   bash tests/FOLDER/SCRIPT ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
# with the folder's labels and timeout. In a folder marked SKIP_77 (and for a test the table marks), exit
# status 77 means skipped: a tool it needs (Chromium, wrk, systemd-analyze) is not installed.
# A new script in a folder is a new test, nothing to register. What a single test needs beyond that (cases,
# fixtures, another label) is in the table in tests/CMakeLists.txt.

# icsbridge_script_test(NAME SCRIPT [CASE]): one entry with the standard arguments (and CASE after them).
function(icsbridge_script_test name script)
    add_test(
        NAME ${name}
        COMMAND bash "${script}" $<TARGET_FILE:icsbridge> $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
                "${CMAKE_BINARY_DIR}" ${ARGN}
    )
endfunction()

# icsbridge_script_tests(FOLDER PREFIX PREFIX LABELS LABEL... TIMEOUT SECONDS [SKIP_77] [EXCEPT STEM...]): each
# script of tests/FOLDER but the EXCEPT ones (registered by the table, with their cases).
function(icsbridge_script_tests folder)
    cmake_parse_arguments(PARSE_ARGV 1 arg "SKIP_77" "PREFIX;TIMEOUT" "LABELS;EXCEPT")
    file(GLOB scripts CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*.sh")
    foreach(script IN LISTS scripts)
        get_filename_component(stem "${script}" NAME_WE)
        if(stem IN_LIST arg_EXCEPT)
            continue()
        endif()
        string(REGEX REPLACE "_test$" "" name "${stem}")
        icsbridge_script_test(${arg_PREFIX}.${name} "${script}")
        set_tests_properties(${arg_PREFIX}.${name} PROPERTIES LABELS "${arg_LABELS}" TIMEOUT ${arg_TIMEOUT})
        if(arg_SKIP_77)
            set_tests_properties(${arg_PREFIX}.${name} PROPERTIES SKIP_RETURN_CODE 77)
        endif()
    endforeach()
endfunction()

# icsbridge_script_cases(SCRIPT PREFIX LABELS TIMEOUT CASE...): one entry PREFIXCASE per case of a script that
# takes the case after the standard arguments.
function(icsbridge_script_cases script prefix labels timeout)
    foreach(case IN LISTS ARGN)
        icsbridge_script_test(${prefix}${case} "${CMAKE_CURRENT_SOURCE_DIR}/${script}" ${case})
        set_tests_properties(${prefix}${case} PROPERTIES LABELS "${labels}" TIMEOUT ${timeout})
    endforeach()
endfunction()
