// File: log.cpp
// stderr logger and URL redaction.
#include <icsbridge/digest.hpp>
#include <icsbridge/log.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>

namespace icsbridge {

namespace {

char const* level_name(LogLevel l) {
    switch (l) {
    case LogLevel::debug:
        return "debug";
    case LogLevel::info:
        return "info";
    case LogLevel::warn:
        return "warn";
    case LogLevel::error:
        return "error";
    }
    return "?";
}

// Servers decode query names ("tok%65n" is "token" to the feed endpoint), so redaction compares decoded
// names.
std::string percent_decoded(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        int const hi = s[i] == '%' && i + 2 < s.size() ? hex_digit(s[i + 1]) : -1;
        int const lo = hi >= 0 ? hex_digit(s[i + 2]) : -1;
        if (lo >= 0) {
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

bool is_secret_param(std::string_view raw_name) {
    std::string const decoded = percent_decoded(raw_name);
    std::string_view const name = decoded;
    // code and state: a sign-in's answer at /connect/callback (the code is worth a token for minutes).
    static constexpr std::array<std::string_view, 9> names = {
        "api_key",
        "token",
        "access_token",
        "key",
        "client_secret",
        "apikey",
        "code",
        "state",
        "refresh_token"};
    for (auto n : names) {
        if (name.size() != n.size())
            continue;
        bool same = true;
        for (std::size_t i = 0; i < n.size(); ++i) {
            char c = name[i];
            if (c >= 'A' && c <= 'Z')
                c = static_cast<char>(c - 'A' + 'a');
            if (c != n[i]) {
                same = false;
                break;
            }
        }
        if (same)
            return true;
    }
    return false;
}

} // namespace

Logger stderr_logger(LogLevel min) {
    auto mtx = std::make_shared<std::mutex>();
    return Logger{
        min,
        [mtx](LogLevel lvl, std::string_view msg) {
            std::time_t t = std::time(nullptr);
            std::tm tm{};
            gmtime_r(&t, &tm);
            char stamp[32];
            std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
            std::string line;
            line.reserve(msg.size() + 40);
            line.append(stamp).append(" ").append(level_name(lvl)).append(" ").append(msg).append("\n");
            std::lock_guard lock(*mtx);
            std::fwrite(line.data(), 1, line.size(), stderr);
            std::fflush(stderr);
        }};
}

std::string redact_url(std::string_view s) {
    // A fragment is never sent by a real client or needed in a log, and its syntax is free-form (a token
    // can sit there without `&` or `=`): drop its contents. Split it off first, so a `?` inside it does
    // not start a query.
    std::string_view fragment;
    if (auto h = s.find('#'); h != std::string_view::npos) {
        fragment = s.substr(h);
        s = s.substr(0, h);
    }
    auto q = s.find('?');
    std::string out(s.substr(0, q == std::string_view::npos ? s.size() : q + 1));
    std::string_view rest = q == std::string_view::npos ? std::string_view() : s.substr(q + 1);
    // Every pair whose decoded name is a secret's, however often it repeats; a name without `=` carries
    // no value to hide.
    for (bool first = true; q != std::string_view::npos; first = false) {
        auto amp = rest.find('&');
        std::string_view part = rest.substr(0, amp);
        if (!first)
            out += '&';
        auto eq = part.find('=');
        std::string_view name = part.substr(0, eq);
        if (eq != std::string_view::npos && is_secret_param(name)) {
            out.append(name);
            out += "=***";
        } else {
            out.append(part);
        }
        if (amp == std::string_view::npos)
            break;
        rest = rest.substr(amp + 1);
    }
    if (!fragment.empty())
        out += fragment.size() > 1 ? "#***" : "#";
    return out;
}

std::string loggable(std::string_view s, std::size_t max_bytes) {
    std::string out(s.substr(0, max_bytes));
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == 0x7f)
            c = '?';
    return out;
}

} // namespace icsbridge
