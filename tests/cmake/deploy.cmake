# Deploy files: the systemd unit verifies, and `cmake --install` lays out what the README promises.
add_test(NAME deploy.systemd_unit COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/verify_unit.sh" "${CMAKE_SOURCE_DIR}" "$<TARGET_FILE:icsbridge>" "${CMAKE_BINARY_DIR}")
set_tests_properties(deploy.systemd_unit PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME deploy.install_layout COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/install_test.sh" "${CMAKE_BINARY_DIR}")
# deploy/nginx.conf as shipped, with real nginx and curl over TLS in front of the real server.
add_test(NAME deploy.nginx_proxy COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/nginx_test.sh" "${CMAKE_SOURCE_DIR}" "$<TARGET_FILE:icsbridge>")
set_tests_properties(deploy.nginx_proxy PROPERTIES LABELS deploy TIMEOUT 60)

# The Debian package (issue 15): cpack once into build/package-test/ (the fixture), then its contents,
# lintian, and a dpkg install/remove/purge in a throwaway root. Label `package`: it checks packaging, not
# code, so deploy/test.sh runs it in build/ only (build-san/ would package a sanitizer build).
add_test(NAME deploy.package_build COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/package_test.sh" build "${CMAKE_BINARY_DIR}")
set_tests_properties(deploy.package_build PROPERTIES FIXTURES_SETUP icsbridge_deb LABELS "deploy;package" TIMEOUT 300)
foreach(check contents lintian install)
    add_test(
        NAME deploy.package_${check}
        COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/package_test.sh" ${check} "${CMAKE_BINARY_DIR}" "${CMAKE_SOURCE_DIR}"
    )
    set_tests_properties(deploy.package_${check} PROPERTIES FIXTURES_REQUIRED icsbridge_deb LABELS "deploy;package" TIMEOUT 300)
endforeach()

# Man pages (built by docs/man/man.cmake) and bash completion, each checked against the code and the binary.
foreach(check render keys synopsis readme date)
    add_test(
        NAME deploy.man_${check}
        COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/man_test.sh" ${check} "${CMAKE_SOURCE_DIR}" "${CMAKE_BINARY_DIR}"
                $<TARGET_FILE:icsbridge>
    )
    set_tests_properties(deploy.man_${check} PROPERTIES LABELS "deploy" TIMEOUT 60)
endforeach()
add_test(NAME deploy.bash_completion COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/completion_test.sh" "${CMAKE_SOURCE_DIR}" $<TARGET_FILE:icsbridge>)
set_tests_properties(deploy.bash_completion PROPERTIES LABELS "deploy" TIMEOUT 60)

# deploy/compose.yaml (cluster mode) checked without docker: the file, the config and nginx setup it mounts.
add_test(NAME deploy.compose COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/compose_test.sh" "${CMAKE_SOURCE_DIR}" "$<TARGET_FILE:icsbridge>")
set_tests_properties(deploy.compose PROPERTIES LABELS deploy TIMEOUT 60)
