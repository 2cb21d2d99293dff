// File: body_stream.hpp
// A response body made a part at a time as the socket takes it (a multistatus of 10,000 calendar objects),
// so a response never holds all of its bytes at once.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace icsbridge {

/**
 * @brief The producer of a streamed body. The server asks for the next part only once the last one is
 * written, and sends the parts as HTTP/1.1 chunks (an HTTP/1.0 client: up to the close).
 */
class BodyStream {
  public:
    BodyStream() = default;
    virtual ~BodyStream() = default;
    BodyStream(BodyStream const&) = delete;
    BodyStream& operator=(BodyStream const&) = delete;
    BodyStream(BodyStream&&) = delete;
    BodyStream& operator=(BodyStream&&) = delete;

    /**
     * @brief Replaces `parts` with the body's next bytes, in order; none once the body is complete. The views
     * stay valid until the next call (or the stream's end).
     */
    void next(std::vector<std::string_view>& parts) {
        parts.clear();
        if (done_)
            return;
        done_ = !produce(parts);
        for (auto p : parts)
            produced_ += p.size();
    }
    /** @brief Whether the parts last given were the body's last (the chunked end goes out with them). */
    bool done() const { return done_; }
    /** @brief The bytes handed out so far (for the access log). */
    std::size_t produced() const { return produced_; }

  protected:
    /** @brief Appends the next bytes to `parts`; false when they are the last. */
    virtual bool produce(std::vector<std::string_view>& parts) = 0;

  private:
    bool done_ = false;
    std::size_t produced_ = 0;
};

} // namespace icsbridge
