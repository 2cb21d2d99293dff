// File: redirect.hpp
// What a request to connect's loopback redirect_uri means (RFC 6749 §4.1.2, RFC 8252 §7.3), decided as
// a pure function of its method and target, and the small HTML pages the browser is answered with.
#pragma once

#include <string>
#include <string_view>

namespace icsbridge::oauth {

/** @brief One request to http://127.0.0.1:PORT/, classified. */
struct RedirectVerdict {
    enum class Kind {
        code,         ///< the sign-in's answer: `code`, with our state
        denied,       ///< the sign-in's answer: `error` (access_denied…), with our state
        wrong_state,  ///< a code or an error with a missing or different state: not from our sign-in
        not_redirect, ///< anything else (a favicon, a page reload without the query, another method)
        closed,       ///< no request: the listener was closed (a timeout)
    };
    Kind kind = Kind::not_redirect;
    std::string code;              ///< kind == code: a secret, never printed
    std::string error;             ///< kind == denied
    std::string error_description; ///< kind == denied; may be empty
    unsigned status = 400;         ///< the status the page of an ignored request is sent with
};

/**
 * @brief Classifies a request. The state is compared in constant time (digest.hpp same_secret). A
 * `code` and an `error` with a wrong state are wrong_state, whatever else they hold, so a page that
 * guesses the port can neither finish nor end someone's sign-in.
 */
RedirectVerdict classify_redirect(std::string_view method, std::string_view target, std::string_view state);

/** @brief A complete small HTML page: a heading and one paragraph, both escaped. */
std::string redirect_page(std::string_view heading, std::string_view text);

} // namespace icsbridge::oauth
