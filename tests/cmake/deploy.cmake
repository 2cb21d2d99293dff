# Deploy files: the systemd unit verifies, and `cmake --install` lays out what the README promises.
add_test(NAME deploy.systemd_unit COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/verify_unit.sh" "${CMAKE_SOURCE_DIR}" "$<TARGET_FILE:icsbridge>")
set_tests_properties(deploy.systemd_unit PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME deploy.install_layout COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/install_test.sh" "${CMAKE_BINARY_DIR}")
# deploy/nginx.conf as shipped, with real nginx and curl over TLS in front of the real server.
add_test(NAME deploy.nginx_proxy COMMAND bash "${CMAKE_SOURCE_DIR}/tests/deploy/nginx_test.sh" "${CMAKE_SOURCE_DIR}" "$<TARGET_FILE:icsbridge>")
set_tests_properties(deploy.nginx_proxy PROPERTIES LABELS deploy TIMEOUT 60)
