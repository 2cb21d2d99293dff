// File: push_client.hpp
// The wire under delivery: one POST to a push resource under the rules that keep a registration from
// making the server POST into the operator's network. https only (http too with allow_private, for tests);
// the host resolved once and EVERY address it has checked; the connection made to those checked addresses
// (no second lookup); TLS with SNI and verification as every client here; a deadline on every wait; no
// redirect followed (a 3xx is just an answer). Connections are kept alive per push-service origin.
#pragma once

#include "net/connection_pool.hpp"
#include "webpush/delivery.hpp"
#include "webpush/message.hpp"
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/net.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/address.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>

namespace icsbridge::webpush {

/** @brief Whether an address is public (no loopback, private, link-local, CGNAT, ULA, IPv4-mapped…). */
using AddressRule = std::function<bool(boost::asio::ip::address const&)>;

/** @brief A push message ready for the wire: where it goes, and the request's bytes (head and body). */
struct PreparedPush {
    net_detail::Target target; ///< the push resource, parsed
    std::string bytes; ///< the whole request; its body is ciphertext and its head holds the VAPID token
};

/**
 * @brief Sends push messages, one attempt each (retries are delivery's: they wait in its schedule, not
 * here). Only touched on one thread: the sender's.
 */
class PushClient {
  public:
    /**
     * @param opts timeouts, the per-origin connection limit (max_concurrency), the answer's size limit;
     *   its tls_contexts and lookups are shared by every origin
     * @param is_public the address rule; with `allow_private` every address and http are allowed (tests)
     */
    PushClient(ClientOptions opts, AddressRule is_public, bool allow_private, Logger log);
    ~PushClient();
    PushClient(PushClient const&) = delete;
    PushClient& operator=(PushClient const&) = delete;

    /**
     * @brief POSTs `req` once: the push service's answer (its status, its Retry-After), or why none came:
     * errc::usage for a push resource the address rules refuse (no retry cures that), upstream_resolve,
     * upstream_connect, upstream_tls, upstream_timeout or upstream_io for the network. Messages name the
     * origin, never the push resource's path (its capability) or a header.
     */
    boost::asio::awaitable<Result<Answer>> post(PushRequest const& req);

    /**
     * @brief What post() sends for `req`: the push resource parsed and checked for its scheme, the request
     * formatted once (Host, User-Agent, `req`'s headers, Content-Length, the body). Thread-safe (it reads
     * only the options): the sender formats on its encryption threads. errc::usage as post(), and for a
     * header with a line break.
     */
    Result<PreparedPush> prepare(PushRequest const& req) const;

    /** @brief post() of a prepared request: one write of its bytes, the same rules and answers. */
    boost::asio::awaitable<Result<Answer>> post(PreparedPush const& req);

  private:
    struct Origin;
    Origin& origin(std::string const& key);
    boost::asio::awaitable<Result<Answer>>
    attempt(Origin& o, PreparedPush const& req, net_detail::AttemptState& st);
    boost::asio::awaitable<Result<std::shared_ptr<net_detail::Connection>>>
    open_checked(Origin& o, net_detail::Target const& t, net_detail::AttemptState& st);

    ClientOptions opts_;
    AddressRule is_public_;
    bool allow_private_;
    Logger log_;
    std::map<std::string, std::unique_ptr<Origin>> origins_; ///< by scheme://host:port
};

} // namespace icsbridge::webpush
