// File: credential_guard.cpp
// Origins by Boost.URL, registrable domains by libpsl's built-in list (Debian's libpsl carries the Public
// Suffix List of its release; no file is read and nothing is allocated per call).
#include "net/credential_guard.hpp"

#include <icsbridge/log.hpp>

#include <boost/url/parse.hpp>

#include <libpsl.h>

#include <algorithm>
#include <cctype>

namespace icsbridge {

std::string UrlOrigin::text() const {
    bool const usual = (scheme == "https" && port == "443") || (scheme == "http" && port == "80");
    std::string const shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return scheme + "://" + shown + (usual ? std::string() : ":" + port);
}

std::optional<UrlOrigin> origin_of(std::string_view url) {
    auto u = boost::urls::parse_uri(url);
    if (!u)
        return std::nullopt;
    auto const scheme = u->scheme_id();
    if (scheme != boost::urls::scheme::http && scheme != boost::urls::scheme::https)
        return std::nullopt;
    UrlOrigin o;
    o.scheme = scheme == boost::urls::scheme::https ? "https" : "http";
    o.host_is_name = u->host_type() == boost::urls::host_type::name;
    o.host = u->host_type() == boost::urls::host_type::ipv6 ? u->encoded_host_address().decode()
                                                            : std::string(u->host_address());
    std::transform(o.host.begin(), o.host.end(), o.host.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    // "dav.example." and "dav.example" are one host.
    if (o.host_is_name && o.host.ends_with('.'))
        o.host.pop_back();
    if (o.host.empty())
        return std::nullopt;
    o.port =
        u->has_port() && !u->port().empty() ? std::string(u->port()) : (o.scheme == "https" ? "443" : "80");
    // "0443" is port 443 too.
    o.port.erase(0, std::min(o.port.find_first_not_of('0'), o.port.size() - 1));
    return o;
}

std::string registrable_domain(UrlOrigin const& origin) {
    if (!origin.host_is_name)
        return {};
    psl_ctx_t const* list = psl_builtin();
    if (!list)
        return {};
    char const* domain = psl_registrable_domain(list, origin.host.c_str());
    return domain ? std::string(domain) : std::string();
}

CredentialGuard::CredentialGuard(std::string owner, std::string_view home, Reach reach)
    : owner_(std::move(owner))
    , home_(origin_of(home)) {
    if (home_ && reach == Reach::registrable_domain)
        domain_ = registrable_domain(*home_);
}

Result<void> CredentialGuard::check(std::string_view url, std::string_view from) const {
    if (!home_)
        return fail(
            errc::upstream_auth,
            owner_ + ": the target has no http or https URL to send credentials to"
        );
    auto const to = origin_of(url);
    if (!to)
        return fail(
            errc::upstream_auth,
            owner_ + ": refusing to send the credentials for " + home_->text() + " to " +
                loggable(redact_url(url), 200) + ", which is no http or https URL"
        );
    auto const by = origin_of(from);
    bool const downgrade = by && by->scheme == "https" && to->scheme == "http";
    bool const same = *to == *home_;
    bool const upgrade = home_->scheme == "http" && to->scheme == "https" && to->host == home_->host;
    bool const sibling = to->scheme == "https" && !domain_.empty() && registrable_domain(*to) == domain_;
    if (!downgrade && (same || upgrade || sibling))
        return Result<void>{};
    std::string const why =
        downgrade ? "named by " + by->text() + " over https: never down to plain http" : "another origin";
    return fail(
        errc::upstream_auth,
        owner_ + ": refusing to send the credentials for " + home_->text() + " to " + to->text() + " (" +
            why + "): they go only to the target's own origin" +
            (domain_.empty() ? std::string() : " or over https to hosts under " + domain_) +
            "; nothing was sent there"
    );
}

} // namespace icsbridge
