// File: loopback.hpp
// The one tiny HTTP server of `icsbridge connect`: 127.0.0.1 on a free port, the redirect_uri of an
// installed app (RFC 8252 §7.3). It answers whatever is not the sign-in's answer at once and keeps the
// connection of the answer open until the code is traded, so the browser's page tells how that went.
#pragma once

#include "oauth/redirect.hpp"
#include <icsbridge/error.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace icsbridge::oauth {

class LoopbackRedirect {
  public:
    /** @brief Listens on 127.0.0.1:0; errc::io_error when no socket can be bound. */
    static Result<std::unique_ptr<LoopbackRedirect>> open(boost::asio::any_io_executor ex);
    ~LoopbackRedirect();
    LoopbackRedirect(LoopbackRedirect const&) = delete;
    LoopbackRedirect& operator=(LoopbackRedirect const&) = delete;

    std::uint16_t port() const;
    /** @brief "http://127.0.0.1:PORT/": the redirect_uri of the authorization and the token requests. */
    std::string redirect_uri() const;

    /**
     * @brief Serves one connection at a time (each request read within 10 s) until a request carries
     * `state` with a code or an error: that verdict is returned and its connection held for answer().
     * Every other request is answered at once with a small page and reported to `on_ignored`. Returns a
     * verdict of kind `closed` once close() was called. Never throws for network errors.
     */
    boost::asio::awaitable<RedirectVerdict>
    wait(std::string state, std::function<void(RedirectVerdict const&)> on_ignored);

    /** @brief Sends the page on the held connection and closes it; nothing when none is held. */
    boost::asio::awaitable<void> answer(unsigned status, std::string html);

    /** @brief Stops listening and drops any connection: a pending wait() returns `closed`. */
    void close();

  private:
    struct Impl;
    explicit LoopbackRedirect(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace icsbridge::oauth
