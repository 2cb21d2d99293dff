// File: model.hpp
// What the calendars are made of: Event (events service) and JobPost (job board), as plain values.
// Sources fill them from the upstream JSON; the ical module renders them. No JSON or libical types here.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace icsbridge {

using sys_seconds = std::chrono::sys_seconds;

/** @brief A naive wall-clock date-time (no zone), as the upstreams send `local` / `post_date`. */
struct LocalDateTime {
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    friend bool operator==(LocalDateTime const&, LocalDateTime const&) = default;
};

/** @brief The events API's datetime-tz: `{"timezone", "local", "utc"}`. */
struct ZonedTime {
    std::string timezone; ///< IANA name, e.g. "America/Los_Angeles"; may be empty if the upstream sent none
    LocalDateTime local;  ///< wall time in `timezone`
    sys_seconds utc{};    ///< the instant; authoritative when local and utc disagree
    friend bool operator==(ZonedTime const&, ZonedTime const&) = default;
};

struct Venue {
    std::string id;
    std::string name;
    std::string address; ///< one line, e.g. "1 Main St, San Francisco, CA 94103, US"; may be empty
    std::optional<double> latitude, longitude;
    friend bool operator==(Venue const&, Venue const&) = default;
};

struct Money {
    std::string currency;    ///< ISO 4217
    long long minor = 0;     ///< value in minor units
    std::string major_value; ///< "4.32", as sent
    friend bool operator==(Money const&, Money const&) = default;
};

struct TicketClass {
    std::string id;
    std::string name;
    bool free = false;
    std::optional<Money> cost; ///< price without fees, when not free
    friend bool operator==(TicketClass const&, TicketClass const&) = default;
};

struct Event {
    std::string id;      ///< upstream id (string, "not necessarily numeric")
    std::string name;    ///< name.text
    std::string summary; ///< short plain text, may be empty
    std::string
        description_text; ///< description.text: the upstream's own plain text, used verbatim; may be empty
    std::string description_html; ///< description.html, may be empty (plain text is derived from it only
                                  ///< without text)
    std::string url;
    ZonedTime start, end;
    std::optional<sys_seconds> created, changed, published;
    std::string status; ///< draft, live, started, ended, completed, canceled
    bool online = false;
    std::optional<Venue> venue;
    std::string organizer_name;
    std::string organizer_url;
    std::string category_id; ///< "102"; name from the seed's table at render time
    std::optional<bool> is_free;
    std::optional<Money> min_price, max_price;
    std::optional<bool> sold_out;
    std::vector<TicketClass> ticket_classes;
    std::string currency;
    std::string series_id;         ///< shared by the dated occurrences of a recurring event; empty otherwise
    bool is_series_parent = false; ///< the series' umbrella record (spans months): never published itself

    bool cancelled() const { return status == "canceled" || status == "cancelled"; }
    friend bool operator==(Event const&, Event const&) = default;
};

struct JobPost {
    std::string id;
    std::string title;
    std::string description_html;
    std::string perks;       ///< may contain HTML
    std::string howto_apply; ///< may contain HTML
    LocalDateTime posted;    ///< post_date, naive (the board sends no zone)
    std::string category_id, category;
    std::string type_id, type; ///< "Full-time", "Freelance", ...
    std::string company, company_url;
    std::string location; ///< company.location.name (or city)
    std::optional<double> latitude, longitude;
    bool remote = false;     ///< telecommuting == 1
    bool relocation = false; ///< relocation_assistance == 1
    std::string url;         ///< the post's page
    std::string apply_url;
    std::optional<sys_seconds> last_update; ///< envelope last_update, when sent
    friend bool operator==(JobPost const&, JobPost const&) = default;
};

/**
 * @brief Whether an organizer's event belongs in its calendar at `now`: every published state while it
 * runs and until `keep_past` after it ends; a cancelled one until `keep_past` after its start (so the
 * cancellation is seen); never a draft or a series parent (its dated occurrences are the events).
 */
bool in_event_life(Event const& e, sys_seconds now, std::chrono::seconds keep_past);

/** @brief Drafts and series parents: records no calendar shows, whatever the feed's selection. */
bool never_published(Event const& e);

/** @brief The statuses an organizer feed asks for: every published state, never `draft`. */
inline constexpr char const* published_statuses = "live,started,ended,completed,canceled";

/** @brief A category or tag of either service: id and display name. */
struct Category {
    std::string id;
    std::string name;
};

/** @brief The events service's category table (seed 001): 101 Business ... 110 Food & Drink. */
std::vector<Category> const& event_categories();

/** @brief Name of an events category id, or empty if unknown. */
std::string event_category_name(std::string const& id);

/** @brief What a feed's upstream returned, before rendering (shared by feeds that ask the same question). */
struct FeedItems {
    std::vector<Event> events; ///< events sources
    std::vector<JobPost> jobs; ///< jobs sources
    sys_seconds asked_at{};    ///< the `now` of the fetch: each feed's keep_past counts from it
};

} // namespace icsbridge
