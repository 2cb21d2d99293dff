// File: ical_ptr.hpp
// RAII owners for libical objects: every pointer from *_new / *_clone / *_r lives in one of these
// until it is released into a call that takes ownership (icalcomponent_add_property/_component).
#pragma once

#include <libical/ical.h>

#include <memory>
#include <string>
#include <string_view>

namespace icsbridge::ical {

struct ComponentDeleter {
    void operator()(icalcomponent* c) const noexcept { icalcomponent_free(c); }
};
struct PropertyDeleter {
    void operator()(icalproperty* p) const noexcept { icalproperty_free(p); }
};
struct ParameterDeleter {
    void operator()(icalparameter* p) const noexcept { icalparameter_free(p); }
};
struct BufferDeleter {
    void operator()(char* s) const noexcept { icalmemory_free_buffer(s); }
};

using ComponentPtr = std::unique_ptr<icalcomponent, ComponentDeleter>;
using PropertyPtr = std::unique_ptr<icalproperty, PropertyDeleter>;
using ParameterPtr = std::unique_ptr<icalparameter, ParameterDeleter>;
/** @brief A buffer returned by one of libical's `*_r` functions (caller-owned, unlike the ring buffer). */
using IcalString = std::unique_ptr<char, BufferDeleter>;

/** @brief Serialises a component (CRLF, folded, escaped by libical) and appends it to `out`. */
inline bool append_serialized(icalcomponent* c, std::string& out) {
    IcalString text(icalcomponent_as_ical_string_r(c));
    if (!text)
        return false;
    // libical 3.0 folds a property together with its own line end: when the last line fills exactly 75
    // octets the fold lands inside that CRLF, giving "\r" "\r\n " "\n" (a bare CR and a bare LF, which
    // parsers reject; one text value in 74 hits it). Values never hold a raw CR, so this is only that split.
    constexpr std::string_view split = "\r\r\n \n";
    std::string_view rest(text.get());
    for (auto at = rest.find(split); at != std::string_view::npos; at = rest.find(split)) {
        out.append(rest.substr(0, at)).append("\r\n");
        rest.remove_prefix(at + split.size());
    }
    out.append(rest);
    return true;
}

} // namespace icsbridge::ical
