// File: test_main.cpp
// The single Boost.Test entry point of each test executable.
#define BOOST_TEST_MODULE icsbridge
#include <boost/test/unit_test.hpp>
