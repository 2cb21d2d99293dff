// File: webpush_tool.cpp
// icsbridge-webpush-tool: one Web Push message made by icsbridge's webpush room, for the tests that send it
// to tests/support/webpush_receiver.py (a push service that is not ours). No network: it prints
// {"body": base64url, "authorization": "vapid t=…, k=…", "vapid_public_key": base64url} for the plaintext
// read from stdin, signed with the VAPID key kept under --key-dir (made there on first use).
#include "util/base64url.hpp"
#include <icsbridge/webpush.hpp>

#include <boost/json.hpp>

#include <chrono>
#include <iostream>
#include <iterator>
#include <map>
#include <string>

namespace {

constexpr char const* usage = "usage: icsbridge-webpush-tool --p256dh B64 --auth B64 --push-resource URL "
                              "--subject URI --key-dir DIR < PLAINTEXT\n";

int fail(std::string const& msg) {
    std::cerr << "icsbridge-webpush-tool: " << msg << "\n" << usage;
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    using namespace icsbridge;
    std::map<std::string, std::string> opt;
    for (int i = 1; i + 1 < argc; i += 2)
        opt[argv[i]] = argv[i + 1];
    for (char const* name : {"--p256dh", "--auth", "--push-resource", "--subject", "--key-dir"})
        if (!opt.contains(name))
            return fail(std::string("missing ") + name);
    auto p256dh = from_base64url(opt["--p256dh"]);
    auto auth = from_base64url(opt["--auth"]);
    if (!p256dh || !auth)
        return fail("--p256dh and --auth are base64url");
    std::string const plaintext(std::istreambuf_iterator<char>(std::cin), {});
    auto key = webpush::load_or_make_vapid_key(opt["--key-dir"]);
    if (!key)
        return fail(key.error().message);
    auto body = webpush::encrypt(plaintext, webpush::SubscriptionKeys{*p256dh, *auth});
    if (!body)
        return fail(body.error().message);
    auto const now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    auto authorization = webpush::vapid_authorization(*key, opt["--push-resource"], opt["--subject"], now);
    if (!authorization)
        return fail(authorization.error().message);
    std::cout << boost::json::serialize(boost::json::object{
                     {"body", base64url(*body)},
                     {"authorization", *authorization},
                     {"vapid_public_key", key->public_key_base64url()}})
              << "\n";
    return 0;
}
