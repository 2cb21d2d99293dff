// File: request_fuzz.cpp
// Fuzz target: the server's request core (target parsing, routing, tokens, conditional headers).
// Input lines: method, target, If-None-Match, If-Modified-Since, Accept-Encoding.
#include <icsbridge/server.hpp>
#include <icsbridge/store.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace {

struct World {
    icsbridge::Config cfg;
    std::unique_ptr<icsbridge::FeedStore> store;

    World() {
        using namespace icsbridge;
        cfg.server.public_url = "http://127.0.0.1:8080";
        cfg.storage.dir = "/nonexistent-fuzz-dir";
        SourceConfig src;
        src.name = "eb";
        src.base_url = "http://127.0.0.1:1";
        cfg.sources.emplace("eb", src);
        FeedConfig pub;
        pub.name = "public";
        pub.source = "eb";
        pub.select = "organizer";
        FeedConfig secret = pub;
        secret.name = "secret";
        secret.token = "s3cret-token";
        FeedConfig multi = pub;
        multi.name = "multi";
        multi.tokens = {{"alice", "alice-token"}, {"phone", "phone-token"}};
        FeedConfig never = pub;
        never.name = "never";
        cfg.feeds = {pub, secret, multi, never};
        store = std::make_unique<FeedStore>(cfg);
        auto now = sys_seconds(std::chrono::seconds(1'800'000'000));
        std::string body = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n";
        store->publish("public", body, 0, now);
        store->publish("secret", body, 0, now);
        store->publish("multi", body, 0, now);
    }
};

std::string_view next_line(std::string_view& in) {
    auto nl = in.find('\n');
    std::string_view line = in.substr(0, nl);
    in = nl == std::string_view::npos ? std::string_view{} : in.substr(nl + 1);
    return line;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
    using namespace icsbridge;
    static World world; // built once: the fuzzer varies requests, not the configuration
    std::string_view in(reinterpret_cast<char const*>(data), size);
    ServerRequest req;
    req.method = next_line(in);
    req.target = next_line(in);
    if (auto inm = next_line(in); !inm.empty())
        req.if_none_match = inm;
    if (auto ims = next_line(in); !ims.empty())
        req.if_modified_since = ims;
    req.accept_encoding = next_line(in);
    auto res = handle_request(req, *world.store, world.cfg, sys_seconds(std::chrono::seconds(1'800'000'100)));
    // A secret must never come back in a page, header or error text.
    for (std::string_view secret : {"s3cret-token", "alice-token", "phone-token"}) {
        if (res.body().find(secret) != std::string_view::npos)
            __builtin_trap();
        for (auto const& h : res.headers)
            if (h.second.find(secret) != std::string::npos)
                __builtin_trap();
    }
    if (res.status < 200 || res.status > 599)
        __builtin_trap();
    return 0;
}
