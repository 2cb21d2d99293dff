// File: index_page.cpp
// index_page(): the page a person opens first. Plain HTML and one inline stylesheet, no script.
#include "server/index_page.hpp"

#include "server/pages.hpp"
#include "server/qr_svg.hpp"
#include "util/html_escape.hpp"
#include <icsbridge/dav.hpp>

#include <cctype>
#include <chrono>
#include <cstdio>

namespace icsbridge {

std::string_view const page_style =
    ":root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#fff;--card:#f6f8fa;--line:#d0d7de;"
    "--accent:#0969da;--on-accent:#fff}"
    // Dark text on the dark scheme's lighter accent: white on #4493f8 is 3.1:1, under WCAG's 4.5:1.
    "@media(prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--card:#161b22;"
    "--line:#30363d;--accent:#4493f8;--on-accent:#0d1117}}"
    "*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe "
    "UI',Roboto,sans-serif;"
    "color:var(--fg);background:var(--bg)}main{max-width:60rem;margin:0 auto;padding:1rem}"
    "h1{font-size:1.6rem;margin:.5rem 0 1rem}h2{font-size:1.25rem;margin:0 0 .25rem}"
    "a{color:var(--accent)}.muted{color:var(--muted)}"
    ".feed{display:flex;gap:1rem;flex-wrap:wrap;background:var(--card);border:1px solid var(--line);"
    "border-radius:12px;padding:1rem;margin:0 0 1rem}.feed .info{flex:1 1 18rem;min-width:0}"
    ".links{display:flex;flex-wrap:wrap;gap:.5rem;margin:.75rem 0 0;padding:0;list-style:none}"
    ".links a{display:inline-block;padding:.4rem .8rem;border:1px solid var(--line);border-radius:8px;"
    "text-decoration:none;background:var(--bg)}.links "
    "a.primary{background:var(--accent);color:var(--on-accent);"
    "border-color:var(--accent)}.url{font:13px ui-monospace,monospace;word-break:break-all}"
    ".qr{width:9rem;height:9rem;flex:0 0 auto;border-radius:6px}"
    ".ok{color:#1a7f37}.bad{color:#cf222e}.cancelled{text-decoration:line-through;color:var(--muted)}"
    "@media(max-width:30rem){.qr{width:100%;height:auto;max-width:14rem;margin:0 auto}}";

std::string webcal_url(std::string_view http_url) {
    auto colon = http_url.find("://");
    return colon == std::string_view::npos ? "webcal://" + std::string(http_url)
                                           : "webcal" + std::string(http_url.substr(colon));
}

namespace {

std::string percent_encode(std::string_view s) {
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
            out += static_cast<char>(c);
        } else {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        }
    }
    return out;
}

} // namespace

std::string google_add_url(std::string_view http_url) {
    std::string url(http_url);
    url += url.find('?') == std::string::npos ? "?for=google" : "&for=google";
    return "https://calendar.google.com/calendar/r?cid=" + percent_encode(webcal_url(url));
}

namespace {

/** "20 s ago", "3 min ago", "5 h ago", "2 days ago"; "just now" for a time not yet past (clock skew). */
std::string ago(sys_seconds then, sys_seconds now) {
    long long const s = (now - then).count();
    if (s <= 0)
        return "just now";
    if (s < 60)
        return std::to_string(s) + " s ago";
    if (s < 3600)
        return std::to_string(s / 60) + " min ago";
    if (s < 48LL * 3600)
        return std::to_string(s / 3600) + " h ago";
    return std::to_string(s / 86400) + " days ago";
}

std::string readable_time(sys_seconds t) {
    auto const day = std::chrono::floor<std::chrono::days>(t);
    std::chrono::year_month_day const ymd(day);
    std::chrono::hh_mm_ss const hms(t - day);
    char buf[40];
    std::snprintf(
        buf,
        sizeof buf,
        "%04d-%02u-%02u %02d:%02d UTC",
        static_cast<int>(ymd.year()),
        unsigned(ymd.month()),
        unsigned(ymd.day()),
        static_cast<int>(hms.hours().count()),
        static_cast<int>(hms.minutes().count())
    );
    return buf;
}

} // namespace

std::string
freshness(std::optional<sys_seconds> changed, std::optional<sys_seconds> checked, sys_seconds now) {
    std::string out;
    if (changed)
        out = "changed " + ago(*changed, now);
    if (checked)
        out += (out.empty() ? "checked " : ", checked ") + ago(*checked, now);
    return out;
}

namespace {

std::string feed_card(Config const& cfg, FeedConfig const& f, FeedStatus const* st, sys_seconds now) {
    std::string const title = f.title.empty() ? f.name : f.title;
    std::string const http = feed_url(cfg, f);
    std::string const webcal = webcal_url(http);
    std::string agenda = http;
    agenda.replace(agenda.size() - 4, 4, ".html"); // feed_url ends in ".ics"
    std::string out = "<section class=\"feed\"><div class=\"info\"><h2>" + html_escape(title) + "</h2>";
    if (!f.description.empty())
        out += "<p>" + html_escape(f.description) + "</p>";
    bool const fetched = st && st->snapshot;
    bool const healthy = fetched && !st->stale(now);
    out += "<p class=\"muted\">";
    out += fetched ? std::to_string(st->snapshot->items) + " items" : std::string("not fetched yet");
    // Relative, as the viewer reads it; the exact time (UTC) on hover.
    std::optional<sys_seconds> changed;
    if (fetched)
        changed = st->snapshot->last_modified;
    if (auto when = freshness(changed, st ? st->last_success : std::nullopt, now); !when.empty())
        out += " · <span title=\"fetched " +
               (st && st->last_success ? readable_time(*st->last_success) : std::string("never")) + "\">" +
               when + "</span>";
    out += healthy ? " · <span class=\"ok\">healthy</span>" : " · <span class=\"bad\">not healthy</span>";
    out += "</p><ul class=\"links\"><li><a class=\"primary webcal\" href=\"" + html_escape(webcal) +
           "\">Subscribe</a></li><li><a class=\"agenda\" href=\"" + html_escape(agenda) +
           "\">Agenda</a></li><li><a class=\"google\" href=\"" + html_escape(google_add_url(http)) +
           "\">Add to Google Calendar</a></li></ul>";
    out += "<p class=\"url\"><a href=\"" + html_escape(http) + "\">" + html_escape(http) + "</a></p>";
    // Not a link: a browser's GET of a collection shows nothing useful; a CalDAV app takes it as typed.
    if (cfg.dav.enabled)
        out += "<p class=\"url caldav\">CalDAV: " + html_escape(dav::address(cfg.server.public_url, f.name)) +
               "</p>";
    out += "</div>";
    out += qr_svg(http, html_escape("QR code of " + http));
    return out + "</section>\n";
}

} // namespace

std::string index_page(Config const& cfg, ServedFeeds const& store, sys_seconds now) {
    auto const statuses = store.status();
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                      "<title>icsbridge calendars</title><style>";
    out.append(page_style);
    out += "</style></head>\n<body><main>\n<h1>Calendars</h1>\n";
    bool any = false;
    for (auto const& f : cfg.feeds) {
        if (!f.is_public())
            continue;
        any = true;
        FeedStatus const* st = nullptr;
        for (auto const& s : statuses)
            if (s.name == f.name)
                st = &s;
        out += feed_card(cfg, f, st, now);
    }
    if (!any)
        out += "<p class=\"muted\">No public calendars here.</p>\n";
    out += "<h2>How to subscribe</h2>\n<ul>\n"
           "<li>Phone: scan the code, or tap Subscribe (Apple devices open their subscribe dialog).</li>\n"
           "<li>Google Calendar: tap Add to Google Calendar (a view Google takes at any size; Google "
           "refreshes every 8-24 hours).</li>\n"
           "<li>Apple Calendar: tap Subscribe, or File, New Calendar Subscription, and paste the link.</li>\n"
           "<li>Outlook: Add calendar, Subscribe from web; paste the calendar's address.</li>\n"
           "<li>Thunderbird: New Calendar, On the Network; paste the calendar's address.</li>\n";
    if (cfg.dav.enabled)
        out +=
            "<li>CalDAV apps (DAVx⁵, Thunderbird, GNOME/Evolution, Apple Calendar as a CalDAV account): the "
            "server " +
            html_escape(dav::address(cfg.server.public_url, "")) +
            " with any user name and password, or one calendar's CalDAV address; they fetch only what "
            "changed.</li>\n";
    out += "</ul>\n<p class=\"muted\">Add <code>?alarm=none</code>, <code>?days=30</code>, "
           "<code>?category=NAME</code> or <code>?detail=busy</code> to a link for your own view.</p>\n"
           "</main></body></html>\n";
    return out;
}

} // namespace icsbridge
