// File: hook_sender.hpp
// The events service's side of a webhook: POST the JSON body it sends to a subscriber's endpoint URL.
#pragma once

#include <chrono>
#include <string>

namespace icsbridge::test {

/** @brief The body the events service POSTs for `action` on event `event_id` of the API at `api_base`. */
std::string hook_body(std::string const& api_base, std::string const& action, std::string const& event_id);

/**
 * @brief POSTs `body` to `url` (http://127.0.0.1:PORT/…) as the events service does; returns the status,
 * or 0 if no answer came within `timeout`.
 */
unsigned send_hook(std::string const& url, std::string const& body, std::chrono::milliseconds timeout);

} // namespace icsbridge::test
