// File: agenda_page.cpp
// agenda_page(): coming items -> days in the page's zone -> HTML. Zone arithmetic goes through libical's
// system zones (the ones the calendar itself was written with), by src/ical's one door (ical/timezones.hpp).
#include "server/agenda_page.hpp"

#include "ical/timezones.hpp"
#include "server/index_page.hpp"
#include "server/pages.hpp"
#include "util/html_escape.hpp"

#include <libical/ical.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

namespace icsbridge {

namespace {

namespace chr = std::chrono;

/** A zone of the page or of an item (empty: UTC), through the tree's one door to libical's zones. */
icaltimezone* find_zone(std::string const& name) {
    return ical::builtin_zone(name.empty() ? std::string("UTC") : name);
}

struct Row {
    long long key = 0; ///< sort key: wall seconds in the page's zone
    std::string when;  ///< "18:30–21:00", "all day", "due"
    views::IndexedItem const* item = nullptr;
};

std::string hhmm(long long wall) {
    long long const s = ((wall % 86400) + 86400) % 86400;
    char buf[8];
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", s / 3600, s % 3600 / 60);
    return buf;
}

std::string day_heading(long long wall) {
    static char const* const days[] =
        {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
    static char const* const months[] = {
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December"};
    chr::sys_days const d{chr::days(wall >= 0 ? wall / 86400 : (wall - 86399) / 86400)};
    chr::year_month_day const ymd(d);
    return std::string(days[chr::weekday(d).c_encoding()]) + ", " + std::to_string(unsigned(ymd.day())) +
           " " + months[unsigned(ymd.month()) - 1] + " " + std::to_string(static_cast<int>(ymd.year()));
}

/** The zone most items start in: the calendar's own zone for an agenda that did not ask for one. */
std::string usual_zone(views::FeedIndex const& index) {
    std::map<std::string_view, int> count;
    for (auto const& it : index.items)
        if (!it.start_tzid.empty())
            ++count[it.start_tzid];
    auto best = std::max_element(count.begin(), count.end(), [](auto const& a, auto const& b) {
        return a.second < b.second;
    });
    return best == count.end() ? std::string("UTC") : std::string(best->first);
}

void append_item(std::string& out, Row const& r) {
    auto const& it = *r.item;
    std::string const title = views::unescape_text(it.summary_value);
    std::string const url = views::unescape_text(it.url_value);
    std::string const place = views::unescape_text(it.location_value);
    out += it.cancelled ? "<li class=\"cancelled\">" : "<li>";
    out += "<span class=\"when\">" + html_escape(r.when) + "</span> ";
    // Only web links become links: a calendar may carry any URI scheme.
    bool const web = url.starts_with("https://") || url.starts_with("http://");
    out += web ? "<a class=\"title\" href=\"" + html_escape(url) + "\">" + html_escape(title) + "</a>"
               : "<span class=\"title\">" + html_escape(title) + "</span>";
    if (it.cancelled)
        out += " <span class=\"muted\">(cancelled)</span>";
    if (!place.empty())
        out += "<br><span class=\"muted\">" + html_escape(place) + "</span>";
    out += "</li>\n";
}

/**
 * @brief An item's row, unless it is over: a to-do on its due date, an all-day event from today on, a timed
 * event at its start in the page's zone (`shown`) while it has not ended.
 */
std::optional<Row>
coming_row(views::IndexedItem const& it, icaltimezone* shown, long long now_s, long long today) {
    if (!it.start)
        return std::nullopt;
    Row r{0, {}, &it};
    if (!it.is_event) {
        // A to-do is listed on its due date (the index keeps DUE as the end of that day).
        long long const due = it.end ? *it.end - 86400 : *it.start;
        if (due < today)
            return std::nullopt;
        r.key = due;
        r.when = "due";
    } else if (it.all_day) {
        long long const end = it.end ? *it.end : *it.start + 86400;
        if (end <= today)
            return std::nullopt;
        r.key = std::max(*it.start, today);
        r.when = "all day";
    } else {
        icaltimezone* z = find_zone(it.start_tzid);
        icaltimezone* ze = find_zone(it.end_tzid.empty() ? it.start_tzid : it.end_tzid);
        long long const start = ical::wall_to_utc(*it.start, z ? z : icaltimezone_get_utc_timezone());
        long long const end =
            it.end ? ical::wall_to_utc(*it.end, ze ? ze : icaltimezone_get_utc_timezone()) : start;
        if (std::max(start, end) < now_s)
            return std::nullopt;
        r.key = ical::utc_to_wall(start, shown);
        r.when = hhmm(r.key) + (end > start ? "–" + hhmm(ical::utc_to_wall(end, shown)) : std::string());
    }
    return r;
}

/**
 * @brief One row per thing a person sees on a day: `jobs_as = "both"` writes each job post twice (a VTODO
 * due that day and an all-day VEVENT on it), which read as the same line twice. The first stays (the
 * to-do's "due", as rendered first).
 */
void drop_repeats(std::vector<Row>& rows) {
    std::set<std::tuple<long long, std::string_view, std::string_view, std::string_view>> seen;
    std::erase_if(rows, [&](Row const& r) {
        long long const day = (r.key >= 0 ? r.key : r.key - 86399) / 86400;
        auto const& it = *r.item;
        return !seen.emplace(day, it.summary_value, it.url_value, it.location_value).second;
    });
}

/** @brief The coming items in the order shown, at most `limit`; fails on a zone name we cannot use. */
Result<std::vector<Row>>
coming_rows(views::FeedIndex const& index, std::string const& tz, std::size_t limit, chr::sys_seconds now) {
    std::vector<Row> rows;
    icaltimezone* shown = find_zone(tz);
    if (!shown)
        return fail(errc::usage, "invalid tz: expected a time zone name like Europe/Berlin");
    long long const now_s = now.time_since_epoch().count();
    long long const today = ical::utc_to_wall(now_s, shown) / 86400 * 86400;
    for (auto const& it : index.items)
        if (auto r = coming_row(it, shown, now_s, today))
            rows.push_back(std::move(*r));
    std::stable_sort(rows.begin(), rows.end(), [](Row const& a, Row const& b) { return a.key < b.key; });
    drop_repeats(rows);
    if (rows.size() > limit)
        rows.resize(limit);
    return rows;
}

/** @brief "http:// address (.ics)": a link's label names the scheme its URL really has. */
std::string address_label(std::string_view url) {
    auto const colon = url.find("://");
    return (colon == std::string_view::npos ? std::string() : std::string(url.substr(0, colon + 3))) +
           " address (.ics)";
}

/** @brief One way to add the feed: a button (or, without `href`, a label), what it does, an address. */
struct Way {
    std::string id{}, href{}, label{}, note{}, address{}; // {}: a Way names only what it has
    bool primary = false;
};

void append_way(std::string& out, Way const& w) {
    out += "<p class=\"way\">";
    if (!w.href.empty())
        out += std::string("<a class=\"button") + (w.primary ? " primary" : "") + "\" id=\"" +
               html_escape(w.id) + "\" href=\"" + html_escape(w.href) + "\">" + html_escape(w.label) + "</a>";
    else
        out += "<span class=\"label\" id=\"" + html_escape(w.id) + "\">" + html_escape(w.label) + "</span>";
    out += "<span class=\"note\">" + html_escape(w.note) + "</span>";
    if (!w.address.empty())
        out += "<code class=\"url\">" + html_escape(w.address) + "</code>";
    out += "</p>\n";
}

AgendaPage::Button const* button(AgendaPage const& page, std::string_view id) {
    for (auto const& b : page.connect)
        if (b.id == id)
            return &b;
    return nullptr;
}

/** @brief [connect]'s button for one provider, if it offers that one: written within seconds. */
void append_connect(std::string& out, AgendaPage const& page, std::string_view id, std::string const& who) {
    if (auto const* b = button(page, id))
        append_way(
            out,
            {.id = b->id,
             .href = b->href,
             .label = b->label,
             .note = "You sign in with " + who +
                     "; every change is written into a calendar of your own within seconds."}
        );
}

/** @brief The feed's CalDAV collection, if served: a token feed's with the user name its token logs in as. */
void append_caldav(std::string& out, AgendaPage const& page) {
    if (!page.dav_url.empty())
        append_way(
            out,
            {.id = "caldav",
             .label = "CalDAV address",
             .note =
                 "For apps that speak CalDAV (Thunderbird, DAVx⁵, Evolution): add an account with this "
                 "address" +
                 (page.dav_user.empty() ? std::string()
                                        : ", the user name " + page.dav_user +
                                              " and, as the password, this calendar's token (after token= "
                                              "in the .ics address)") +
                 "; they fetch only what changed, as often as they sync.",
             .address = page.dav_url}
        );
}

/**
 * @brief The ways to add the feed, per app: what each does and how fresh it keeps the calendar. A
 * subscription waits for the app's next poll (Google: 8–24 h); a connection is written within seconds.
 */
void append_apps(std::string& out, AgendaPage const& page) {
    std::string const webcal = webcal_url(page.https_url);
    out += "<section class=\"apps\">\n<h2>Add it to your calendar</h2>\n"
           "<div class=\"app\"><h3>Google Calendar</h3>\n";
    append_way(
        out,
        {.id = "add-google",
         .href = google_add_url(page.https_url),
         .label = "Add to Google Calendar",
         .note = "A subscription: Google refreshes it on its own schedule, every 8–24 hours."}
    );
    append_connect(out, page, "connect-google", "Google");
    out += "</div>\n<div class=\"app\"><h3>Apple Calendar (iPhone, iPad, Mac)</h3>\n";
    append_way(
        out,
        {.id = "subscribe-apple",
         .href = webcal,
         .label = "Subscribe in Apple Calendar",
         .note = "Opens the subscribe dialog; it refreshes as often as you choose there (5 minutes to "
                 "a week).",
         .primary = true}
    );
    out += "</div>\n<div class=\"app\"><h3>Outlook</h3>\n";
    append_connect(out, page, "connect-microsoft", "Microsoft");
    out +=
        "<p class=\"note\">Or subscribe: Add calendar, Subscribe from web, and paste the .ics address "
        "below; Outlook refreshes it every few hours.</p>\n</div>\n<div class=\"app\"><h3>Thunderbird</h3>\n"
        "<p class=\"note\">New Calendar, On the Network, and paste the .ics address below";
    out += page.dav_url.empty() ? "" : " (or the CalDAV address, through which it fetches only what changed)";
    out += "; it refreshes as often as the calendar's Properties say.</p>\n</div>\n"
           "<div class=\"app\"><h3>Any app</h3>\n";
    append_way(
        out,
        {.id = "ics",
         .href = page.https_url,
         .label = address_label(page.https_url),
         .note = "The calendar file: paste it into any app that subscribes by address; the app "
                 "decides how often it looks again.",
         .address = page.https_url}
    );
    append_way(
        out,
        {.id = "webcal",
         .href = webcal,
         .label = "webcal:// link",
         .note = "Opens your calendar app's subscribe dialog."}
    );
    append_caldav(out, page);
    out += "</div>\n</section>\n";
}

/** @brief The page up to the first day: the way back, title, the ways to add it, freshness and the zone. */
void append_head(std::string& out, AgendaPage const& page, std::string const& tz, chr::sys_seconds now) {
    out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
           "<meta name=\"referrer\" content=\"no-referrer\"><title>" +
           html_escape(page.title) + "</title><style>";
    out.append(page_style);
    out += ".agenda{list-style:none;padding:0;margin:0 0 1.25rem}.agenda li{padding:.5rem 0;border-top:1px "
           "solid var(--line)}.when{display:inline-block;min-width:7.5rem;font-variant-numeric:tabular-nums;"
           "color:var(--muted)}h2.day{font-size:1.05rem;margin:1.25rem 0 .25rem}"
           ".apps{margin:0 0 1.5rem}.app{border-top:1px solid var(--line);padding:.5rem 0}.app "
           "h3{font-size:1rem;"
           "margin:0 0 .25rem}.way{margin:.25rem 0 "
           ".75rem}.note{display:block;color:var(--muted);font-size:.875rem;"
           "margin:.25rem 0}.button{display:inline-block;padding:.4rem .8rem;border:1px solid var(--line);"
           "border-radius:8px;text-decoration:none;background:var(--bg)}.button.primary{background:var(--"
           "accent);"
           "color:var(--on-accent);border-color:var(--accent)}.label{font-weight:600}</style></"
           "head>\n<body><main>\n";
    out += "<p class=\"back\"><a href=\"" + html_escape(page.index_url.empty() ? "/" : page.index_url) +
           "\">← All calendars</a></p>\n<h1>" + html_escape(page.title) + "</h1>\n<p class=\"muted\">";
    if (auto when = freshness(page.changed, page.checked, now); !when.empty())
        out += "<span class=\"fresh\">" + when + "</span>. ";
    out += "Times in " + html_escape(tz) + ". Add <code>?tz=Area/City</code> for another zone.</p>\n";
    append_apps(out, page);
}

/** @brief One heading and list per day that has rows, or a line saying there is nothing. */
void append_days(std::string& out, std::vector<Row> const& rows) {
    long long day = 0;
    bool open = false;
    for (auto const& r : rows) {
        long long const d = (r.key >= 0 ? r.key : r.key - 86399) / 86400;
        if (!open || d != day) {
            if (open)
                out += "</ul>\n";
            out += "<h2 class=\"day\">" + day_heading(d * 86400) + "</h2>\n<ul class=\"agenda\">\n";
            day = d;
            open = true;
        }
        append_item(out, r);
    }
    if (open)
        out += "</ul>\n";
    else
        out += "<p class=\"muted\">Nothing coming up.</p>\n";
}

} // namespace

Result<std::string> agenda_page(views::FeedIndex const& index, AgendaPage const& page, chr::sys_seconds now) {
    std::string const tz = !page.tz.empty()          ? page.tz
                           : !page.feed_zone.empty() ? page.feed_zone
                                                     : usual_zone(index);
    auto rows = coming_rows(index, tz, page.limit, now);
    if (!rows)
        return rows.error();
    std::string out;
    append_head(out, page, tz, now);
    append_days(out, *rows);
    return out + "</main></body></html>\n";
}

} // namespace icsbridge
