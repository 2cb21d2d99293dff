// File: hardening_test.cpp
// Issue 16 (hardening, round two) and issue 11's write methods, against the real server on a loopback
// socket: tokens in odd URL placements stay out of the access log, writes get 405 with or without a body,
// a transfer coding other than chunked is refused, every keep-alive request has its own deadline, and a
// slow reader of a large body is not cut off while it keeps reading.
#include "support/hostile_server.hpp"

#include <boost/test/unit_test.hpp>

#include <sys/socket.h>

#include <chrono>
#include <string>
#include <thread>

using namespace icsbridge;
using namespace icsbridge::test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(hardening_test)

BOOST_AUTO_TEST_CASE(tokens_in_odd_url_placements_stay_out_of_the_access_log) {
    // Regression: redact_url copied the fragment verbatim, so "?x=1#&token=SECRET" was logged as is.
    HostileServer s; // its destructor fails the test if a token is in any log line
    for (std::string target : {
             "/feeds/secret.ics?x=1#&token=s3cret-token-value",
             "/feeds/secret.ics#token=s3cret-token-value",
             "/feeds/secret.ics#s3cret-token-value",
             "/feeds/team.ics?token=alice-secret-1&token=bob-secret-2",
             "/feeds/team.ics?x=1&%74oken=alice-secret-1&TOK%45N=bob-secret-2",
             "/feeds/secret.ics?token=s3cret-token-value=s3cret-token-value",
             "/feeds/secret.ics?token",
         }) {
        auto out = round_trip(s.port, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        BOOST_TEST(!out.empty(), target);
    }
    BOOST_TEST(s.logs.lines().size() >= 7u);
}

BOOST_AUTO_TEST_CASE(writes_get_405_with_or_without_a_body) {
    HostileServer s;
    for (std::string method : {"POST", "PUT", "DELETE", "PATCH"})
        for (std::string path : {"/", "/nope", "/feeds/pub.ics", "/healthz"}) {
            auto bare =
                round_trip(s.port, method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            BOOST_TEST(bare.starts_with("HTTP/1.1 405"), method << " " << path << ": " << bare.substr(0, 40));
            BOOST_TEST(bare.find("\r\nAllow: GET, HEAD\r\n") != std::string::npos);
            // Regression (issue 11): a body made this 413.
            auto small = round_trip(
                s.port,
                method + " " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            );
            BOOST_TEST(
                small.starts_with("HTTP/1.1 405"),
                method << " " << path << ": " << small.substr(0, 40)
            );
            BOOST_TEST(small.find("\r\nAllow: GET, HEAD\r\n") != std::string::npos);
        }
    // A chunked body and a body of 1 MiB: still a 405 the client can read, and the connection then closes
    // (the body was not read, so nothing after it can be trusted as the next request).
    auto chunked = round_trip(
        s.port,
        "POST /feeds/pub.ics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n\r\n"
    );
    BOOST_TEST(chunked.starts_with("HTTP/1.1 405"), chunked.substr(0, 40));
    BOOST_TEST(count(chunked, "HTTP/1.1 ") == 1u);
    std::string big(1024 * 1024, 'x');
    auto large = round_trip(
        s.port,
        "PUT /feeds/pub.ics HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(big.size()) +
            "\r\n\r\n" + big
    );
    BOOST_TEST(large.starts_with("HTTP/1.1 405"), large.substr(0, 40));
    // A body far over any limit: whatever the client sees, the next connection is served.
    {
        Client c(s.port);
        c.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n");
        c.send(std::string(8 * 1024 * 1024, 'y'));
    }
    still_serves(s);
    // GET keeps refusing a body as too large.
    auto get = round_trip(s.port, "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
    BOOST_TEST(get.starts_with("HTTP/1.1 413"), get.substr(0, 40));
    still_serves(s);
}

BOOST_AUTO_TEST_CASE(a_transfer_coding_other_than_chunked_is_400_and_closes) {
    HostileServer s;
    for (std::string te : {"identity", "gzip", "chunked, chunked", "gzip, chunked", "x-custom", ""}) {
        // Regression: "identity" was taken as "no body", and the bytes after the header as a second request.
        auto out = round_trip(
            s.port,
            "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " + te +
                "\r\n\r\nGET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n\r\n"
        );
        BOOST_TEST(out.starts_with("HTTP/1.1 400"), "'" << te << "': " << out.substr(0, 40));
        BOOST_TEST(count(out, "HTTP/1.1 ") == 1u, te);
        BOOST_TEST(out.find("BEGIN:VCALENDAR") == std::string::npos, te);
    }
    still_serves(s);
}

BOOST_AUTO_TEST_CASE(a_half_sent_second_request_is_cut_at_request_timeout) {
    HostileServer s(1s); // request_timeout 1 s, idle_timeout 60 s
    Client c(s.port);
    c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    auto first = c.read_to_end(1);
    BOOST_TEST(first.starts_with("HTTP/1.1 200"));
    // Idle past the first request's deadline, so the watchdog has moved on to the idle deadline.
    std::this_thread::sleep_for(1500ms);
    c.send("GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n");
    auto started = std::chrono::steady_clock::now();
    auto rest = c.read_to_end(); // until the server closes, or our own 10 s
    auto waited = std::chrono::steady_clock::now() - started;
    // Regression: the watchdog slept until the idle deadline, so the server closed after 60 s, not 1 s.
    BOOST_TEST(
        waited < 8s,
        "closed after " << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() << " ms"
    );
    BOOST_TEST(rest.find("BEGIN:VCALENDAR") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_slow_reader_gets_the_whole_large_body) {
    Config base = server_test_config();
    base.server.idle_timeout = 1s; // the longest a write may make no progress
    HostileServer s(2s, base);
    auto body = calendar_body(60000, "big");
    test::publish(s.store, 
        "later",
        body,
        60000,
        std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())
    );
    Client c(s.port);
    int small = 64 * 1024;
    ::setsockopt(c.socket().native_handle(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    c.send("GET /feeds/later.ics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    // About 128 KiB every 100 ms: several seconds for the body, never a 1 s pause.
    std::string got;
    for (;;) {
        auto part = c.read_to_end(128 * 1024);
        got += part;
        if (part.size() < 128 * 1024)
            break;
        std::this_thread::sleep_for(100ms);
    }
    // Regression: the whole response had one deadline (idle_timeout from its start), so it was cut.
    BOOST_TEST(got.size() > body.size());
    BOOST_TEST(got.ends_with("END:VCALENDAR\r\n"));
}

BOOST_AUTO_TEST_SUITE_END()
