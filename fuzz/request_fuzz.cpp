// File: request_fuzz.cpp
// Fuzz target: the server's request core (target parsing, routing, tokens, conditional headers, the admin
// credential) and the access log's redaction of the same target.
// Input lines: method, target, If-None-Match, If-Modified-Since, Accept-Encoding, Authorization.
#include "views/view_cache.hpp"
#include <icsbridge/log.hpp>
#include <icsbridge/publish.hpp>
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
    std::unique_ptr<icsbridge::ServedFeeds> store;
    icsbridge::ViewCache views;
    icsbridge::Metrics metrics;

    World() {
        using namespace icsbridge;
        cfg.server.public_url = "http://127.0.0.1:8080";
        cfg.server.admin_token = "adm1n-token";
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
        store = std::make_unique<ServedFeeds>(cfg);
        auto now = sys_seconds(std::chrono::seconds(1'800'000'000));
        std::string body = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n";
        // Published as serve does: through the Publisher (nothing kept).
        Publisher publisher(*store, nullptr, null_logger(), cfg.server.gzip);
        for (auto const* name : {"public", "secret", "multi"})
            publisher.publish(name, body, 0, Origin::fetched, now);
    }
};

std::string_view next_line(std::string_view& in) {
    auto nl = in.find('\n');
    std::string_view line = in.substr(0, nl);
    in = nl == std::string_view::npos ? std::string_view{} : in.substr(nl + 1);
    return line;
}

int hex(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    c = static_cast<char>(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/** @brief A query name as the server compares it: percent-decoded, lower-case. */
std::string decoded_lower(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

/** @brief What the access log shows of `target`: no fragment contents, no value of a `token` parameter. */
void check_redaction(std::string_view target) {
    std::string const shown = icsbridge::redact_url(target);
    std::string_view rest = shown;
    if (auto h = rest.find('#'); h != std::string_view::npos) {
        if (rest.substr(h) != "#" && rest.substr(h) != "#***")
            __builtin_trap();
        rest = rest.substr(0, h);
    }
    auto q = rest.find('?');
    if (q == std::string_view::npos)
        return;
    rest = rest.substr(q + 1);
    for (;;) {
        auto amp = rest.find('&');
        auto part = rest.substr(0, amp);
        auto eq = part.find('=');
        if (eq != std::string_view::npos && decoded_lower(part.substr(0, eq)) == "token" &&
            part.substr(eq + 1) != "***")
            __builtin_trap();
        if (amp == std::string_view::npos)
            break;
        rest = rest.substr(amp + 1);
    }
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
    req.authorization = next_line(in);
    check_redaction(req.target);
    auto res = handle_request(
        req,
        *world.store,
        world.views,
        world.metrics,
        world.cfg,
        sys_seconds(std::chrono::seconds(1'800'000'100))
    );
    // A secret must never come back in a page, header or error text.
    for (std::string_view secret : {"s3cret-token", "alice-token", "phone-token", "adm1n-token"}) {
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
