// File: lookup.cpp
// lookup(): getaddrinfo on a detached thread per name, its answer read by a coroutine that polls a flag
// (1 ms doubling to 50 ms): the thread never touches the io_context, so it may outlive the context and
// the caller alike (a shutdown does not wait for a DNS server that does not answer).
#include "net/lookup.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <system_error>
#include <thread>

namespace icsbridge::net_detail {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

/** One getaddrinfo call's answer, shared by its thread and its waiter: whichever lets go last frees it. */
struct Answer {
    Answer() = default;
    Answer(Answer const&) = delete;
    Answer& operator=(Answer const&) = delete;
    ~Answer() {
        if (list)
            ::freeaddrinfo(list);
    }
    std::atomic<bool> done{false};
    int rc = 0;
    int sys_errno = 0;
    addrinfo* list = nullptr;
};

void ask(Answer& a, std::string const& host, std::string const& port, int flags) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    hints.ai_flags = AI_ADDRCONFIG | flags;
    a.rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &a.list);
    a.sys_errno = errno;
}

Lookup found(Answer& a, std::string const& host, std::string const& port) {
    Lookup out;
    if (a.rc == 0)
        out.endpoints = tcp::resolver::results_type::create(a.list, host, port);
    else if (a.rc == EAI_SYSTEM)
        out.error = std::strerror(a.sys_errno);
    else
        out.error = ::gai_strerror(a.rc);
    return out;
}

} // namespace

net::awaitable<Lookup>
lookup(std::string host, std::string port, milliseconds limit, std::shared_ptr<NameLookups> lookups) {
    auto answer = std::make_shared<Answer>();
    // An address needs no DNS: converted here, on the caller's thread.
    ask(*answer, host, port, AI_NUMERICHOST);
    if (answer->rc != EAI_NONAME)
        co_return found(*answer, host, port);
    answer = std::make_shared<Answer>();
    if (!lookups->try_start())
        co_return Lookup{false, "too many name lookups waiting for the DNS server", {}};
    try {
        std::thread([answer, host, port, lookups] {
            ask(*answer, host, port, 0);
            // Counted out before the answer shows: a caller that saw it may start the next lookup at once.
            lookups->finished();
            answer->done.store(true, std::memory_order_release);
        }).detach();
    } catch (std::system_error const& e) {
        lookups->finished();
        co_return Lookup{false, std::string("cannot start a name lookup: ") + e.what(), {}};
    }
    auto const deadline = steady_clock::now() + limit;
    net::steady_timer timer(co_await net::this_coro::executor);
    milliseconds step{1};
    while (!answer->done.load(std::memory_order_acquire)) {
        auto const now = steady_clock::now();
        if (now >= deadline)
            co_return Lookup{true, {}, {}};
        timer.expires_after(std::min<steady_clock::duration>(step, deadline - now));
        auto [ec] = co_await timer.async_wait(net::as_tuple(net::use_awaitable));
        if (ec) // cancelled: the caller's deadline or shutdown
            co_return Lookup{true, {}, {}};
        step = std::min(step * 2, milliseconds(50));
    }
    co_return found(*answer, host, port);
}

} // namespace icsbridge::net_detail
