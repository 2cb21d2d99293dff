// File: fake_api.cpp
// Loads the fake upstream's fixture data and answers the events API (/v3/...) and the job board (/api/...)
// with the real services' payload, pagination and error shapes (see /work/shared/UPSTREAM.md).
#include "fake_api.hpp"

#include "fake_upstream/fake_paging.hpp"
#include "fake_upstream/lifecycle.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace icsbridge::test::fake {

namespace json = boost::json;

namespace {

// ------------------------------------------------------------------ small helpers

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

bool contains_ci(std::string_view hay, std::string const& needle_lower) {
    return lower(hay).find(needle_lower) != std::string::npos;
}

std::vector<std::string> split(std::string_view s, std::string_view seps) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i <= s.size()) {
        auto j = s.find_first_of(seps, i);
        if (j == std::string_view::npos)
            j = s.size();
        if (j > i)
            out.emplace_back(s.substr(i, j - i));
        i = j + 1;
    }
    return out;
}

std::optional<int> to_int(std::string const* s) {
    if (!s)
        return std::nullopt;
    int v = 0;
    auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
    if (ec != std::errc() || p != s->data() + s->size())
        return std::nullopt;
    return v;
}

std::string_view str_at(json::object const& o, std::string_view key) {
    auto it = o.find(key);
    if (it == o.end() || !it->value().is_string())
        return {};
    return it->value().get_string();
}

json::object const* obj_at(json::object const& o, std::string_view key) {
    auto it = o.find(key);
    if (it == o.end() || !it->value().is_object())
        return nullptr;
    return &it->value().get_object();
}

std::string_view nested_str(json::object const& o, std::string_view a, std::string_view b) {
    auto const* inner = obj_at(o, a);
    return inner ? str_at(*inner, b) : std::string_view{};
}

std::optional<json::value> read_json(std::string const& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot read " + path;
        return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    boost::system::error_code ec;
    auto v = json::parse(ss.str(), ec);
    if (ec) {
        error = path + ": " + ec.message();
        return std::nullopt;
    }
    return v;
}

ApiReply json_reply(unsigned status, json::value const& v) {
    ApiReply r;
    r.status = status;
    r.body = json::serialize(v);
    return r;
}

// ------------------------------------------------------------------ time for synthesized events

// Zones without DST, so local = utc + a fixed offset stays correct for any date.
struct FixedZone {
    char const* name;
    std::chrono::minutes offset;
};
constexpr FixedZone generated_zones[] = {
    {"Asia/Tokyo", std::chrono::minutes(9 * 60)},
    {"Asia/Kolkata", std::chrono::minutes(5 * 60 + 30)},
    {"Etc/UTC", std::chrono::minutes(0)},
};

// About `bytes` of HTML (paragraphs, a list, links, entities) and its plain text, different per event: the
// ~1 KB descriptions real organizers write, for the export benchmark.
json::object long_description(int k, int bytes) {
    std::string html =
        "<p>Evening <strong>#" + std::to_string(k + 1) + "</strong> of our series &amp; friends.</p><ul>";
    std::string text = "Evening #" + std::to_string(k + 1) + " of our series & friends.\n";
    for (int i = 1; static_cast<int>(html.size()) < bytes; ++i) {
        auto const n = std::to_string(k * 31 + i);
        html += "<li>Talk " + n +
                ": systems &ndash; caches, queues &amp; <em>back-pressure</em>; slides at " +
                "<a href=\"https://example.org/talks/" + n + "?a=1&amp;b=2\">example.org/talks/" + n +
                "</a></li>";
        text += "- Talk " + n + ": systems – caches, queues & back-pressure; slides at example.org/talks/" +
                n + "\n";
    }
    html += "</ul><p>Doors at 18:30&nbsp;h. Step-free entrance.</p>";
    text += "Doors at 18:30 h. Step-free entrance.";
    return json::object{{"text", std::move(text)}, {"html", std::move(html)}};
}

std::vector<json::object> synthesize_events(
    std::vector<json::object> const& templates, int count, std::string org, int description_bytes
) {
    using namespace std::chrono;
    std::vector<json::object> out;
    out.reserve(static_cast<std::size_t>(count));
    sys_seconds const base = sys_days{year{2027} / January / 1} + hours(9);
    for (int k = 0; k < count; ++k) {
        json::object ev = templates[static_cast<std::size_t>(k) % templates.size()];
        auto const id = std::to_string(900000000000LL + k);
        auto const& zone = generated_zones[k % 3];
        auto const start = base + minutes(37) * k;
        ev["id"] = id;
        auto const text = std::string(nested_str(ev, "name", "text")) + " #" + std::to_string(k + 1);
        ev["name"] = json::object{{"text", text}, {"html", text}};
        ev["start"] = dt_tz(start, zone.name, zone.offset);
        ev["end"] = dt_tz(start + hours(2), zone.name, zone.offset);
        ev["status"] = "live";
        ev["organization_id"] = org;
        ev["url"] = "https://www.eventbrite.com/e/generated-event-tickets-" + id;
        ev["resource_uri"] = "https://www.eventbriteapi.com/v3/events/" + id + "/";
        if (description_bytes > 0)
            ev["description"] = long_description(k, description_bytes);
        out.push_back(std::move(ev));
    }
    return out;
}

// ------------------------------------------------------------------ events API

ApiReply eb_error(unsigned status, std::string_view code, std::string_view description) {
    return json_reply(
        status,
        json::object{{"status_code", status}, {"error", code}, {"error_description", description}}
    );
}

ApiReply eb_arguments_error(std::string const& field) {
    auto r = json::object{
        {"status_code", 400},
        {"error", "ARGUMENTS_ERROR"},
        {"error_description", "There are errors with your arguments: " + field + " - INVALID"},
        {"error_detail", json::object{{"ARGUMENTS_ERROR", json::object{{field, json::array{"INVALID"}}}}}},
    };
    return json_reply(400, r);
}

ApiReply eb_not_found() {
    return eb_error(404, "NOT_FOUND", "The path you requested does not exist.");
}

// As the service: an event leaves `live` when it starts (`started`, then `ended`, `completed`); a draft is
// listed only when asked for by name or with `all`.
// `wanted` is the split status list (split once per request: lists of 100,000 events are benchmarked).
bool status_matches(json::object const& ev, std::vector<std::string> const* wanted) {
    auto const st = str_at(ev, "status");
    if (!wanted)
        return st != "draft";
    for (auto const& want : *wanted)
        if (want == "all" || want == st)
            return true;
    return false;
}

// time_filter: current_future (not yet ended), past (ended), all; compared on the utc text, which sorts.
bool time_matches(json::object const& ev, std::string const* filter, std::string const& now) {
    if (!filter || *filter == "all")
        return true;
    bool const ended = nested_str(ev, "end", "utc") < now;
    return *filter == "past" ? ended : !ended;
}

// order_by: start_asc (the default), start_desc, created_asc, created_desc.
void order_events(std::vector<json::object const*>& list, std::string const* order_by) {
    if (!order_by || *order_by == "start_asc")
        return; // the data set is kept in this order
    bool const by_created = order_by->starts_with("created");
    bool const desc = order_by->ends_with("_desc");
    std::stable_sort(list.begin(), list.end(), [&](json::object const* a, json::object const* b) {
        auto const ka = by_created ? str_at(*a, "created") : nested_str(*a, "start", "utc");
        auto const kb = by_created ? str_at(*b, "created") : nested_str(*b, "start", "utc");
        return desc ? ka > kb : ka < kb;
    });
}

bool series_parent(json::object const& ev) {
    auto it = ev.find("is_series_parent");
    return it != ev.end() && it->value().is_bool() && it->value().get_bool();
}

std::set<std::string> expand_set(ApiRequest const& req) {
    std::set<std::string> out;
    if (auto const* e = req.param("expand"))
        for (auto const& name : split(*e, ","))
            out.insert(name);
    return out;
}

json::object render_event(json::object const& ev, std::set<std::string> const& expand) {
    json::object out = ev;
    static constexpr std::string_view expansions[] = {"venue", "organizer", "ticket_availability"};
    for (auto name : expansions) {
        out.erase(name);
        // A stored expansion that is absent (venue missing) stays absent even when asked for.
        if (expand.count(std::string(name)))
            if (auto it = ev.find(name); it != ev.end())
                out[name] = it->value();
    }
    return out;
}

// The events at `positions` of `list` as JSON array elements. Each event is serialized once per expansion
// set and kept: benchmarks page through lists of 100,000 events, and the fake must not be what they measure.
std::string render_events(
    UpstreamData const& data,
    std::vector<json::object const*> const& list,
    std::vector<std::size_t> const& positions,
    std::set<std::string> const& expand
) {
    std::string key;
    for (auto const& e : expand)
        key += e + ",";
    std::string out;
    std::lock_guard lock(data.lists_mtx);
    for (auto i : positions) {
        if (i >= list.size())
            continue;
        auto& text = data.serialized[{list[i], key}];
        if (text.empty())
            text = json::serialize(render_event(*list[i], expand));
        if (!out.empty())
            out.push_back(',');
        out += text;
    }
    return out;
}

// `body` (without "events") with "events": [events] added last.
ApiReply with_events(json::object const& body, std::string const& events) {
    std::string text = json::serialize(body);
    text.pop_back(); // the closing brace
    text += (body.empty() ? "" : ",");
    text += "\"events\":[" + events + "]}";
    ApiReply r;
    r.body = std::move(text);
    return r;
}

// Page size from ?page_size= (bounded like the service) or the fake's default.
std::optional<int> page_size_of(ApiRequest const& req, ApiSettings const& settings) {
    auto const* raw = req.param("page_size");
    if (!raw)
        return settings.events_page_size;
    auto v = to_int(raw);
    if (!v || *v < 1)
        return std::nullopt;
    return std::min(*v, 200);
}

// One page of an events list, as the service pages every list: by `page=N` or by `continuation`, with
// both in every answer (fake_paging.cpp).
ApiReply events_list(
    UpstreamData const& data,
    std::vector<json::object const*> const& list,
    ApiRequest const& req,
    ApiSettings const& settings,
    std::set<std::string> const& expand,
    json::object extra = {}
) {
    auto size = page_size_of(req, settings);
    if (!size)
        return eb_arguments_error("page_size");
    auto answer =
        page_of_list(list.size(), *size, req.param("page"), req.param("continuation"), settings.paging);
    if (!answer.slice)
        return eb_error(400, answer.error.error, answer.error.description);
    json::object body = std::move(extra);
    body["pagination"] = std::move(answer.slice->pagination);
    auto reply = with_events(body, render_events(data, list, answer.slice->items, expand));
    reply.list_page = true;
    return reply;
}

// Naive "YYYY-MM-DDTHH:MM:SS" (compared with start.local, as the service did) or the same with a Z
// (compared with start.utc).
bool valid_datetime(std::string const& s) {
    if (s.size() != 19 && !(s.size() == 20 && s.back() == 'Z'))
        return false;
    static constexpr char pattern[] = "dddd-dd-ddTdd:dd:dd";
    for (std::size_t i = 0; i < 19; ++i) {
        bool const digit = s[i] >= '0' && s[i] <= '9';
        if (pattern[i] == 'd' ? !digit : s[i] != pattern[i])
            return false;
    }
    return true;
}

std::string km_of(std::string const* within) {
    double value = 25;
    bool miles = true;
    if (within && !within->empty()) {
        auto const& w = *within;
        auto const digits_end = w.find_first_not_of("0123456789.");
        try {
            value = std::stod(w.substr(0, digits_end));
        } catch (...) {
        }
        miles = digits_end == std::string::npos || w.compare(digits_end, 2, "km") != 0;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", miles ? value * 1.609344000384 : value);
    return buf;
}

ApiReply search(UpstreamData const& data, ApiRequest const& req, ApiSettings const& settings) {
    std::vector<std::string> words;
    if (auto const* q = req.param("q"))
        for (auto const& w : split(*q, " \t"))
            words.push_back(lower(w));
    std::set<std::string> categories;
    if (auto const* c = req.param("categories"))
        for (auto const& id : split(*c, ","))
            categories.insert(id);
    std::string address;
    if (auto const* a = req.param("location.address"))
        address = lower(*a);
    std::string range_start, range_end;
    for (auto [name, out] :
         {std::pair{"start_date.range_start", &range_start}, {"start_date.range_end", &range_end}}) {
        if (auto const* v = req.param(name); v && !v->empty()) {
            if (!valid_datetime(*v))
                return eb_arguments_error(name);
            *out = *v;
        }
    }

    auto in_range = [](json::object const& ev, std::string const& bound, bool lower_bound) {
        if (bound.empty())
            return true;
        bool const utc = bound.back() == 'Z';
        auto const value = std::string(nested_str(ev, "start", utc ? "utc" : "local"));
        return lower_bound ? value >= bound : value <= bound;
    };

    std::vector<json::object const*> hits;
    for (auto const& ev : data.events) {
        if (series_parent(ev) || str_at(ev, "status") == "draft")
            continue;
        auto const text = lower(
            std::string(nested_str(ev, "name", "text")) + "\n" +
            std::string(nested_str(ev, "description", "text"))
        );
        if (!std::all_of(words.begin(), words.end(), [&](auto const& w) {
                return text.find(w) != std::string::npos;
            }))
            continue;
        if (!categories.empty() && !categories.count(std::string(str_at(ev, "category_id"))))
            continue;
        if (!in_range(ev, range_start, true) || !in_range(ev, range_end, false))
            continue;
        if (!address.empty()) {
            auto const* venue = obj_at(ev, "venue");
            if (!venue)
                continue;
            std::string hay(str_at(*venue, "name"));
            if (auto const* a = obj_at(*venue, "address"))
                for (auto key : {"address_1", "city", "region", "postal_code", "localized_address_display"})
                    hay.append("\n").append(str_at(*a, key));
            if (!contains_ci(hay, address))
                continue;
        }
        hits.push_back(&ev);
    }

    json::object extra;
    if (!words.empty())
        extra["top_match_events"] = json::array{};
    if (auto const* a = req.param("location.address"))
        extra["location"] = json::object{
            {"latitude", "37.7749"},
            {"augmented_location", json::object{{"city", *a}, {"region", ""}, {"country", ""}}},
            {"within", km_of(req.param("location.within"))},
            {"longitude", "-122.4194"},
            {"address", *a},
        };
    auto const expand = settings.ignore_expand ? std::set<std::string>{} : expand_set(req);
    return events_list(data, hits, req, settings, expand, std::move(extra));
}

json::object single_page_pagination(std::size_t n) {
    return json::object{
        {"object_count", n},
        {"page_number", 1},
        {"page_size", 50},
        {"page_count", 1},
        {"has_more_items", false},
        {"continuation", nullptr},
    };
}

ApiReply handle_events(UpstreamData const& data, ApiSettings const& settings, ApiRequest const& req) {
    // Auth first, as the service does: a bearer header, or ?token= (also documented).
    std::string token;
    auto const& auth = req.authorization;
    if (!auth.empty()) {
        if (auth.size() > 7 && lower(auth.substr(0, 7)) == "bearer ")
            token = auth.substr(7);
        else
            return eb_error(400, "INVALID_AUTH", "The OAuth token you provided was invalid.");
    } else if (auto const* t = req.param("token")) {
        token = *t;
    }
    if (token.empty())
        return eb_error(401, "NO_AUTH", "An OAuth token is required for this request.");
    if (token != settings.events_token)
        return eb_error(400, "INVALID_AUTH", "The OAuth token you provided was invalid.");
    if (req.method != "GET" && req.method != "HEAD")
        return eb_error(405, "METHOD_NOT_ALLOWED", "This endpoint does not allow the method you used.");

    auto const& path = req.path;
    if (path.size() < 4 || path.back() != '/')
        return eb_not_found();
    auto const seg = split(std::string_view(path).substr(4), "/"); // after "/v3/"
    auto const expand = expand_set(req);
    auto const list_expand = settings.ignore_expand ? std::set<std::string>{} : expand;
    std::optional<std::vector<std::string>> statuses;
    if (auto const* status = req.param("status"))
        statuses = split(*status, ",");
    auto const* status = statuses ? &*statuses : nullptr;
    auto const* time_filter = req.param("time_filter");
    auto const* show_parents = req.param("show_series_parent");
    if (time_filter && *time_filter != "all" && *time_filter != "past" && *time_filter != "current_future")
        return eb_arguments_error("time_filter");
    auto const now = format_utc(
        settings.now.value_or(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())),
        true
    );

    auto const filtered = [&](std::string_view org) {
        // A list of 100,000 events is filtered once per question, not once per page (the benchmarks page
        // through it); the time filter's minute is part of the question.
        auto const* order = req.param("order_by");
        std::string key = std::string(org) + "|" + (status ? *req.param("status") : "-") + "|" +
                          (time_filter ? *time_filter : "-") + "|" + now.substr(0, 16) + "|" +
                          (order ? *order : "-") + "|" + (show_parents ? *show_parents : "-");
        std::lock_guard lock(data.lists_mtx);
        auto& cached = data.lists[key];
        if (!cached) {
            auto out = std::make_shared<std::vector<json::object const*>>();
            for (auto const& ev : data.events)
                if ((org.empty() || str_at(ev, "organization_id") == org) && status_matches(ev, status) &&
                    time_matches(ev, time_filter, now) &&
                    (!series_parent(ev) || (show_parents && *show_parents == "true")))
                    out->push_back(&ev);
            order_events(*out, order);
            cached = std::move(out);
        }
        return *cached;
    };

    if (seg.size() == 2 && seg[0] == "users" && seg[1] == "me")
        return json_reply(200, data.user);
    if (seg.size() == 3 && seg[0] == "users" && seg[1] == "me" &&
        (seg[2] == "events" || seg[2] == "owned_events"))
        return events_list(data, filtered({}), req, settings, list_expand);
    if (seg.size() == 3 && seg[0] == "users" && seg[1] == "me" && seg[2] == "organizations")
        return json_reply(
            200,
            json::object{
                {"organizations", data.organizations},
                {"pagination", single_page_pagination(data.organizations.size())},
            }
        );
    if (seg.size() == 3 && seg[0] == "organizations" && seg[2] == "events") {
        auto const known =
            std::any_of(data.organizations.begin(), data.organizations.end(), [&](auto const& o) {
                return o.is_object() && str_at(o.get_object(), "id") == seg[1];
            });
        if (!known)
            return eb_error(404, "NOT_FOUND", "The organization_id you requested does not exist.");
        return events_list(data, filtered(seg[1]), req, settings, list_expand);
    }
    if (seg.size() == 2 && seg[0] == "events" && seg[1] == "search")
        return search(data, req, settings);
    if (seg.size() >= 2 && seg.size() <= 3 && seg[0] == "events") {
        auto it = data.event_index.find(seg[1]);
        if (it == data.event_index.end())
            return eb_error(404, "NOT_FOUND", "The event you requested does not exist.");
        auto const& ev = data.events[it->second];
        if (seg.size() == 2)
            return json_reply(200, render_event(ev, expand));
        if (seg[2] == "ticket_classes") {
            json::array classes;
            if (auto tc = data.ticket_classes.find(seg[1]);
                tc != data.ticket_classes.end() && tc->value().is_array())
                classes = tc->value().get_array();
            auto const n = classes.size();
            return json_reply(
                200,
                json::object{
                    {"pagination", single_page_pagination(n)},
                    {"ticket_classes", std::move(classes)}}
            );
        }
        if (seg[2] == "description")
            return json_reply(200, json::object{{"description", nested_str(ev, "description", "html")}});
    }
    return eb_not_found();
}

// ------------------------------------------------------------------ job board

ApiReply aj_fail(unsigned status, int code, std::string_view desc) {
    return json_reply(status, json::object{{"stat", "fail"}, {"code", code}, {"desc", desc}});
}

bool listing_matches(json::object const& l, ApiRequest const& req) {
    if (auto const* kw = req.param("keywords")) {
        auto const words = split(lower(*kw), ", \t");
        if (!words.empty()) {
            auto const text = lower(
                std::string(str_at(l, "title")) + "\n" + std::string(str_at(l, "description")) + "\n" +
                std::string(str_at(l, "keywords"))
            );
            if (std::none_of(words.begin(), words.end(), [&](auto const& w) {
                    return text.find(w) != std::string::npos;
                }))
                return false;
        }
    }
    auto const id_filter = [&](char const* param, std::string_view actual) {
        auto const* want = req.param(param);
        return !want || want->empty() || *want == actual;
    };
    auto const* company = obj_at(l, "company");
    auto const location = company ? nested_str(*company, "location", "id") : std::string_view{};
    auto const company_id = company ? str_at(*company, "id") : std::string_view{};
    if (!id_filter("category", nested_str(l, "category", "id")) ||
        !id_filter("type", nested_str(l, "type", "id")) || !id_filter("location", location) ||
        !id_filter("company", company_id))
        return false;
    if (auto const* tele = req.param("telecommuting"); tele && *tele == "1") {
        auto it = l.find("telecommuting");
        if (it == l.end() || !it->value().is_int64() || it->value().get_int64() != 1)
            return false;
    }
    return true;
}

ApiReply listings_page(UpstreamData const& data, ApiRequest const& req, bool filter) {
    std::vector<json::object const*> hits;
    for (auto const& l : data.listings)
        if (!filter || listing_matches(l, req))
            hits.push_back(&l);
    if (auto const* sort = req.param("sort"); sort && *sort == "date-posted-asc")
        std::reverse(hits.begin(), hits.end());
    int perpage = to_int(req.param("perpage")).value_or(10);
    if (perpage < 1)
        perpage = 10;
    perpage = std::min(perpage, 100);
    int page = std::max(1, to_int(req.param("page")).value_or(1));
    auto const total = static_cast<int>(hits.size());
    int const pages = (total + perpage - 1) / perpage;
    json::array listing;
    for (auto i = static_cast<std::size_t>((page - 1) * perpage);
         i < hits.size() && listing.size() < std::size_t(perpage);
         ++i)
        listing.push_back(*hits[i]);
    json::object listings{
        {"listing", std::move(listing)},
        {"total", total},
        {"perpage", std::to_string(perpage)}, // a string, as the 2015+ service sent it
        {"page", page},
        {"pages", pages},
    };
    if (!data.last_update.empty())
        listings["last_update"] = data.last_update;
    return json_reply(200, json::object{{"listings", std::move(listings)}, {"stat", "ok"}});
}

ApiReply handle_jobs(UpstreamData const& data, ApiSettings const& settings, ApiRequest const& req) {
    auto const* key = req.param("api_key");
    if (!key || *key != settings.jobs_api_key)
        return aj_fail(403, 1, "Invalid API key");
    if (req.method != "GET" && req.method != "HEAD")
        return aj_fail(405, 6, "Method not allowed");
    auto const& path = req.path;
    if (path == "/api/posts/search/")
        return listings_page(data, req, true);
    if (path == "/api/posts/recent/")
        return listings_page(data, req, false);
    if (path == "/api/categories/")
        return json_reply(200, data.categories);
    if (path == "/api/tags/")
        return json_reply(200, data.tags);
    if (path.rfind("/api/posts/", 0) == 0 && path.back() == '/') {
        auto const id = path.substr(11, path.size() - 12);
        if (id.find('/') == std::string::npos && !id.empty()) {
            auto it = data.listing_index.find(id);
            if (it == data.listing_index.end())
                return aj_fail(404, 2, "No listing with that id");
            return json_reply(200, json::object{{"listing", data.listings[it->second]}, {"stat", "ok"}});
        }
    }
    return aj_fail(404, 5, "Unknown method: " + path);
}

} // namespace

// ------------------------------------------------------------------ public

std::string const* ApiRequest::param(std::string_view key) const {
    for (auto const& [k, v] : query)
        if (k == key)
            return &v;
    return nullptr;
}

Api api_of(std::string_view path) {
    if (path.rfind("/v3/", 0) == 0)
        return Api::events;
    if (path.rfind("/api/", 0) == 0)
        return Api::jobs;
    return Api::other;
}

ApiReply handle_api(UpstreamData const& data, ApiSettings const& settings, ApiRequest const& req) {
    ApiReply reply;
    switch (api_of(req.path)) {
    case Api::events:
        reply = handle_events(data, settings, req);
        // Headers the real service sent (FX-SRCH); the rate-limit numbers are fixed, the secrets never
        // echoed.
        reply.headers.emplace_back(
            "X-Rate-Limit",
            "token:REDACTED 22/2000 reset=3533s, key:REDACTED 22/2000 reset=3533s"
        );
        reply.headers.emplace_back("Allow", "GET, HEAD, OPTIONS");
        reply.headers.emplace_back("Vary", "Accept");
        reply.headers.emplace_back("Access-Control-Allow-Origin", "*");
        return reply;
    case Api::jobs:
        return handle_jobs(data, settings, req);
    case Api::other:
        break;
    }
    return eb_not_found();
}

std::string error_body(Api api, unsigned status) {
    if (api == Api::jobs)
        return json::serialize(json::object{
            {"stat", "fail"},
            {"code", static_cast<int>(status)},
            {"desc", status == 429 ? "Rate limit exceeded" : "Internal error"}});
    if (status == 429)
        return eb_error(
                   429,
                   "HIT_RATE_LIMIT",
                   "Hourly rate limit has been reached for this token. Default rate limits are 2,000 calls "
                   "per hour."
        )
            .body;
    return eb_error(status, "INTERNAL_ERROR", "An internal error occurred.").body;
}

std::shared_ptr<UpstreamData const>
load_data(std::string const& dir, Synthesis const& generate, std::string& error, bool lifecycle) {
    auto data = std::make_shared<UpstreamData>();
    auto events = read_json(dir + "/events/events.json", error);
    auto orgs = events ? read_json(dir + "/events/organizations.json", error) : std::nullopt;
    auto tickets = orgs ? read_json(dir + "/events/ticket_classes.json", error) : std::nullopt;
    auto user = tickets ? read_json(dir + "/events/user.json", error) : std::nullopt;
    auto listings = user ? read_json(dir + "/jobs/listings.json", error) : std::nullopt;
    auto categories = listings ? read_json(dir + "/jobs/categories.json", error) : std::nullopt;
    auto tags = categories ? read_json(dir + "/jobs/tags.json", error) : std::nullopt;
    if (!tags)
        return nullptr;
    try {
        for (auto const& ev : events->at("events").as_array())
            data->events.push_back(ev.as_object());
        data->organizations = orgs->at("organizations").as_array();
        data->ticket_classes = tickets->as_object();
        data->user = user->as_object();
        auto const& env = listings->at("listings").as_object();
        for (auto const& l : env.at("listing").as_array())
            data->listings.push_back(l.as_object());
        if (auto it = env.find("last_update"); it != env.end() && it->value().is_string())
            data->last_update = it->value().get_string();
        data->categories = *categories;
        data->tags = *tags;
    } catch (std::exception const& e) {
        error = dir + ": unexpected layout: " + e.what();
        return nullptr;
    }
    if (generate.events > 0) {
        if (data->events.empty() || data->organizations.empty()) {
            error = dir + ": need at least one event and organization to synthesize from";
            return nullptr;
        }
        auto org = std::string(str_at(data->organizations.at(0).as_object(), "id"));
        data->events = synthesize_events(data->events, generate.events, org, generate.description_bytes);
    }
    if (lifecycle && !data->events.empty() && !data->organizations.empty()) {
        auto org = std::string(str_at(data->organizations.at(0).as_object(), "id"));
        auto more = lifecycle_events(
            data->events.front(),
            org,
            std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())
        );
        for (auto& ev : more)
            data->events.push_back(std::move(ev));
    }
    std::stable_sort(data->events.begin(), data->events.end(), [](auto const& a, auto const& b) {
        auto const ka = nested_str(a, "start", "utc"), kb = nested_str(b, "start", "utc");
        return ka != kb ? ka < kb : str_at(a, "id") < str_at(b, "id");
    });
    std::stable_sort(data->listings.begin(), data->listings.end(), [](auto const& a, auto const& b) {
        auto const ka = str_at(a, "post_date"), kb = str_at(b, "post_date");
        return ka != kb ? ka > kb : str_at(a, "id") > str_at(b, "id");
    });
    for (std::size_t i = 0; i < data->events.size(); ++i)
        data->event_index.emplace(std::string(str_at(data->events[i], "id")), i);
    for (std::size_t i = 0; i < data->listings.size(); ++i)
        data->listing_index.emplace(std::string(str_at(data->listings[i], "id")), i);
    return data;
}

} // namespace icsbridge::test::fake
