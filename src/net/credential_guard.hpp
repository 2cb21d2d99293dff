// File: credential_guard.hpp
// Where a target's credentials may go (issue 35): every request a push target sends passes this guard
// first, so a redirect, an href, a next-page link or a state file naming another host never carries the
// password or a token there. Sans-io: URLs in, a decision out; the Public Suffix List through libpsl.
#pragma once

#include <icsbridge/error.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace icsbridge {

/** @brief The origin of an absolute http(s) URL: the host lower-cased, the default port filled in. */
struct UrlOrigin {
    std::string scheme; ///< "http" or "https"
    std::string host;   ///< lower-case, no brackets, no trailing dot
    std::string port;   ///< always given: "443" for https without one
    bool host_is_name = true;

    /** @brief scheme://host[:port] as a person writes it: the default port left out. */
    std::string text() const;
    friend bool operator==(UrlOrigin const&, UrlOrigin const&) = default;
};

/** @brief The origin of `url`; nullopt when it is no absolute http or https URL with a host. */
std::optional<UrlOrigin> origin_of(std::string_view url);

/**
 * @brief The registrable domain of a host name by the Public Suffix List ("example.co.uk" for
 * "a.example.co.uk", "icloud.com" for "p42-caldav.icloud.com"); "" for an IP address, a public suffix itself
 * or a name the list does not place.
 */
std::string registrable_domain(UrlOrigin const& origin);

/**
 * @brief Decides, for each URL, whether a target's credentials may be sent there.
 *
 * Credentials go to the home URL's origin (scheme, host, port); to https on the home's host when the home
 * is http (an upgrade); and, with Reach::registrable_domain, to any https origin under the home host's
 * registrable domain (iCloud hands out hrefs on other *.icloud.com hosts). Never from https down to http:
 * a URL named by an https answer (`from`) must be https too. Everything else is refused with an error
 * (errc::upstream_auth) naming both origins.
 */
class CredentialGuard {
  public:
    enum class Reach {
        origin,            ///< the home origin only (OAuth: the token endpoint, the API base)
        registrable_domain ///< and https hosts under the home's registrable domain (CalDAV)
    };

    /** @brief `owner` names the target in messages; `home` is its configured URL. */
    CredentialGuard(std::string owner, std::string_view home, Reach reach);

    /**
     * @brief Ok when credentials may go to `url`. `from`: the URL whose answer named `url` (a redirect's
     * or an href's base), empty when the URL is the target's own (configured or kept).
     */
    Result<void> check(std::string_view url, std::string_view from = {}) const;

    /** @brief The home origin as text ("" when the home URL is none). */
    std::string home() const { return home_ ? home_->text() : std::string(); }

  private:
    std::string owner_;
    std::optional<UrlOrigin> home_;
    std::string domain_; ///< the home host's registrable domain, when Reach::registrable_domain
};

} // namespace icsbridge
