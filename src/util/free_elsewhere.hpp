// File: free_elsewhere.hpp
// Large values (a 40,000-event list, the ids it saw, a feed's render cache) freed on a background thread
// instead of the thread that lets go of them. In `serve` that is the control thread, where freeing such a
// list took 40-130 ms (free() merging chunks) and held up webhooks' patches and reloads (issue 39).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>

#include <exception>
#include <optional>
#include <utility>

namespace icsbridge {

/**
 * @brief Destroys `value` on `ex` (a background thread, which must not need anything `value` refers to), or
 * here without `ex`, or where handing it over fails (out of memory).
 */
template <class T>
void free_elsewhere(std::optional<boost::asio::any_io_executor> const& ex, T value) {
    if (!ex)
        return;
    try {
        boost::asio::post(*ex, [v = std::move(value)]() mutable { T const gone = std::move(v); });
    } catch (std::exception const&) {
        // The value, moved into the handler or not, is freed here as the handler goes.
    }
}

/**
 * @brief A T that is freed with free_elsewhere() when this goes: also when a coroutine that holds it in its
 * frame is abandoned (a reload that stops a refresh).
 */
template <class T>
class FreedElsewhere {
  public:
    explicit FreedElsewhere(std::optional<boost::asio::any_io_executor> ex)
        : ex_(std::move(ex)) {}
    ~FreedElsewhere() { free_elsewhere(ex_, std::move(value_)); }
    FreedElsewhere(FreedElsewhere const&) = delete;
    FreedElsewhere& operator=(FreedElsewhere const&) = delete;

    T& operator*() { return value_; }
    T* operator->() { return &value_; }

  private:
    std::optional<boost::asio::any_io_executor> ex_;
    T value_{};
};

} // namespace icsbridge
