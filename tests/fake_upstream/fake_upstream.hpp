// File: fake_upstream.hpp
// A real HTTP server on 127.0.0.1 speaking the events API (v3) and the job board API from JSON fixtures,
// with scriptable faults; integration tests run it in-process, the demo and benchmarks as an executable.
#pragma once

#include "fake_upstream/fake_paging.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge::test {

/** @brief A misbehaviour applied to API requests (never to /__control/). */
struct Fault {
    enum Kind {
        none,
        latency,        ///< answer normally after `delay`
        status500,      ///< 500 with the API's error body
        status503,      ///< 503 with an HTML body (a load balancer) and Retry-After
        status429,      ///< 429 with HIT_RATE_LIMIT / fail body and Retry-After
        hang,           ///< read the request, never answer, until the client closes or the server stops
        reset,          ///< send part of the response, then RST (SO_LINGER 0 + close)
        truncate,       ///< Content-Length larger than the body actually sent, then close
        malformed_json, ///< 200 with a cut-off JSON body
    } kind = none;
    /// Added before answering; combines with every kind. (Not named `latency`: that is the enumerator above.)
    std::chrono::milliseconds delay{0};
    int retry_after_s = 1; ///< Retry-After for 429/503
    int count = -1;        ///< how many API requests it applies to (0: none); -1 = until changed
};

/** @brief "status500" -> Fault::status500; nullopt for an unknown name. */
std::optional<Fault::Kind> parse_fault_kind(std::string_view name);
/** @brief The name parse_fault_kind() accepts. */
std::string_view fault_kind_name(Fault::Kind kind);

/** @brief One API request as the fake upstream saw it (control requests are not recorded). */
struct RecordedRequest {
    std::string method;
    std::string target;                                     ///< as sent, percent-encoded, with the query
    std::string path;                                       ///< decoded path
    std::vector<std::pair<std::string, std::string>> query; ///< decoded, in order
    std::string authorization;                              ///< the Authorization header, verbatim
    std::string accept_encoding;                            ///< the Accept-Encoding header, verbatim
    std::string user_agent;                                 ///< the User-Agent header, verbatim
    int connection_id = 0; ///< 1, 2, ... per accepted TCP connection (to observe keep-alive)
};

struct FakeUpstreamOptions {
    std::string data_dir = std::string(ICSBRIDGE_FIXTURES_DIR) + "/upstream";
    std::string events_token = "demo-events-token";
    std::string jobs_api_key = "demo-jobs-key";
    int events_page_size = 10;  ///< default page size of the events lists (page_size overrides it)
    bool ignore_expand = false; ///< lists never carry expansions, like a service that drops `expand`
    int generate_events = 0;    ///< >0: synthesize this many events instead of the fixture list
    int description_bytes = 0;  ///< >0: generated events get HTML descriptions of about this size
    fake::PageNumbers page_numbers = fake::PageNumbers::accept; ///< what `page=N` gets on events lists
    bool lifecycle = false; ///< add the events of lifecycle.hpp, dated around the time of loading
    /// The fake's clock for time_filter (tests that pass a fixed `now` to the client); empty: the real one.
    std::optional<std::chrono::sys_seconds> now;
    int threads = 1;
    unsigned short port = 0; ///< 0: any free port
};

/**
 * @brief The fake upstream server. Starts listening in the constructor (throws if the data cannot be
 * loaded or the port cannot be bound) and serves from its own thread(s) until destroyed.
 * All members are thread-safe.
 */
class FakeUpstream {
  public:
    explicit FakeUpstream(FakeUpstreamOptions options = {});
    ~FakeUpstream();
    FakeUpstream(FakeUpstream const&) = delete;
    FakeUpstream& operator=(FakeUpstream const&) = delete;

    unsigned short port() const;
    /** @brief "http://127.0.0.1:PORT" (no trailing slash; the events client adds /v3). */
    std::string base_url() const;

    void set_fault(Fault fault);
    Fault fault() const;
    void set_ignore_expand(bool on);
    /** @brief What `page=N` gets on events lists from now on. */
    void set_page_numbers(fake::PageNumbers mode);
    /** @brief Moves the head of every events list after `shift.after_pages` more list pages (see ListShift).
     */
    void set_shift(fake::ListShift shift);
    std::vector<RecordedRequest> requests() const;
    /** @brief Forgets the recorded requests and the most in flight. */
    void clear_requests();
    /** @brief The most API requests that were being answered at once (since the last clear_requests). */
    int max_in_flight() const;
    /** @brief Loads another data directory (same layout); on failure keeps the current data and returns
     * false. */
    bool reload(std::string const& data_dir);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace icsbridge::test
