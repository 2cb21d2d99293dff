// File: background.cpp
// lower_this_thread() with setpriority on the thread's own id (a Linux thread has its own nice value), and
// the one-thread pool that does that first.
#include "util/background.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <cerrno>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace icsbridge {

long this_thread_id() {
#if defined(__linux__)
    return static_cast<long>(gettid());
#else
    return 0;
#endif
}

int this_thread_nice() {
#if defined(__linux__)
    // -1 is also a valid nice value: only errno tells an error apart.
    errno = 0;
    int const nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
    return errno == 0 ? nice : 0;
#else
    return 0;
#endif
}

void lower_this_thread() {
#if defined(__linux__)
    // Raising the nice value needs no privilege; a refusal (a sandbox's seccomp, say) leaves it as it was.
    int const lowered = std::min(19, this_thread_nice() + background_nice);
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), lowered);
#endif
}

std::unique_ptr<boost::asio::thread_pool> background_pool() {
    auto pool = std::make_unique<boost::asio::thread_pool>(1);
    // Nobody waits for the thread to start: the caller (a reload, on the control thread) goes on meanwhile.
    boost::asio::post(*pool, [] { lower_this_thread(); });
    return pool;
}

} // namespace icsbridge
