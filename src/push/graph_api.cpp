// File: graph_api.cpp
// The Microsoft Graph adapter (/me/calendars). Graph picks event ids, so the state maps each of our names to
// its id; ours carry the name in a single-value extended property, and a create carries a transactionId
// derived from the name and content, so a create sent twice makes one event. The listing is a delta round
// on the calendar's view; delta answers hold no extended properties, so an id the state does not know is
// asked about (a few) or the calendar is listed in full by the property (many).
#include "push/api_json.hpp"
#include "push/calendar_api.hpp"
#include "push/event_json.hpp"
#include "push/page_trail.hpp"
#include "util/json_fields.hpp"

#include <boost/json.hpp>

#include <random>

namespace icsbridge::push {

namespace net = boost::asio;
namespace json = boost::json;

namespace {

/** Entries a page holds at most, as asked ($top, the delta rounds' Prefer): more pages than the limit loop.
 */
constexpr std::size_t a_page = 100, delta_page = 500;

/** More unknown ids than this in one delta: list ours in full instead of asking one by one. */
constexpr std::size_t most_lookups = 20;

/** Delta rounds span a fixed window: every event a feed keeps falls inside it. */
constexpr std::string_view delta_window =
    "startDateTime=2000-01-01T00:00:00Z&endDateTime=2100-01-01T00:00:00Z";

std::string owner_expand() {
    return "$expand=" +
           query_value(
               "singleValueExtendedProperties($filter=id eq '" + std::string(graph_owner_property) + "')"
           );
}

std::string owner_filter() {
    return "$filter=" + query_value(
                            "singleValueExtendedProperties/Any(ep: ep/id eq '" +
                            std::string(graph_owner_property) + "' and ep/value ne null)"
                        );
}

/** The name an event's owner property holds; "" when it has none (not ours). */
std::string owner_name(json::object const& event) {
    auto const* props = event.if_contains("singleValueExtendedProperties");
    if (!props || !props->is_array())
        return {};
    for (auto const& p : props->get_array())
        if (p.is_object() && text_or_empty(p.get_object(), "id") == graph_owner_property)
            return text_or_empty(p.get_object(), "value");
    return {};
}

std::string version_of(json::object const& event) {
    auto v = text_or_empty(event, "@odata.etag");
    return v.empty() ? text_or_empty(event, "changeKey") : v;
}

class GraphApi final : public CalendarApi {
  public:
    GraphApi(net::any_io_executor ex, TargetConfig const& target, Logger log, Authorizer auth)
        : target_(target)
        , http_(std::move(ex), target, std::move(log), std::move(auth), {}) {}

    std::string calendar_identity() const override {
        return target_.api_base + "\n" + target_.calendar + "\n" + target_.calendar_id;
    }

    TargetClient& client() override { return http_; }

    bool takes_todos(TargetState const&) const override { return true; }

    std::string_view item_form() const override { return "graph"; }

    Result<std::vector<Resource>> shape(std::vector<Resource> resources) const override {
        return as_events(std::move(resources), [](EventFields const& f, Resource const&) {
            return graph_event(f);
        });
    }

    net::awaitable<Result<Collection>> find_calendar(bool create) override {
        if (target_.calendar_id == "primary")
            co_return co_await primary_calendar();
        if (!target_.calendar_id.empty())
            co_return Collection{target_.calendar_id, true, false, false};
        std::string url = target_.api_base + "/me/calendars?$top=100";
        PageTrail trail(target_.name, "the calendar list", a_page);
        trail.first(url);
        while (!url.empty()) {
            auto page = co_await get_page(url);
            if (!page)
                co_return page.error();
            if (auto const* items = page->if_contains("value"); items && items->is_array())
                for (auto const& v : items->get_array())
                    if (v.is_object() && text_or_empty(v.get_object(), "name") == target_.calendar)
                        co_return Collection{text_or_empty(v.get_object(), "id"), true, false, false};
            url = text_or_empty(*page, "@odata.nextLink");
            if (auto go_on = url.empty() ? Result<void>{} : trail.next(url); !go_on)
                co_return go_on.error();
        }
        if (!create)
            co_return Collection{"", true, false, true};
        co_return co_await create_calendar();
    }

    net::awaitable<Result<ListingUpdate>> list_ours(TargetState& state) override {
        if (!state.sync_token.empty()) {
            auto delta = co_await delta_since(state, state.sync_token);
            if (delta || !expired_)
                co_return delta;
        }
        co_return co_await list_in_full(state);
    }

    net::awaitable<Result<WriteAnswer>>
    write(TargetState const& state, Op const& op, Resource const* resource) override {
        Headers h{{"Content-Type", "application/json; charset=utf-8"}};
        if (op.kind == OpKind::create) {
            auto const url = target_.api_base + "/me/calendars/" + path_segment(state.collection) + "/events";
            auto sending = http_.send("POST", url, create_body(op, *resource), std::move(h));
            auto r = co_await std::move(sending);
            if (!r)
                co_return r.error();
            co_return answer_of(*r, op, "POST", url);
        }
        auto const id = state.ids.find(op.name);
        if (id == state.ids.end())
            co_return WriteAnswer{WriteAnswer::Kind::gone, {}, {}, {}};
        auto const url = target_.api_base + "/me/events/" + path_segment(id->second);
        if (!op.etag.empty())
            h.emplace_back("If-Match", op.etag);
        char const* method = op.kind == OpKind::update ? "PATCH" : "DELETE";
        auto sending = http_.send(method, url, resource ? resource->body : std::string(), std::move(h));
        auto r = co_await std::move(sending);
        if (!r)
            co_return r.error();
        co_return answer_of(*r, op, method, url);
    }

    net::awaitable<Result<std::optional<std::string>>>
    version_now(TargetState const& state, std::string const& name) override {
        auto const id = state.ids.find(name);
        if (id == state.ids.end())
            co_return std::optional<std::string>();
        auto const url = target_.api_base + "/me/events/" + path_segment(id->second) + "?$select=id";
        auto sending = http_.send("GET", url);
        auto r = co_await std::move(sending);
        if (!r)
            co_return r.error();
        if (r->status == 404)
            co_return std::optional<std::string>();
        auto body = json_object_of(*r);
        if (r->status != 200 || !body)
            co_return api_refusal(target_.name, "GET", url, *r, false);
        co_return std::optional<std::string>(version_of(*body));
    }

  private:
    /** A page of a Graph list at `url` (TargetClient refuses one off api_base's origin). */
    net::awaitable<Result<json::object>> get_page(std::string const& url, Headers headers = {}) {
        auto sending = http_.send("GET", url, std::string(), std::move(headers));
        auto r = co_await std::move(sending);
        if (!r)
            co_return r.error();
        expired_ = r->status == 410;
        auto body = json_object_of(*r);
        if (r->status != 200 || !body)
            co_return api_refusal(target_.name, "GET", url, *r, false);
        co_return std::move(*body);
    }

    net::awaitable<Result<Collection>> primary_calendar() {
        auto page = co_await get_page(target_.api_base + "/me/calendar?$select=id");
        if (!page)
            co_return page.error();
        co_return Collection{text_or_empty(*page, "id"), true, false, false};
    }

    net::awaitable<Result<Collection>> create_calendar() {
        auto const url = target_.api_base + "/me/calendars";
        json::object const body{{"name", target_.calendar}};
        Headers h{{"Content-Type", "application/json; charset=utf-8"}};
        auto sending = http_.send("POST", url, json::serialize(body), std::move(h));
        auto r = co_await std::move(sending);
        if (!r)
            co_return r.error();
        auto made = json_object_of(*r);
        if ((r->status != 201 && r->status != 200) || !made || text_or_empty(*made, "id").empty())
            co_return api_refusal(target_.name, "POST", url, *r, false);
        http_.log().info("push " + target_.name + ": created the calendar \"" + target_.calendar + "\"");
        co_return Collection{text_or_empty(*made, "id"), true, true, false};
    }

    net::awaitable<Result<void>> delete_calendar(TargetState const& state) override {
        auto const url = target_.api_base + "/me/calendars/" + path_segment(state.collection);
        auto deleting = delete_calendar_at(http_, url);
        co_return co_await std::move(deleting);
    }

    /** Ours by the owner property, then a delta round for the token of the next listing. */
    net::awaitable<Result<ListingUpdate>> list_in_full(TargetState& state) {
        ListingUpdate u;
        u.full = true;
        auto const cal = target_.api_base + "/me/calendars/" + path_segment(state.collection);
        // The delta round first: whatever changes while ours are listed shows in the next round.
        std::function<void(json::object const&)> const none;
        auto rounding = delta_round(cal + "/calendarView/delta?" + std::string(delta_window), none);
        auto round = co_await std::move(rounding);
        if (!round)
            co_return round.error();
        u.sync_token = std::move(*round);
        state.ids.clear();
        std::string url = cal + "/events?$top=100&$select=id&" + owner_filter() + "&" + owner_expand();
        PageTrail trail(target_.name, "our events", a_page);
        trail.first(url);
        while (!url.empty()) {
            auto page = co_await get_page(url);
            if (!page)
                co_return page.error();
            if (auto const* items = page->if_contains("value"); items && items->is_array())
                for (auto const& v : items->get_array())
                    if (v.is_object())
                        if (auto name = owner_name(v.get_object()); is_owned(name)) {
                            state.ids[name] = text_or_empty(v.get_object(), "id");
                            u.changed[name] = version_of(v.get_object());
                        }
            url = text_or_empty(*page, "@odata.nextLink");
            if (auto go_on = url.empty() ? Result<void>{} : trail.next(url); !go_on)
                co_return go_on.error();
        }
        co_return u;
    }

    /** What changed since `link` (a deltaLink): ours by the state's ids, unknown ids looked up. */
    net::awaitable<Result<ListingUpdate>> delta_since(TargetState& state, std::string const& link) {
        std::map<std::string, std::string> name_by_id;
        for (auto const& [name, id] : state.ids)
            name_by_id[id] = name;
        ListingUpdate u;
        std::vector<std::string> unknown;
        std::function<void(json::object const&)> const seen = [&](json::object const& e) {
            auto const id = text_or_empty(e, "id");
            auto const known = name_by_id.find(id);
            if (e.contains("@removed")) {
                if (known != name_by_id.end())
                    u.removed.push_back(known->second);
            } else if (known != name_by_id.end()) {
                u.changed[known->second] = version_of(e);
            } else {
                unknown.push_back(id);
            }
        };
        auto rounding = delta_round(link, seen);
        auto round = co_await std::move(rounding);
        if (!round)
            co_return round.error();
        u.sync_token = std::move(*round);
        if (unknown.size() > most_lookups)
            co_return co_await list_in_full(state);
        for (auto const& id : unknown) {
            auto page = co_await get_page(
                target_.api_base + "/me/events/" + path_segment(id) + "?$select=id&" + owner_expand()
            );
            if (!page && page.error().code == errc::upstream_not_found)
                continue; // deleted since
            if (!page)
                co_return page.error();
            // Ours that the state never heard of: a create whose answer was lost, or a lost state.
            if (auto name = owner_name(*page); is_owned(name)) {
                state.ids[name] = id;
                u.changed[name] = version_of(*page);
            }
        }
        co_return u;
    }

    /** Follows one delta round from `url` to its deltaLink (returned), each event to `seen`. */
    net::awaitable<Result<std::string>>
    delta_round(std::string url, std::function<void(json::object const&)> const& seen) {
        PageTrail trail(target_.name, "a delta round", delta_page);
        trail.first(url);
        for (;;) {
            // Delta pages are small unless asked for more: the round after a large upload would be a
            // hundred requests or more.
            Headers prefer{{"Prefer", "odata.maxpagesize=" + std::to_string(delta_page)}};
            auto paging = get_page(url, std::move(prefer));
            auto page = co_await std::move(paging);
            if (!page)
                co_return page.error();
            if (seen)
                if (auto const* items = page->if_contains("value"); items && items->is_array())
                    for (auto const& v : items->get_array())
                        if (v.is_object())
                            seen(v.get_object());
            if (auto next = text_or_empty(*page, "@odata.nextLink"); !next.empty()) {
                if (auto go_on = trail.next(next); !go_on)
                    co_return go_on.error();
                url = std::move(next);
                continue;
            }
            auto done = text_or_empty(*page, "@odata.deltaLink");
            if (done.empty())
                co_return fail(
                    errc::upstream_malformed,
                    target_.name + ": a delta round ended without a deltaLink"
                );
            co_return done;
        }
    }

    std::string create_body(Op const& op, Resource const& resource) const {
        std::error_code ec;
        auto v = json::parse(resource.body, ec);
        json::object body = ec || !v.is_object() ? json::object{} : std::move(v.as_object());
        // Fresh for each create, the same for its retries: Graph may answer a known transactionId with the
        // event it made for it even after that was deleted. A create whose answer was lost is found by the
        // next listing instead (its owner property).
        body["transactionId"] =
            hex_sha256(op.name + ":" + op.hash + ":" + std::to_string(nonce_())).substr(0, 32);
        body["singleValueExtendedProperties"] =
            json::array{json::object{{"id", graph_owner_property}, {"value", op.name}}};
        return json::serialize(body);
    }

    WriteAnswer
    answer_of(HttpResponse const& r, Op const& op, std::string_view method, std::string const& url) {
        using Kind = WriteAnswer::Kind;
        WriteAnswer a;
        if (r.status >= 200 && r.status < 300) {
            if (auto body = json_object_of(r)) {
                a.etag = version_of(*body);
                a.id = text_or_empty(*body, "id");
            }
            return a;
        }
        if (r.status == 404 && op.kind != OpKind::create)
            a.kind = Kind::gone;
        else if (r.status == 412)
            a.kind = Kind::conflict;
        else {
            a.why = api_refusal(target_.name, method, url, r, false);
            a.kind = r.status == 400 ? Kind::refused : Kind::stop;
        }
        return a;
    }

    TargetConfig target_;
    TargetClient http_;
    bool expired_ = false; ///< the last page answered 410: the delta token is no longer known
    mutable std::mt19937_64 nonce_{std::random_device{}()};
};

} // namespace

std::unique_ptr<CalendarApi>
graph_api(net::any_io_executor ex, TargetConfig const& target, Logger log, Authorizer auth) {
    return std::make_unique<GraphApi>(std::move(ex), target, std::move(log), std::move(auth));
}

} // namespace icsbridge::push
