// File: tls_contexts_test.cpp
// TlsContexts: one TLS context per ca_file however many clients ask (a thousand subscribers' connections
// load the system trust store once), a different ca_file its own, and a failure not kept.
#include <icsbridge/net.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>

#include <filesystem>

using namespace icsbridge;

BOOST_AUTO_TEST_SUITE(tls_contexts_test)

BOOST_AUTO_TEST_CASE(one_context_per_ca_file) {
    // Setup
    TlsContexts contexts;
    // Run
    auto a = contexts.get("target a", "");
    auto b = contexts.get("target b", "");
    // Check
    BOOST_REQUIRE(a);
    BOOST_REQUIRE(b);
    BOOST_TEST(a->get() == b->get());
    BOOST_TEST(contexts.made() == 1u);
}

BOOST_AUTO_TEST_CASE(a_failure_is_not_kept) {
    // Setup: a ca_file that does not exist yet, then does
    auto const dir = std::filesystem::temp_directory_path() / "icsbridge-tls-contexts-test";
    std::filesystem::create_directories(dir);
    auto const pem = (dir / "ca.pem").string();
    std::filesystem::remove(pem);
    TlsContexts contexts;
    // Run
    auto missing = contexts.get("target c", pem);
    std::filesystem::copy_file("/etc/ssl/certs/ca-certificates.crt", pem);
    auto present = contexts.get("target c", pem);
    auto system = contexts.get("target d", "");
    // Check
    BOOST_TEST(!missing);
    BOOST_TEST(missing.error().message.find("target c") != std::string::npos);
    BOOST_REQUIRE(present);
    BOOST_REQUIRE(system);
    BOOST_TEST(present->get() != system->get());
    BOOST_TEST(contexts.made() == 2u);
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(a_client_takes_the_shared_context) {
    // Setup
    auto contexts = std::make_shared<TlsContexts>();
    boost::asio::io_context ioc;
    HttpClient client(ioc.get_executor(), ClientOptions{});
    // Run
    client.share_tls(contexts);
    // Check
    BOOST_TEST(client.options().tls_contexts == contexts);
}

BOOST_AUTO_TEST_SUITE_END()
