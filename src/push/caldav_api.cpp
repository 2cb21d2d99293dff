// File: caldav_api.cpp
// The CalDAV adapter: one VCALENDAR resource per UID at its own name in the collection, PUT with
// If-None-Match: * (create) or If-Match (update), DELETE with If-Match; discovery and listing are
// caldav_calendar.cpp's.
#include "push/calendar_api.hpp"

namespace icsbridge::push {

namespace net = boost::asio;

namespace {

class CalDavApi final : public CalendarApi {
  public:
    CalDavApi(net::any_io_executor ex, TargetConfig const& target, Logger log)
        : target_(target)
        , dav_(std::move(ex), target, std::move(log)) {}

    std::string calendar_identity() const override {
        return "caldav\n" + target_.url + "\n" + target_.calendar;
    }

    TargetClient& client() override { return dav_; }

    std::string_view item_form() const override { return "caldav"; }

    Result<std::vector<Resource>> shape(std::vector<Resource> resources) const override { return resources; }

    net::awaitable<Result<Collection>> find_calendar(bool create) override {
        co_return co_await push::find_calendar(dav_, target_, create);
    }

    net::awaitable<Result<ListingUpdate>> list_ours(TargetState& state) override {
        co_return co_await push::list_ours(dav_, state.collection, state.sync_token);
    }

    net::awaitable<Result<WriteAnswer>>
    write(TargetState const& state, Op const& op, Resource const* resource) override {
        auto const url = state.collection + op.name;
        Headers h;
        if (op.kind == OpKind::create)
            h.emplace_back("If-None-Match", "*");
        else if (!op.etag.empty())
            h.emplace_back("If-Match", op.etag);
        auto const method = op.kind == OpKind::remove ? "DELETE" : "PUT";
        auto sending = dav_.send(method, url, resource ? resource->body : std::string(), std::move(h));
        auto r = co_await std::move(sending);
        if (!r)
            co_return r.error();
        co_return answer_of(*r, op, method, url);
    }

    net::awaitable<Result<std::optional<std::string>>>
    version_now(TargetState const& state, std::string const& name) override {
        co_return co_await etag_now(dav_, state.collection + name);
    }

  private:
    WriteAnswer
    answer_of(HttpResponse const& r, Op const& op, std::string_view method, std::string const& url) {
        WriteAnswer a;
        if (r.status >= 200 && r.status < 300) {
            a.etag = r.header("ETag");
            return a;
        }
        if (r.status == 404 && op.kind != OpKind::create) {
            a.kind = WriteAnswer::Kind::gone;
            return a;
        }
        if (r.status == 412) {
            a.kind = WriteAnswer::Kind::conflict;
            return a;
        }
        a.why = refusal(dav_.name(), method, url, r);
        bool const target_wide =
            r.status == 401 || r.status == 403 || r.status == 429 || r.status == 507 || r.status >= 500;
        a.kind = target_wide ? WriteAnswer::Kind::stop : WriteAnswer::Kind::refused;
        return a;
    }

    TargetConfig target_;
    TargetClient dav_;
};

} // namespace

std::unique_ptr<CalendarApi> caldav_api(net::any_io_executor ex, TargetConfig const& target, Logger log) {
    return std::make_unique<CalDavApi>(std::move(ex), target, std::move(log));
}

} // namespace icsbridge::push
