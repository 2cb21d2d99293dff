// File: calendar_claims.hpp
// Which writer writes into which calendar, in one process (`icsbridge push`, or serve's push thread): two
// targets whose calendars the servers resolve to one collection or calendar id (a config cannot always
// show it: another spelling of the URL, a display name, a calendar id) are refused, the second one before
// it writes anything. Sans-io; not thread-safe (one thread owns it).
#pragma once

#include <icsbridge/error.hpp>

#include <map>
#include <string>
#include <string_view>

namespace icsbridge::push {

class CalendarClaims {
  public:
    /**
     * @brief `writer` writes into `calendar` (a collection URL or a calendar id) from now on, giving up the
     * one it claimed before; errc::config_invalid naming both writers when another one holds it. "primary"
     * (an account's main calendar, as a Google target names it) is not compared.
     */
    Result<void> claim(std::string const& writer, std::string const& calendar);
    /** @brief `writer` writes no more (its target was removed or changed). */
    void release(std::string const& writer);

  private:
    std::map<std::string, std::string> calendars_; ///< writer -> its calendar's key
};

/**
 * @brief The key two spellings of one calendar share: a URL's scheme and host in lower case, without a
 * default port, with one trailing slash; a calendar id as it is.
 */
std::string calendar_key(std::string_view calendar);

} // namespace icsbridge::push
