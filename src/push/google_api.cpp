// File: google_api.cpp
// The Google Calendar API v3 adapter. An item's event id is chosen by us from its writer and UID (the hex
// digits of its resource name: base32hex, as Google asks), so a create that lands twice answers 409 and
// never makes a second event; ours carry the private extended property icsbridge=WRITER (an earlier
// version's: icsbridge=1), beside the person's own events.
// The listing is events.list with a sync token (showDeleted: a deletion comes back as "cancelled").
#include "push/api_json.hpp"
#include "push/calendar_api.hpp"
#include "push/event_json.hpp"
#include "push/page_trail.hpp"
#include "util/json_fields.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace icsbridge::push {

namespace net = boost::asio;
namespace json = boost::json;

namespace {

/** The most entries a page holds, as asked (maxResults): a listing of more pages than the limit loops. */
constexpr std::size_t calendars_a_page = 250, events_a_page = 2500;

/** The event id of one of our resource names: its hex digits (the writer's 8, then the UID's 32). */
std::string id_of(std::string const& name) {
    std::string id;
    for (char c : std::string_view(name).substr(owned_prefix.size()))
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))
            id += c;
        else if (c == '.')
            break;
    return id;
}

/** The resource name of a Google event id we chose (40 hex digits; 32 from an earlier version); "" else. */
std::string name_of(std::string_view id) {
    std::string name = id.size() == 40 ? std::string(owned_prefix) + std::string(id.substr(0, 8)) + "-" +
                                             std::string(id.substr(8)) + ".ics"
                                       : std::string(owned_prefix) + std::string(id) + ".ics";
    return is_owned(name) ? name : std::string();
}

bool google_slow_down(HttpResponse const& r) {
    if (r.status != 403)
        return false;
    auto const reason = error_reason(r);
    return reason == "rateLimitExceeded" || reason == "userRateLimitExceeded";
}

bool is_ours(json::object const& event) {
    auto const* props = event.if_contains("extendedProperties");
    if (!props || !props->is_object())
        return false;
    auto const* priv = props->get_object().if_contains("private");
    // Any writer's (the plan tells them apart by name): "1" from an earlier version, else the writer.
    return priv && priv->is_object() && !text_or_empty(priv->get_object(), google_owner_key).empty();
}

/** One page of events.list into `u`; returns the next page's token ("" at the end). */
std::string read_page(json::object const& page, ListingUpdate& u) {
    if (auto const* items = page.if_contains("items"); items && items->is_array())
        for (auto const& v : items->get_array()) {
            if (!v.is_object())
                continue;
            auto const& e = v.get_object();
            auto const name = name_of(text_or_empty(e, "id"));
            if (name.empty())
                continue;
            if (text_or_empty(e, "status") == "cancelled") {
                u.changed.erase(name);
                u.removed.push_back(name);
            } else if (is_ours(e)) {
                u.changed[name] = text_or_empty(e, "etag");
            }
        }
    if (auto next = text_or_empty(page, "nextPageToken"); !next.empty())
        return next;
    u.sync_token = text_or_empty(page, "nextSyncToken");
    return {};
}

class GoogleApi final : public CalendarApi {
  public:
    GoogleApi(net::any_io_executor ex, TargetConfig const& target, Logger log, Authorizer auth)
        : target_(target)
        , http_(std::move(ex), target, std::move(log), std::move(auth), google_slow_down) {}

    std::string calendar_identity() const override {
        return target_.api_base + "\n" + target_.calendar + "\n" + target_.calendar_id;
    }

    TargetClient& client() override { return http_; }

    bool takes_todos(TargetState const&) const override { return true; }

    std::string_view item_form() const override { return "google"; }

    Result<std::vector<Resource>> shape(std::vector<Resource> resources) const override {
        return as_events(std::move(resources), [](EventFields const& f, Resource const&) {
            return google_shared_event(f);
        });
    }

    std::string hash_for(Resource const& shared, std::string const& name) const override {
        return hex_sha256(google_event_for(shared.body, id_of(name), target_.name));
    }

    net::awaitable<Result<Collection>> find_calendar(bool create) override {
        if (!target_.calendar_id.empty())
            co_return Collection{target_.calendar_id, true, false, false};
        std::string page;
        PageTrail trail(target_.name, "the calendar list", calendars_a_page);
        do {
            auto const url = target_.api_base + "/users/me/calendarList?maxResults=250" +
                             (page.empty() ? "" : "&pageToken=" + query_value(page));
            auto sending = http_.send("GET", url);
            auto r = co_await std::move(sending);
            if (!r)
                co_return r.error();
            auto body = json_object_of(*r);
            if (r->status != 200 || !body)
                co_return api_refusal(target_.name, "GET", url, *r, false);
            if (auto id = calendar_named(*body); !id.empty())
                co_return Collection{id, true, false, false};
            page = text_or_empty(*body, "nextPageToken");
            if (auto go_on = page.empty() ? Result<void>{} : trail.next(page); !go_on)
                co_return go_on.error();
        } while (!page.empty());
        if (!create)
            co_return Collection{"", true, false, true};
        co_return co_await create_calendar();
    }

    net::awaitable<Result<ListingUpdate>> list_ours(TargetState& state) override {
        ListingUpdate u;
        std::string token = state.sync_token;
        u.full = token.empty();
        std::string page;
        PageTrail trail(target_.name, "the calendar's events", events_a_page);
        for (;;) {
            auto const url = target_.api_base + "/calendars/" + path_segment(state.collection) +
                             "/events?maxResults=2500&showDeleted=true" +
                             (token.empty() ? "" : "&syncToken=" + query_value(token)) +
                             (page.empty() ? "" : "&pageToken=" + query_value(page));
            auto sending = http_.send("GET", url);
            auto r = co_await std::move(sending);
            if (!r)
                co_return r.error();
            if (r->status == 410 && !token.empty()) { // the token expired: everything again
                token.clear();
                page.clear();
                u = ListingUpdate{};
                u.full = true;
                trail = PageTrail(target_.name, "the calendar's events", events_a_page);
                continue;
            }
            auto body = json_object_of(*r);
            if (r->status != 200 || !body)
                co_return api_refusal(target_.name, "GET", url, *r, false);
            page = read_page(*body, u);
            if (page.empty())
                co_return u;
            if (auto go_on = trail.next(page); !go_on)
                co_return go_on.error();
        }
    }

    net::awaitable<Result<WriteAnswer>>
    write(TargetState const& state, Op const& op, Resource const* resource) override {
        auto const events = target_.api_base + "/calendars/" + path_segment(state.collection) + "/events";
        auto const url = op.kind == OpKind::create ? events : events + "/" + id_of(op.name);
        Headers h{{"Content-Type", "application/json; charset=utf-8"}};
        if (op.kind != OpKind::create && !op.etag.empty())
            h.emplace_back("If-Match", op.etag);
        char const* method = op.kind == OpKind::create   ? "POST"
                             : op.kind == OpKind::update ? "PUT"
                                                         : "DELETE";
        // The writer's parts (the event id, the owner property) go in here: the shared item has none.
        auto body = resource ? google_event_for(resource->body, id_of(op.name), target_.name) : std::string();
        auto sending = http_.send(method, url, std::move(body), std::move(h));
        auto r = co_await std::move(sending);
        if (!r)
            co_return r.error();
        co_return answer_of(*r, op, method, url);
    }

    net::awaitable<Result<std::optional<std::string>>>
    version_now(TargetState const& state, std::string const& name) override {
        auto const url =
            target_.api_base + "/calendars/" + path_segment(state.collection) + "/events/" + id_of(name);
        auto sending = http_.send("GET", url);
        auto r = co_await std::move(sending);
        if (!r)
            co_return r.error();
        if (r->status == 404 || r->status == 410)
            co_return std::optional<std::string>();
        auto body = json_object_of(*r);
        if (r->status != 200 || !body)
            co_return api_refusal(target_.name, "GET", url, *r, false);
        co_return std::optional<std::string>(text_or_empty(*body, "etag"));
    }

  private:
    std::string calendar_named(json::object const& page) const {
        auto const* items = page.if_contains("items");
        if (!items || !items->is_array())
            return {};
        for (auto const& v : items->get_array()) {
            if (!v.is_object())
                continue;
            auto const& c = v.get_object();
            auto const role = text_or_empty(c, "accessRole");
            if (text_or_empty(c, "summary") == target_.calendar && (role == "owner" || role == "writer"))
                return text_or_empty(c, "id");
        }
        return {};
    }

    net::awaitable<Result<Collection>> create_calendar() {
        auto const url = target_.api_base + "/calendars";
        json::object const body{{"summary", target_.calendar}};
        Headers h{{"Content-Type", "application/json; charset=utf-8"}};
        auto sending = http_.send("POST", url, json::serialize(body), std::move(h));
        auto r = co_await std::move(sending);
        if (!r)
            co_return r.error();
        auto made = json_object_of(*r);
        if (r->status != 200 || !made || text_or_empty(*made, "id").empty())
            co_return api_refusal(target_.name, "POST", url, *r, false);
        http_.log().info("push " + target_.name + ": created the calendar \"" + target_.calendar + "\"");
        co_return Collection{text_or_empty(*made, "id"), true, true, false};
    }

    net::awaitable<Result<void>> delete_calendar(TargetState const& state) override {
        auto const url = target_.api_base + "/calendars/" + path_segment(state.collection);
        auto deleting = delete_calendar_at(http_, url);
        co_return co_await std::move(deleting);
    }

    WriteAnswer
    answer_of(HttpResponse const& r, Op const& op, std::string_view method, std::string const& url) {
        using Kind = WriteAnswer::Kind;
        WriteAnswer a;
        if (r.status >= 200 && r.status < 300) {
            if (auto body = json_object_of(r))
                a.etag = text_or_empty(*body, "etag");
            return a;
        }
        if ((r.status == 404 || r.status == 410) && op.kind != OpKind::create)
            a.kind = Kind::gone;
        else if (r.status == 412 || (r.status == 409 && op.kind == OpKind::create))
            a.kind = Kind::conflict; // 409: the id is taken, by our own earlier create (or a deleted one)
        else {
            a.why = api_refusal(target_.name, method, url, r, google_slow_down(r));
            a.kind = r.status == 400 ? Kind::refused : Kind::stop;
        }
        return a;
    }

    TargetConfig target_;
    TargetClient http_;
};

} // namespace

std::unique_ptr<CalendarApi>
google_api(net::any_io_executor ex, TargetConfig const& target, Logger log, Authorizer auth) {
    return std::make_unique<GoogleApi>(std::move(ex), target, std::move(log), std::move(auth));
}

} // namespace icsbridge::push
