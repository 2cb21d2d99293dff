// File: push_refusal_test.cpp
// What a CalDAV target's refusals say: the keys a user edits to fix them.
#include "push/target_client.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge;

BOOST_AUTO_TEST_SUITE(push_refusal_test)

BOOST_AUTO_TEST_CASE(a_refused_password_names_every_key_that_gives_it) {
    // Setup
    HttpResponse r;
    r.status = 401;

    // Run
    auto e = push::refusal("family", "PROPFIND", "https://dav.example.org/cal/", r);

    // Check
    BOOST_TEST((e.code == errc::upstream_auth));
    BOOST_TEST(
        e.message ==
        "family: 401 from PROPFIND https://dav.example.org/cal/: the server refused the credentials; "
        "check username and the password (password, password_env or password_file of [targets.family])"
    );
}

BOOST_AUTO_TEST_SUITE_END()
