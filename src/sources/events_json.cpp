// File: events_json.cpp
// Reads events API v3 JSON into model values, tolerating the quirks real payloads show (UPSTREAM.md 1.2-1.8).
#include "sources/events_json.hpp"

#include "sources/json_read.hpp"

#include <boost/json/value.hpp>

namespace icsbridge {

namespace json = boost::json;
// The tolerant readers are this file's vocabulary.
using namespace jsonr;

namespace {

std::string indexed(std::string_view key, std::size_t i) {
    return std::string(key) + "[" + std::to_string(i) + "]";
}

struct Multipart {
    std::string text, html;
};

// Multipart text {"text", "html"}: both kept, because the text is the organizer's own words (tabs, blank
// lines) and the html feeds X-ALT-DESC. A plain string (older payloads, hand-made fixtures) is read as
// HTML when it holds markup, else as text.
Multipart multipart(json::object const& o, std::string_view key) {
    auto const* v = member(o, key);
    if (!v)
        return {};
    if (v->is_string()) {
        std::string s(v->get_string());
        if (s.find('<') != std::string::npos)
            return {{}, std::move(s)};
        return {std::move(s), {}};
    }
    auto const* mp = v->if_object();
    if (!mp)
        return {};
    return {text(*mp, "text"), text(*mp, "html")};
}

Result<ZonedTime> zoned(json::object const& o, std::string_view key, std::string const& path) {
    auto const p = join_path(path, key);
    auto const* obj = object_member(o, key);
    if (!obj)
        return malformed(p, member(o, key) ? "is not an object" : "is missing");
    ZonedTime z;
    z.timezone = text(*obj, "timezone");
    auto utc = jsonr::required_instant(*obj, "utc", p);
    if (!utc)
        return utc.error();
    z.utc = *utc;
    auto local = jsonr::required_local(*obj, "local", p);
    if (!local)
        return local.error();
    z.local = *local;
    return z;
}

// Optional UTC timestamps (created, changed, published): a bad one is dropped rather than failing the feed.
std::optional<sys_seconds> instant(json::object const& o, std::string_view key) {
    auto const* v = member(o, key);
    auto const* s = v ? v->if_string() : nullptr;
    return s ? jsonr::parse_instant(*s) : std::nullopt;
}

std::optional<Money> money(json::object const& o, std::string_view key) {
    auto const* m = object_member(o, key);
    if (!m)
        return std::nullopt;
    auto minor = jsonr::as_integer(member(*m, "value"));
    auto major = text(*m, "major_value");
    if (!minor && major.empty())
        return std::nullopt;
    return Money{text(*m, "currency"), minor.value_or(0), major};
}

std::string join_address(json::object const& a) {
    auto display = text(a, "localized_address_display");
    if (!display.empty())
        return display;
    std::string out;
    for (auto key : {"address_1", "address_2", "city", "region", "postal_code", "country"}) {
        auto part = text(a, key);
        if (part.empty())
            continue;
        if (!out.empty())
            out += ", ";
        out += part;
    }
    return out;
}

Venue venue(json::object const& v) {
    Venue out;
    out.id = text(v, "id");
    out.name = text(v, "name");
    auto const* address = object_member(v, "address");
    if (address)
        out.address = join_address(*address);
    out.latitude = jsonr::as_number(member(v, "latitude"));
    out.longitude = jsonr::as_number(member(v, "longitude"));
    if (address && (!out.latitude || !out.longitude)) {
        out.latitude = jsonr::as_number(member(*address, "latitude"));
        out.longitude = jsonr::as_number(member(*address, "longitude"));
    }
    // The blueprint's own example has a sign-less longitude; drop coordinates no map could show.
    if (!out.latitude || !out.longitude || *out.latitude < -90 || *out.latitude > 90 ||
        *out.longitude < -180 || *out.longitude > 180) {
        out.latitude.reset();
        out.longitude.reset();
    }
    return out;
}

Result<TicketClass> ticket_class(json::value const& v, std::string const& path) {
    auto const* o = v.if_object();
    if (!o)
        return malformed(path, "is not an object");
    TicketClass t;
    t.id = text(*o, "id");
    if (t.id.empty())
        return malformed(path + ".id", "is missing");
    t.name = text(*o, "display_name");
    if (t.name.empty())
        t.name = text(*o, "name");
    t.free = jsonr::as_flag(member(*o, "free")).value_or(false);
    if (!t.free)
        t.cost = money(*o, "cost");
    return t;
}

Pagination pagination(json::object const& root) {
    Pagination p;
    auto const* o = object_member(root, "pagination");
    if (!o)
        return p;
    if (auto n = jsonr::as_integer(member(*o, "object_count")); n && *n >= 0)
        p.object_count = static_cast<std::size_t>(*n);
    if (auto n = jsonr::as_integer(member(*o, "page_number")))
        p.page_number = static_cast<int>(*n);
    if (auto n = jsonr::as_integer(member(*o, "page_count")))
        p.page_count = static_cast<int>(*n);
    p.has_more_items = jsonr::as_flag(member(*o, "has_more_items"));
    p.continuation = text(*o, "continuation");
    return p;
}

// Parses `{"<key>": [...], "pagination": {...}}`, calling `item(value, path)` for each element.
template <class T, class Item>
Result<std::pair<std::vector<T>, Pagination>>
parse_list(std::string_view body, std::string_view key, Item item) {
    auto doc = jsonr::parse_body(body);
    if (!doc)
        return doc.error();
    auto const* root = doc->value.if_object();
    if (!root)
        return fail(errc::upstream_malformed, "the body is not a JSON object");
    auto const* list = member(*root, key);
    if (!list)
        return malformed(std::string(key), "is missing");
    auto const* arr = list->if_array();
    if (!arr)
        return malformed(std::string(key), "is not an array");
    std::vector<T> out;
    out.reserve(arr->size());
    for (std::size_t i = 0; i < arr->size(); ++i) {
        auto r = item((*arr)[i], indexed(key, i));
        if (!r)
            return r.error();
        out.push_back(std::move(*r));
    }
    return std::pair{std::move(out), pagination(*root)};
}

} // namespace

bool lacks_expansions(json::value const& v) {
    auto const* o = v.if_object();
    if (!o)
        return false;
    // An online event has no venue; `venue_id` null is how the API says so.
    bool const venue_missing =
        !o->contains("venue") && member(*o, "venue_id") && !text(*o, "venue_id").empty();
    return venue_missing || !o->contains("organizer") || !o->contains("ticket_availability");
}

namespace {

/** @brief `name`: text, or an object with text (or html). */
Result<std::string> event_name(json::object const& o, std::string const& path) {
    auto const* name = member(o, "name");
    if (!name)
        return malformed(join_path(path, "name"), "is missing");
    if (auto const* s = name->if_string())
        return std::string(*s);
    if (auto const* mp = name->if_object()) {
        auto t = jsonr::as_text(member(*mp, "text"));
        if (!t)
            t = jsonr::as_text(member(*mp, "html"));
        if (!t)
            return malformed(join_path(path, "name.text"), "is missing");
        return std::move(*t);
    }
    return malformed(join_path(path, "name"), "is not text");
}

/** @brief Everything an event may leave out: absent members stay empty. */
void read_optional_fields(json::object const& o, Event& e) {
    e.summary = text(o, "summary");
    auto description = multipart(o, "description");
    e.description_text = std::move(description.text);
    e.description_html = std::move(description.html);
    e.url = text(o, "url");
    e.created = instant(o, "created");
    e.changed = instant(o, "changed");
    e.published = instant(o, "published");
    e.status = text(o, "status");
    e.online = jsonr::as_flag(member(o, "online_event")).value_or(false);
    e.category_id = text(o, "category_id");
    e.currency = text(o, "currency");
    e.is_free = jsonr::as_flag(member(o, "is_free"));
    e.series_id = text(o, "series_id");
    e.is_series_parent = jsonr::as_flag(member(o, "is_series_parent")).value_or(false);
    if (auto const* ven = object_member(o, "venue"))
        e.venue = venue(*ven);
    if (auto const* org = object_member(o, "organizer")) {
        e.organizer_name = text(*org, "name");
        e.organizer_url = text(*org, "url");
    }
    if (auto const* ta = object_member(o, "ticket_availability")) {
        e.min_price = money(*ta, "minimum_ticket_price");
        e.max_price = money(*ta, "maximum_ticket_price");
        e.sold_out = jsonr::as_flag(member(*ta, "is_sold_out"));
    }
}

} // namespace

Result<Event> parse_event(json::value const& v, std::string const& path) {
    auto const* o = v.if_object();
    if (!o)
        return malformed(path.empty() ? std::string("the event") : path, "is not an object");
    Event e;
    auto id = required_text(*o, "id", path);
    if (!id)
        return id.error();
    e.id = std::move(*id);
    auto name = event_name(*o, path);
    if (!name)
        return name.error();
    e.name = std::move(*name);
    auto start = zoned(*o, "start", path);
    if (!start)
        return start.error();
    e.start = *start;
    auto end = zoned(*o, "end", path);
    if (!end)
        return end.error();
    e.end = *end;

    read_optional_fields(*o, e);
    // Search results may embed ticket classes; GET /events/{id}/ticket_classes/ replaces them when asked.
    if (auto const* tcs = member(*o, "ticket_classes"); tcs && tcs->is_array()) {
        auto const& arr = tcs->get_array();
        for (std::size_t i = 0; i < arr.size(); ++i) {
            auto t = ticket_class(arr[i], join_path(path, indexed("ticket_classes", i)));
            if (!t)
                return t.error();
            e.ticket_classes.push_back(std::move(*t));
        }
    }
    return e;
}

Result<Event> parse_event_body(std::string_view body) {
    auto doc = jsonr::parse_body(body);
    if (!doc)
        return doc.error();
    return parse_event(doc->value);
}

Result<EventsPage> parse_events_page(std::string_view body) {
    std::vector<bool> incomplete;
    auto r = parse_list<Event>(body, "events", [&](json::value const& v, std::string const& path) {
        incomplete.push_back(lacks_expansions(v));
        return parse_event(v, path);
    });
    if (!r)
        return r.error();
    return EventsPage{std::move(r->first), std::move(incomplete), r->second};
}

Result<TicketClassesPage> parse_ticket_classes_page(std::string_view body) {
    auto r = parse_list<TicketClass>(body, "ticket_classes", ticket_class);
    if (!r)
        return r.error();
    return TicketClassesPage{std::move(r->first), r->second};
}

Result<OrganizationsPage> parse_organizations_page(std::string_view body) {
    auto r =
        parse_list<std::string>(body, "organizations", [](json::value const& v, std::string const& path) {
            auto const* o = v.if_object();
            auto id = o ? text(*o, "id") : std::string();
            return id.empty() ? Result<std::string>(malformed(path + ".id", "is missing"))
                              : Result<std::string>(id);
        });
    if (!r)
        return r.error();
    return OrganizationsPage{std::move(r->first), r->second};
}

} // namespace icsbridge
