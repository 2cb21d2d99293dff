// File: fixtures.cpp
// Fixture files, temp directories and the capturing logger.
#include "support/fixtures.hpp"

#include "net/gzip_decode.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

namespace icsbridge::test {

std::string fixture_path(std::string const& rel) {
    return std::string(ICSBRIDGE_FIXTURES_DIR) + "/" + rel;
}

std::string read_fixture(std::string const& rel) {
    std::ifstream in(fixture_path(rel), std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read fixture " + rel);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string gunzipped(std::string_view gz) {
    auto r = net_detail::gunzip(gz, std::numeric_limits<std::size_t>::max());
    BOOST_TEST_REQUIRE((r.status == net_detail::GunzipStatus::ok), r.detail);
    return std::move(r.data);
}

std::string binary_path(std::string const& name) {
    return std::string(ICSBRIDGE_BINARY_DIR) + "/" + name;
}

TempDir::TempDir() {
    std::random_device rd;
    auto base = std::filesystem::temp_directory_path();
    for (;;) {
        auto p = base / ("icsbridge-test-" + std::to_string(rd()));
        std::error_code ec;
        if (std::filesystem::create_directory(p, ec)) {
            path_ = p.string();
            return;
        }
        if (ec)
            throw std::runtime_error("cannot create temp dir: " + ec.message());
    }
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

StringLogger::StringLogger()
    : state_(std::make_shared<State>()) {}

Logger StringLogger::logger(LogLevel min) const {
    auto st = state_;
    return Logger{min, [st](LogLevel, std::string_view msg) {
                      std::lock_guard lock(st->mtx);
                      st->lines.emplace_back(msg);
                  }};
}

std::vector<std::string> StringLogger::lines() const {
    std::lock_guard lock(state_->mtx);
    return state_->lines;
}

std::string StringLogger::joined() const {
    std::string out;
    for (auto const& l : lines())
        out.append(l).append("\n");
    return out;
}

} // namespace icsbridge::test
