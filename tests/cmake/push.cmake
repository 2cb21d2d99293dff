# File: push.cmake
# `icsbridge push` and serve's pushes into a real CalDAV server (issue 25): Debian's Radicale on loopback,
# behind tests/push/dav_proxy.py (request log, injected 429/503), read back with python3-caldav.
set(push_scripts_dir "${CMAKE_CURRENT_SOURCE_DIR}/push")

# The mirror: one CTest entry per step of tests/push/mirror_test.sh (each runs the steps before its own).
foreach(
    case
    initial
    unchanged
    change
    removal
    foreign
    dry_run
    drift
)
    add_test(NAME push.mirror.${case} COMMAND bash "${push_scripts_dir}/mirror_test.sh" ${case} $<TARGET_FILE:icsbridge>
                                              $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}")
    set_tests_properties(push.mirror.${case} PROPERTIES LABELS push TIMEOUT 120)
endforeach()

# discovery: the calendar found by display name from the server root, or made; components: VTODO where the
# calendar takes them, two feeds in one target, a UID the person already has; failures: 401/403/not a
# calendar/unreachable/usage, no secret; retry: 429/503 with Retry-After; kill: SIGKILL mid-push, no
# duplicate; serve: a webhook's change in Radicale within 5 s, the push metrics.
foreach(
    script
    discovery
    components
    failures
    retry
    kill
    serve
)
    add_test(NAME push.${script} COMMAND bash "${push_scripts_dir}/${script}_test.sh" $<TARGET_FILE:icsbridge>
                                         $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}")
    set_tests_properties(push.${script} PROPERTIES LABELS push TIMEOUT 180)
endforeach()
