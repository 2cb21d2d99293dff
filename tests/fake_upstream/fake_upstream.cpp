// File: fake_upstream.cpp
// The fake upstream's sockets: a coroutine Beast server on 127.0.0.1, fault injection, gzip, the
// /__control/ endpoints and request recording. Answers come from fake_api.cpp.
#include "fake_upstream/fake_upstream.hpp"

#include "fake_upstream/fake_api.hpp"
#include "fake_upstream/gzip_cache.hpp"
#include "fake_upstream/hook_sender.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>

#include <atomic>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace icsbridge::test {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace json = boost::json;
using tcp = net::ip::tcp;

namespace {

constexpr auto use_tuple = net::as_tuple(net::use_awaitable);

struct KindName {
    Fault::Kind kind;
    std::string_view name;
};
constexpr KindName kind_names[] = {
    {Fault::none, "none"},
    {Fault::latency, "latency"},
    {Fault::status500, "status500"},
    {Fault::status503, "status503"},
    {Fault::status429, "status429"},
    {Fault::hang, "hang"},
    {Fault::reset, "reset"},
    {Fault::truncate, "truncate"},
    {Fault::malformed_json, "malformed_json"},
};

bool accepts_gzip(std::string_view accept_encoding) {
    auto const pos = accept_encoding.find("gzip");
    if (pos == std::string_view::npos)
        return false;
    auto const rest = accept_encoding.substr(pos + 4);
    auto const end = rest.find(',');
    auto const params = rest.substr(0, end);
    return params.find("q=0") == std::string_view::npos || params.find("q=0.") != std::string_view::npos;
}

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

std::string header_text(Response const& res) {
    std::ostringstream os;
    os << res.base();
    return os.str();
}

json::value recorded_to_json(RecordedRequest const& r) {
    json::array query;
    for (auto const& [k, v] : r.query)
        query.push_back(json::array{json::string(k), json::string(v)});
    return json::object{
        {"method", r.method},
        {"target", r.target},
        {"path", r.path},
        {"query", std::move(query)},
        {"authorization", r.authorization},
        {"accept_encoding", r.accept_encoding},
        {"user_agent", r.user_agent},
        {"connection_id", r.connection_id},
    };
}

} // namespace

std::optional<Fault::Kind> parse_fault_kind(std::string_view name) {
    for (auto const& kn : kind_names)
        if (kn.name == name)
            return kn.kind;
    return std::nullopt;
}

std::string_view fault_kind_name(Fault::Kind kind) {
    for (auto const& kn : kind_names)
        if (kn.kind == kind)
            return kn.name;
    return "none";
}

struct FakeUpstream::Impl {
    FakeUpstreamOptions options;
    mutable std::mutex mtx;
    std::shared_ptr<fake::UpstreamData const> data; // guarded by mtx
    Fault fault;                                    // guarded by mtx
    bool ignore_expand = false;                     // guarded by mtx
    fake::PageNumbers page_numbers{};               // guarded by mtx
    fake::ListShift shift;                          // guarded by mtx
    int list_pages = 0;                             // list pages answered since `shift` was set; mtx
    fake::GzipCache gzip;
    std::vector<RecordedRequest> recorded;          // guarded by mtx
    std::atomic<int> next_connection{1};
    unsigned short port = 0;
    // Declared last: destroyed first, so pending session frames die before the state they point to.
    std::unique_ptr<net::io_context> ioc;
    std::vector<std::thread> threads;

    // What one request should get: its normal reply and the fault in force for it.
    struct Plan {
        Response res;
        Fault fault;
        bool api = false; // an API request (counted in flight)
    };

    // API requests being answered now, and the most seen at once (tests of parallel paging).
    std::atomic<int> in_flight{0};
    std::atomic<int> max_in_flight{0};

    struct InFlight {
        Impl* im = nullptr;
        explicit InFlight(Impl* i)
            : im(i) {
            if (!im)
                return;
            int const now = ++im->in_flight;
            int seen = im->max_in_flight.load();
            while (now > seen && !im->max_in_flight.compare_exchange_weak(seen, now)) {
            }
        }
        ~InFlight() {
            if (im)
                --im->in_flight;
        }
        InFlight(InFlight const&) = delete;
        InFlight& operator=(InFlight const&) = delete;
    };

    // Caller holds mtx: the fault is taken in the same step that records the request, so a test that
    // sees its request recorded knows which fault it got.
    Fault take_fault_locked() {
        if (fault.count == 0)
            return Fault{};
        Fault f = fault;
        if (fault.count > 0 && --fault.count == 0)
            fault = Fault{};
        return f;
    }

    Response make_response(Request const& req, unsigned status, std::string body, std::string_view type) {
        Response res{static_cast<http::status>(status), req.version()};
        res.set(http::field::server, "fake-upstream");
        res.set(http::field::content_type, type);
        res.keep_alive(req.keep_alive());
        res.body() = std::move(body);
        return res;
    }

    Response control(Request const& req, boost::urls::url_view const& url) {
        auto param = [&](std::string_view key) -> std::optional<std::string> {
            for (auto p : url.params(boost::urls::encoding_opts{true, false, false}))
                if (p.key == key)
                    return p.value;
            return std::nullopt;
        };
        auto ok = [&](json::value v) {
            return make_response(req, 200, json::serialize(v), "application/json");
        };
        auto bad = [&](std::string msg) {
            return make_response(req, 400, json::serialize(json::object{{"error", msg}}), "application/json");
        };
        auto const path = std::string(url.path());
        bool const post = req.method() == http::verb::post;
        if (path == "/__control/fault" && post) {
            Fault f;
            auto kind = parse_fault_kind(param("kind").value_or("none"));
            if (!kind)
                return bad("unknown fault kind");
            f.kind = *kind;
            try {
                if (auto v = param("latency_ms"))
                    f.delay = std::chrono::milliseconds(std::stoi(*v));
                if (auto v = param("retry_after"))
                    f.retry_after_s = std::stoi(*v);
                if (auto v = param("count"))
                    f.count = std::stoi(*v);
            } catch (std::exception const&) {
                return bad("latency_ms, retry_after and count must be integers");
            }
            if (f.kind == Fault::none && f.delay.count() > 0)
                f.kind = Fault::latency;
            {
                std::lock_guard lock(mtx);
                fault = f;
            }
            return ok(json::object{{"kind", fault_kind_name(f.kind)}, {"count", f.count}});
        }
        if (path == "/__control/reload" && post) {
            auto dir = param("dir");
            if (!dir)
                return bad("dir is required");
            std::string error;
            if (!reload(*dir, error))
                return bad(error);
            return ok(json::object{{"reloaded", *dir}});
        }
        if (path == "/__control/ignore_expand" && post) {
            auto on = param("on").value_or("1");
            std::lock_guard lock(mtx);
            ignore_expand = on == "1" || on == "true";
            return ok(json::object{{"ignore_expand", ignore_expand}});
        }
        if (path == "/__control/paging" && post)
            return paging_control(req, param);
        // The service's side of a webhook: POST its hook body for an event to the subscriber's URL, as the
        // real service does when an organizer edits an event (api_url names this server's API).
        if (path == "/__control/send_hook" && post) {
            auto to = param("to");
            if (!to)
                return bad("to (the hook URL) is required");
            auto body = hook_body(
                "http://127.0.0.1:" + std::to_string(port),
                param("action").value_or("event.updated"),
                param("event").value_or("788216780592")
            );
            auto status = send_hook(*to, body, std::chrono::seconds(5));
            return ok(json::object{{"status", status}});
        }
        if (path == "/__control/requests" && req.method() == http::verb::get) {
            json::array out;
            std::lock_guard lock(mtx);
            for (auto const& r : recorded)
                out.push_back(recorded_to_json(r));
            return ok(out);
        }
        if (path == "/__control/clear_requests" && post) {
            std::lock_guard lock(mtx);
            recorded.clear();
            return ok(json::object{{"cleared", true}});
        }
        return make_response(req, 404, R"({"error":"unknown control endpoint"})", "application/json");
    }

    // POST /__control/paging?page_numbers=accept|refuse|ignore&shift_after=K&add=A&remove=R
    template <class Param>
    Response paging_control(Request const& req, Param const& param) {
        auto mode = fake::parse_page_numbers(param("page_numbers").value_or("accept"));
        if (!mode)
            return make_response(
                req,
                400,
                R"({"error":"page_numbers is accept, refuse or ignore"})",
                "application/json"
            );
        fake::ListShift s;
        try {
            s.after_pages = std::stoi(param("shift_after").value_or("-1"));
            s.add = static_cast<std::size_t>(std::stoul(param("add").value_or("0")));
            s.remove = static_cast<std::size_t>(std::stoul(param("remove").value_or("0")));
        } catch (std::exception const&) {
            return make_response(
                req,
                400,
                R"({"error":"shift_after, add and remove are integers"})",
                "application/json"
            );
        }
        std::lock_guard lock(mtx);
        page_numbers = *mode;
        shift = s;
        list_pages = 0;
        return make_response(
            req,
            200,
            json::serialize(json::object{
                {"page_numbers", fake::page_numbers_name(*mode)},
                {"shift_after", s.after_pages},
                {"add", s.add},
                {"remove", s.remove}}),
            "application/json"
        );
    }

    bool reload(std::string const& dir, std::string& error) {
        auto d = fake::load_data(
            dir,
            fake::Synthesis{options.generate_events, options.description_bytes},
            error,
            options.lifecycle
        );
        if (!d)
            return false;
        std::lock_guard lock(mtx);
        data = std::move(d);
        return true;
    }

    // Routes one request; API requests are recorded and get the fault in force.
    Plan plan(Request const& req, int connection_id) {
        auto const target = std::string(req.target());
        auto url = boost::urls::parse_origin_form(target);
        if (!url)
            return {make_response(req, 400, R"({"error":"bad request target"})", "application/json"), {}};
        auto const path = std::string(url->path());
        if (path.rfind("/__control/", 0) == 0)
            return {control(req, *url), {}};

        fake::ApiRequest api;
        api.method = std::string(req.method_string());
        api.path = path;
        for (auto p : url->params(boost::urls::encoding_opts{true, false, false}))
            api.query.emplace_back(p.key, p.value);
        api.authorization = std::string(req[http::field::authorization]);

        std::shared_ptr<fake::UpstreamData const> d;
        Fault f;
        fake::ApiSettings settings{
            options.events_token,
            options.jobs_api_key,
            options.events_page_size,
            false,
            options.now,
            {}};
        {
            std::lock_guard lock(mtx);
            d = data;
            settings.ignore_expand = ignore_expand;
            settings.paging.page_numbers = page_numbers;
            settings.paging.hidden =
                fake::hidden_by(shift, shift.after_pages >= 0 && list_pages >= shift.after_pages);
            recorded.push_back(RecordedRequest{
                api.method,
                target,
                path,
                api.query,
                api.authorization,
                std::string(req[http::field::accept_encoding]),
                std::string(req[http::field::user_agent]),
                connection_id,
            });
            f = take_fault_locked();
        }
        auto reply = fake::handle_api(*d, settings, api);
        if (reply.list_page) {
            std::lock_guard lock(mtx);
            ++list_pages;
        }
        auto res = make_response(req, reply.status, std::move(reply.body), reply.content_type);
        for (auto const& [k, v] : reply.headers)
            res.set(k, v);
        return {std::move(res), f, true};
    }

    // Applies the injected status faults, the body cut and gzip, and fixes Content-Length.
    void finish(Request const& req, Response& res, Fault const& f) {
        auto const api = fake::api_of(req.target().substr(0, req.target().find('?')));
        auto const set_error = [&](unsigned status) {
            res.result(static_cast<http::status>(status));
            res.body() = fake::error_body(api, status);
            res.set(http::field::content_type, "application/json");
        };
        switch (f.kind) {
        case Fault::status500:
            set_error(500);
            break;
        case Fault::status429:
            set_error(429);
            res.set(http::field::retry_after, std::to_string(f.retry_after_s));
            break;
        case Fault::status503:
            // What a load balancer in front of the service answers: HTML, not the API's JSON.
            res.result(http::status::service_unavailable);
            res.set(http::field::content_type, "text/html");
            res.set(http::field::retry_after, std::to_string(f.retry_after_s));
            res.body() =
                "<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this "
                "request.\n</body></html>\n";
            break;
        case Fault::malformed_json:
            res.result(http::status::ok);
            res.body().resize(res.body().size() / 2);
            break;
        default:
            break;
        }
        if (accepts_gzip(req[http::field::accept_encoding]) && !res.body().empty()) {
            // At the level web servers compress on the fly (nginx's default, 1), large answers once: the
            // fake, not the client, would otherwise be what the paging and export benchmarks measure.
            res.body() = gzip.compress(res.body());
            res.set(http::field::content_encoding, "gzip");
        }
        res.prepare_payload();
        if (req.method() == http::verb::head) {
            auto const length = res.body().size();
            res.body().clear();
            res.content_length(length);
        }
    }

    net::awaitable<void> wait_for(std::chrono::milliseconds d) {
        net::steady_timer timer(co_await net::this_coro::executor);
        timer.expires_after(d);
        co_await timer.async_wait(use_tuple);
    }

    net::awaitable<void> session(tcp::socket socket) {
        int const connection_id = next_connection++;
        beast::tcp_stream stream(std::move(socket));
        beast::flat_buffer buffer;
        for (;;) {
            http::request_parser<http::string_body> parser;
            parser.body_limit(1 << 20);
            stream.expires_after(std::chrono::seconds(120));
            auto [ec, n] = co_await http::async_read(stream, buffer, parser, use_tuple);
            if (ec)
                co_return;
            auto req = parser.release();
            auto [res, f, api] = plan(req, connection_id);
            InFlight const counted(api ? this : nullptr);
            if (f.delay.count() > 0)
                co_await wait_for(f.delay);
            if (f.kind == Fault::hang) {
                // Keep the connection open and silent until the client gives up (or the server stops).
                stream.expires_after(std::chrono::minutes(10));
                char sink[512];
                for (;;) {
                    auto [rec, rn] = co_await stream.async_read_some(net::buffer(sink), use_tuple);
                    if (rec)
                        co_return;
                }
            }
            finish(req, res, f);
            stream.expires_after(std::chrono::seconds(30));
            if (f.kind == Fault::reset || f.kind == Fault::truncate) {
                auto wire = header_text(res);
                auto const& body = res.body();
                if (f.kind == Fault::reset)
                    wire = (wire + body).substr(0, (wire.size() + body.size()) / 2);
                else
                    wire += body.substr(0, body.size() / 2);
                co_await net::async_write(stream, net::buffer(wire), use_tuple);
                // Let the partial answer reach the client before the connection dies.
                co_await wait_for(std::chrono::milliseconds(20));
                beast::error_code ignored;
                if (f.kind == Fault::reset)
                    stream.socket().set_option(net::socket_base::linger(true, 0), ignored);
                else
                    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
                stream.socket().close(ignored);
                co_return;
            }
            bool const keep_alive = res.keep_alive();
            auto [wec, wn] = co_await http::async_write(stream, res, use_tuple);
            if (wec || !keep_alive)
                break;
        }
        beast::error_code ignored;
        stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }

    net::awaitable<void> listen(tcp::acceptor& acceptor) {
        for (;;) {
            auto [ec, socket] = co_await acceptor.async_accept(use_tuple);
            if (ec) {
                if (ec == net::error::operation_aborted)
                    co_return;
                continue;
            }
            net::co_spawn(acceptor.get_executor(), session(std::move(socket)), [](std::exception_ptr e) {
                // One broken session must not take the fake down; tests see the error client-side.
                if (e)
                    try {
                        std::rethrow_exception(e);
                    } catch (std::exception const&) {
                    }
            });
        }
    }
};

FakeUpstream::FakeUpstream(FakeUpstreamOptions options)
    : impl_(std::make_unique<Impl>()) {
    auto& im = *impl_;
    im.options = std::move(options);
    im.ignore_expand = im.options.ignore_expand;
    im.page_numbers = im.options.page_numbers;
    std::string error;
    if (!im.reload(im.options.data_dir, error))
        throw std::runtime_error("fake upstream: " + error);
    int const threads = std::max(1, im.options.threads);
    im.ioc = std::make_unique<net::io_context>(threads);
    auto acceptor = std::make_shared<tcp::acceptor>(im.ioc->get_executor());
    tcp::endpoint const ep(net::ip::make_address("127.0.0.1"), im.options.port);
    acceptor->open(ep.protocol());
    acceptor->set_option(net::socket_base::reuse_address(true));
    acceptor->bind(ep);
    acceptor->listen(net::socket_base::max_listen_connections);
    im.port = acceptor->local_endpoint().port();
    net::co_spawn(
        *im.ioc,
        [&im, acceptor]() -> net::awaitable<void> { co_await im.listen(*acceptor); },
        net::detached
    );
    for (int i = 0; i < threads; ++i)
        im.threads.emplace_back([&im] { im.ioc->run(); });
}

FakeUpstream::~FakeUpstream() {
    // Stopping the context abandons hung and idle sessions; destroying it closes their sockets.
    impl_->ioc->stop();
    for (auto& t : impl_->threads)
        t.join();
    impl_->ioc.reset();
}

unsigned short FakeUpstream::port() const {
    return impl_->port;
}

std::string FakeUpstream::base_url() const {
    return "http://127.0.0.1:" + std::to_string(impl_->port);
}

void FakeUpstream::set_fault(Fault fault) {
    std::lock_guard lock(impl_->mtx);
    impl_->fault = fault;
}

Fault FakeUpstream::fault() const {
    std::lock_guard lock(impl_->mtx);
    return impl_->fault;
}

void FakeUpstream::set_ignore_expand(bool on) {
    std::lock_guard lock(impl_->mtx);
    impl_->ignore_expand = on;
}

void FakeUpstream::set_page_numbers(fake::PageNumbers mode) {
    std::lock_guard lock(impl_->mtx);
    impl_->page_numbers = mode;
}

void FakeUpstream::set_shift(fake::ListShift shift) {
    std::lock_guard lock(impl_->mtx);
    impl_->shift = shift;
    impl_->list_pages = 0;
}

std::vector<RecordedRequest> FakeUpstream::requests() const {
    std::lock_guard lock(impl_->mtx);
    return impl_->recorded;
}

void FakeUpstream::clear_requests() {
    std::lock_guard lock(impl_->mtx);
    impl_->recorded.clear();
    impl_->max_in_flight = impl_->in_flight.load();
}

int FakeUpstream::max_in_flight() const {
    return impl_->max_in_flight.load();
}

bool FakeUpstream::reload(std::string const& data_dir) {
    std::string error;
    return impl_->reload(data_dir, error);
}

} // namespace icsbridge::test
