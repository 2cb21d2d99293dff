// File: test_main.cpp
// The single Boost.Test entry point of each test executable.
#define BOOST_TEST_MODULE icsbridge
#include <boost/test/unit_test.hpp>

#include <csignal>

namespace {

// As icsbridge's main() does: servers under test write to clients that hang up (sendfile has no
// MSG_NOSIGNAL), which must fail with EPIPE rather than end the test process.
struct IgnoreSigpipe {
    IgnoreSigpipe() { std::signal(SIGPIPE, SIG_IGN); }
};
BOOST_TEST_GLOBAL_FIXTURE(IgnoreSigpipe);

} // namespace
