// File: fixtures.hpp
// Test helpers shared by unit and integration tests: fixture files, a capturing logger, paths.
#pragma once

#include <icsbridge/log.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::test {

/** @brief Absolute path of tests/fixtures/REL. */
std::string fixture_path(std::string const& rel);

/** @brief Contents of tests/fixtures/REL; fails the test (throws) if unreadable. */
std::string read_fixture(std::string const& rel);

/** @brief `gz` decoded by the client's own gunzip, without a size limit; fails the test if it is not gzip. */
std::string gunzipped(std::string_view gz);

/** @brief Absolute path of a built binary, e.g. binary_path("icsbridge"). */
std::string binary_path(std::string const& name);

/** @brief A fresh, empty temporary directory, removed when the object dies. */
class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(TempDir const&) = delete;
    TempDir& operator=(TempDir const&) = delete;
    std::string const& path() const { return path_; }
    std::string file(std::string const& name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

/** @brief A logger that keeps every line, so tests can assert on logs (and on the absence of secrets). */
class StringLogger {
  public:
    StringLogger();
    Logger logger(LogLevel min = LogLevel::debug) const;
    std::vector<std::string> lines() const;
    std::string joined() const;

  private:
    struct State {
        std::mutex mtx;
        std::vector<std::string> lines;
    };
    std::shared_ptr<State> state_;
};

} // namespace icsbridge::test
