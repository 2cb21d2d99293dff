# File: man.cmake (included by the top-level CMakeLists.txt)
# icsbridge(1) and icsbridge.toml(5), generated at build time by docs/man/gen-man.sh into build/man/ (plain,
# for `man -l` and tests; .gz, for installing), and the bash completion. Installed by `cmake --install`
# and in the Debian package alike.

# The pages carry the date of the newest release: the top entry of deploy/debian/changelog, which must
# also name this version (so a version bump without a changelog entry fails here, not in lintian).
set(ICSBRIDGE_CHANGELOG "${CMAKE_SOURCE_DIR}/deploy/debian/changelog")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${ICSBRIDGE_CHANGELOG}")
file(STRINGS "${ICSBRIDGE_CHANGELOG}" changelog_lines)
list(GET changelog_lines 0 changelog_top)
if(NOT changelog_top MATCHES "^icsbridge \\(([^)]+)\\)" OR NOT CMAKE_MATCH_1 STREQUAL PROJECT_VERSION)
    message(FATAL_ERROR "deploy/debian/changelog: the top entry must be for version ${PROJECT_VERSION}")
endif()
set(ICSBRIDGE_RELEASE_DATE "")
foreach(line IN LISTS changelog_lines)
    if(line MATCHES "^ -- .*  [A-Z][a-z][a-z], ([0-9][0-9]?) ([A-Z][a-z][a-z]) ([0-9][0-9][0-9][0-9]) ")
        set(day "${CMAKE_MATCH_1}")
        set(year "${CMAKE_MATCH_3}")
        # list(FIND) takes the name of a list variable: a literal list there finds nothing (month 00).
        set(months "Jan;Feb;Mar;Apr;May;Jun;Jul;Aug;Sep;Oct;Nov;Dec")
        list(FIND months "${CMAKE_MATCH_2}" month)
        if(month LESS 0)
            message(FATAL_ERROR "deploy/debian/changelog: '${CMAKE_MATCH_2}' is not a month in '${line}'")
        endif()
        math(EXPR month "${month} + 1" OUTPUT_FORMAT DECIMAL)
        string(LENGTH "${day}" day_len)
        if(day_len EQUAL 1)
            set(day "0${day}")
        endif()
        if(month LESS 10)
            set(month "0${month}")
        endif()
        set(ICSBRIDGE_RELEASE_DATE "${year}-${month}-${day}")
        break()
    endif()
endforeach()
if(NOT ICSBRIDGE_RELEASE_DATE)
    message(FATAL_ERROR "deploy/debian/changelog: no ' -- NAME <MAIL>  Day, DD Mon YYYY ...' line")
endif()

set(ICSBRIDGE_MAN_DIR "${CMAKE_BINARY_DIR}/man")
set(gen_man "${CMAKE_SOURCE_DIR}/docs/man/gen-man.sh")
set(keys_tsv "${CMAKE_SOURCE_DIR}/docs/man/config-keys.tsv")
set(man_outputs "")
foreach(page icsbridge.1 icsbridge.toml.5)
    string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section "${page}")
    set(out "${ICSBRIDGE_MAN_DIR}/man${section}/${page}")
    add_custom_command(
        OUTPUT "${out}" "${out}.gz"
        COMMAND ${CMAKE_COMMAND} -E make_directory "${ICSBRIDGE_MAN_DIR}/man${section}"
        COMMAND sh "${gen_man}" page "${CMAKE_SOURCE_DIR}/docs/man/${page}.in" "${PROJECT_VERSION}"
                "${ICSBRIDGE_RELEASE_DATE}" "${keys_tsv}" > "${out}"
        # -n: no name or time stamp in the header, so the .gz is the same bytes on every build.
        COMMAND gzip -9nc "${out}" > "${out}.gz"
        DEPENDS "${gen_man}" "${CMAKE_SOURCE_DIR}/docs/man/${page}.in" "${keys_tsv}"
        COMMENT "Generating man page ${page}"
        VERBATIM
    )
    list(APPEND man_outputs "${out}" "${out}.gz")
    install(FILES "${out}.gz" DESTINATION "${CMAKE_INSTALL_MANDIR}/man${section}")
endforeach()
add_custom_target(icsbridge-man ALL DEPENDS ${man_outputs})
# `cmake --install` installs the pages, and the README and the Dockerfile build only `--target icsbridge`
# before it: building the binary builds its pages too (a shell and awk run, well under a second).
add_dependencies(icsbridge icsbridge-man)

install(
    FILES "${CMAKE_SOURCE_DIR}/deploy/icsbridge.bash-completion"
    DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions"
    RENAME icsbridge
)
