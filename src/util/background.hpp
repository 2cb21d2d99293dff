// File: background.hpp
// Threads that do long work in the background (a list's page parses, its prebuilt blocks, its final render)
// run at a lower priority than the threads that answer: on a machine with few cores, the control thread
// (refreshers, webhooks, reloads) and the HTTP threads then win the CPU whenever they have something to do.
#pragma once

#include <boost/asio/thread_pool.hpp>

#include <memory>

namespace icsbridge {

/** @brief How much nicer (`nice` value) than the thread that starts them the background threads run. */
inline constexpr int background_nice = 10;

/**
 * @brief Lowers the calling thread's priority by background_nice (capped at the lowest, 19). Linux only;
 * elsewhere, or where the kernel refuses, it does nothing: a background thread at the normal priority is
 * slower to give way, never wrong.
 */
void lower_this_thread();

/** @brief The calling thread's id as the kernel knows it (Linux: as in /proc/self/task), or 0 elsewhere. */
long this_thread_id();

/** @brief The calling thread's nice value, or 0 where there is none to read. */
int this_thread_nice();

/**
 * @brief A pool of one thread, lowered (lower_this_thread) before it runs any work posted to it. Returns at
 * once: the lowering is the first job in the thread's queue. One thread only: with more, nothing would say
 * which thread takes the lowering job, short of making each wait for the others (and a pool stopped before
 * they all started would then never join).
 */
std::unique_ptr<boost::asio::thread_pool> background_pool();

} // namespace icsbridge
