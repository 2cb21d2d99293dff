// File: connect_pages.hpp
// The pages of the connect flow: a short message (a refused or cancelled sign-in, a disconnect done), and
// the person's own page of one connection with its Disconnect form. No script; the house stylesheet.
#pragma once

#include "connect/connection.hpp"

#include <chrono>
#include <string>
#include <string_view>

namespace icsbridge::connect {

/** @brief "Google Calendar" or "Outlook" (Microsoft 365 and outlook.com): as the page names the provider. */
std::string_view provider_label(std::string_view provider);

/** @brief A page with a heading, one paragraph and, when `href` is given, a link back. All escaped. */
std::string message_page(
    std::string_view heading, std::string_view text, std::string_view href = {}, std::string_view link = {}
);

/** @brief What the person's page shows. */
struct ConnectionPage {
    Connection connection;
    std::string feed_title;
    std::string csrf;   ///< the form's CSRF token
    std::string action; ///< the Disconnect form's URL: the page's own, key included
    std::chrono::sys_seconds now{};
};

/** @brief The status in words: "Setting up", "In sync", "Reconnect needed", "Stopped", "Trouble". */
std::string status_words(Connection const& c);

/** @brief The management page. */
std::string connection_page(ConnectionPage const& p);

} // namespace icsbridge::connect
