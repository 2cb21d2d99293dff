# The fake upstream executable as the demo and benchmarks run it (startup line, control API, SIGTERM).
add_test(NAME fake_upstream.exe COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/fake_upstream/exe_test.sh" $<TARGET_FILE:icsbridge-fake-upstream>)
set_tests_properties(fake_upstream.exe PROPERTIES TIMEOUT 60 LABELS integration)
