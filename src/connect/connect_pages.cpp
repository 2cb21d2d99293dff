// File: connect_pages.cpp
// HTML of the connect flow's pages, every value escaped (util/html_escape.hpp), the index's stylesheet.
#include "connect/connect_pages.hpp"

#include "connect/connections.hpp"
#include "server/index_page.hpp"
#include "util/html_escape.hpp"

namespace icsbridge::connect {

namespace {

constexpr std::string_view extra_style =
    ".card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1rem;margin:0 0 "
    "1rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0}dt{color:var("
    "--muted)}dd{margin:0;overflow-wrap:anywhere}button{font:inherit;padding:.55rem 1rem;border-radius:8px;"
    "border:1px solid #cf222e;background:#cf222e;color:#fff;cursor:pointer}label{display:block;margin:.75rem "
    "0}@media(max-width:30rem){dl{grid-template-columns:1fr}dt{margin-top:.5rem}}";

std::string head(std::string_view title) {
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                      "<meta name=\"referrer\" content=\"same-origin\"><title>" +
                      html_escape(title) + "</title><style>";
    out.append(page_style);
    out.append(extra_style);
    return out + "</style></head>\n<body><main>\n";
}

std::string when(std::optional<std::chrono::sys_seconds> t, std::chrono::sys_seconds now) {
    if (!t)
        return "not yet";
    long long const ago = (now - *t).count();
    constexpr long long minute = 60, hour = 3600, day = 86400;
    if (ago < 90)
        return std::to_string(std::max<long long>(ago, 0)) + " s ago";
    if (ago < 90 * minute)
        return std::to_string(ago / minute) + " min ago";
    if (ago < 36 * hour)
        return std::to_string(ago / hour) + " h ago";
    return std::to_string(ago / day) + " days ago";
}

} // namespace

std::string_view provider_label(std::string_view provider) {
    return provider == "google" ? "Google Calendar" : "Outlook";
}

std::string
message_page(std::string_view heading, std::string_view text, std::string_view href, std::string_view link) {
    std::string out =
        head(heading) + "<h1>" + html_escape(heading) + "</h1>\n<p>" + html_escape(text) + "</p>\n";
    if (!href.empty())
        out += "<p><a href=\"" + html_escape(href) + "\">" + html_escape(link) + "</a></p>\n";
    return out + "</main></body></html>\n";
}

std::string status_words(Connection const& c) {
    if (c.stopped)
        return c.last_error.starts_with(reconnect_needed) ? "Reconnect needed" : "Stopped";
    if (!c.last_error.empty() && (!c.last_success || (c.last_failure && *c.last_failure >= *c.last_success)))
        return c.last_error.starts_with(reconnect_needed) ? "Reconnect needed" : "Trouble";
    return c.last_success ? "In sync" : "Setting up";
}

std::string connection_page(ConnectionPage const& p) {
    auto const& c = p.connection;
    auto const label = provider_label(c.provider);
    auto const status = status_words(c);
    std::string out = head("Keeping " + p.feed_title + " in sync");
    out += "<h1>" + html_escape(p.feed_title) + " in your " + std::string(label) + "</h1>\n";
    out += "<div class=\"card\"><dl>\n<dt>Status</dt><dd id=\"status\" class=\"" +
           std::string(
               status == "In sync"      ? "ok"
               : status == "Setting up" ? "muted"
                                        : "bad"
           ) +
           "\">" + status + "</dd>\n<dt>Calendar</dt><dd>" + html_escape(c.calendar) + " in your " +
           std::string(label) + "</dd>\n<dt>Feed</dt><dd>" + html_escape(c.feed) +
           (c.view.empty() ? std::string() : " (" + html_escape(c.view) + ")") +
           "</dd>\n<dt>Last update</dt><dd id=\"last-push\">" + when(c.last_success, p.now) +
           "</dd>\n<dt>Events</dt><dd id=\"items\">" + std::to_string(c.items) + "</dd>\n";
    if (!c.last_error.empty())
        out += "<dt>Problem</dt><dd id=\"error\">" + html_escape(c.last_error) + "</dd>\n";
    // A stopped connection promises nothing: the calendar keeps what it has, and the problem says why.
    out += std::string("</dl></div>\n<p class=\"muted\">") +
           (c.stopped ? "Updates to this calendar are stopped; it keeps the events it has. "
                      : "Changes to the feed reach this calendar within seconds. ") +
           "Keep this page's address: it is the only way to manage the connection.</p>\n";
    out += "<form class=\"card\" method=\"post\" action=\"" + html_escape(p.action) +
           "\"><h2>Disconnect</h2><p>Stops the updates and withdraws icsbridge's access to your " +
           std::string(label) + ".</p><input type=\"hidden\" name=\"csrf\" value=\"" + html_escape(p.csrf) +
           "\"><label><input type=\"checkbox\" id=\"delete_calendar\" name=\"delete_calendar\" value=\"1\"> "
           "Also delete the calendar \"" +
           html_escape(c.calendar) +
           "\" it made</label><button id=\"disconnect\" type=\"submit\">Disconnect</button></form>\n";
    return out + "</main></body></html>\n";
}

} // namespace icsbridge::connect
