// File: convert.cpp (bench)
// The baseline `deploy/bench-export.sh` measures `icsbridge export` against: the smallest program a
// self-hoster would write instead — fetch every page of /v3/users/me/events/ over plain HTTP, parse the
// JSON, build one VEVENT per event with libical, serialize, write the file. It asks for gzip like
// icsbridge does, so both read the same bytes off the same upstream; nothing else (no retries, no
// HTML-to-text, no VTIMEZONE truncation, no folding fixes, no TLS) — that is what makes it a lower bound.
//
//   icsbridge-bench-convert http://127.0.0.1:PORT TOKEN OUTPUT.ics
//
// Deliberately not linked with icsbridge_core, so its start-up pays only for Boost.JSON, libical and zlib.
#include <boost/json.hpp>

#include <libical/ical.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>

namespace json = boost::json;

namespace {

[[noreturn]] void die(std::string const& why) {
    std::fprintf(stderr, "icsbridge-bench-convert: %s\n", why.c_str());
    std::exit(1);
}

std::string gunzip(std::string const& in) {
    z_stream zs{};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        die("inflateInit2 failed");
    std::string out;
    char buf[1 << 16];
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END)
            die("bad gzip body");
        out.append(buf, sizeof buf - zs.avail_out);
    }
    inflateEnd(&zs);
    return out;
}

/** One GET with `Connection: close`, read to EOF: the body, un-gzipped. */
std::string
get(std::string const& host, std::string const& port, std::string const& target, std::string const& token) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* ai = nullptr;
    if (getaddrinfo(host.c_str(), port.c_str(), &hints, &ai) != 0)
        die("cannot resolve " + host);
    int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0)
        die("cannot connect to " + host + ":" + port);
    freeaddrinfo(ai);
    std::string const req = "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " +
                            token + "\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n";
    if (write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size()))
        die("write failed");
    std::string resp;
    char buf[1 << 16];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
        resp.append(buf, static_cast<std::size_t>(n));
    close(fd);
    auto const head_end = resp.find("\r\n\r\n");
    if (head_end == std::string::npos || resp.compare(0, 12, "HTTP/1.1 200") != 0)
        die("bad answer to GET " + target);
    std::string const head = resp.substr(0, head_end);
    std::string body = resp.substr(head_end + 4);
    return head.find("Content-Encoding: gzip") != std::string::npos ? gunzip(body) : body;
}

std::string str(json::value const* v) {
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::string at(json::object const& o, char const* a, char const* b = nullptr) {
    json::value const* v = o.if_contains(a);
    if (b)
        v = v && v->is_object() ? v->get_object().if_contains(b) : nullptr;
    return str(v);
}

/** "2027-01-01T09:00:00" (or with Z) -> icaltimetype; zone null means floating (TZID given separately). */
icaltimetype time_of(std::string const& s, bool utc) {
    icaltimetype t = icaltime_null_time();
    if (std::sscanf(
            s.c_str(),
            "%d-%d-%dT%d:%d:%d",
            &t.year,
            &t.month,
            &t.day,
            &t.hour,
            &t.minute,
            &t.second
        ) != 6)
        return icaltime_null_time();
    if (utc)
        t.zone = icaltimezone_get_utc_timezone();
    return t;
}

icalproperty* zoned(icalproperty* p, json::object const& o, char const* key, std::set<std::string>& zones) {
    std::string const tz = at(o, key, "timezone");
    icalproperty_set_value(p, icalvalue_new_datetime(time_of(at(o, key, "local"), false)));
    icalproperty_add_parameter(p, icalparameter_new_tzid(tz.c_str()));
    zones.insert(tz);
    return p;
}

void add_event(
    icalcomponent* cal, json::object const& e, std::string const& host, std::set<std::string>& zones
) {
    icalcomponent* ev = icalcomponent_new(ICAL_VEVENT_COMPONENT);
    std::string const uid = "event-" + at(e, "id") + "@" + host;
    icalcomponent_add_property(ev, icalproperty_new_uid(uid.c_str()));
    icalcomponent_add_property(ev, icalproperty_new_dtstamp(time_of(at(e, "changed"), true)));
    icalcomponent_add_property(ev, zoned(icalproperty_new(ICAL_DTSTART_PROPERTY), e, "start", zones));
    icalcomponent_add_property(ev, zoned(icalproperty_new(ICAL_DTEND_PROPERTY), e, "end", zones));
    icalcomponent_add_property(ev, icalproperty_new_summary(at(e, "name", "text").c_str()));
    if (auto d = at(e, "description", "text"); !d.empty())
        icalcomponent_add_property(ev, icalproperty_new_description(d.c_str()));
    icalcomponent_add_property(ev, icalproperty_new_url(at(e, "url").c_str()));
    if (auto const* v = e.if_contains("venue"); v && v->is_object()) {
        std::string const loc =
            at(v->get_object(), "name") + ", " + at(v->get_object(), "address", "localized_address_display");
        icalcomponent_add_property(ev, icalproperty_new_location(loc.c_str()));
    }
    bool const cancelled = at(e, "status") == "canceled";
    icalcomponent_add_property(
        ev,
        icalproperty_new_status(cancelled ? ICAL_STATUS_CANCELLED : ICAL_STATUS_CONFIRMED)
    );
    icalcomponent_add_component(cal, ev);
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 4)
        die("usage: icsbridge-bench-convert http://HOST:PORT TOKEN OUTPUT.ics");
    std::string const base = argv[1];
    if (base.rfind("http://", 0) != 0)
        die("only http:// upstreams");
    std::string const hostport = base.substr(7);
    std::string const host = hostport.substr(0, hostport.find(':'));
    std::string const port =
        hostport.find(':') == std::string::npos ? "80" : hostport.substr(hostport.find(':') + 1);

    icalcomponent* cal = icalcomponent_new(ICAL_VCALENDAR_COMPONENT);
    icalcomponent_add_property(cal, icalproperty_new_version("2.0"));
    icalcomponent_add_property(cal, icalproperty_new_prodid("-//icsbridge//bench-convert//EN"));
    icalcomponent_add_property(cal, icalproperty_new_method(ICAL_METHOD_PUBLISH));
    std::set<std::string> zones;
    for (int page = 1, pages = 1; page <= pages; ++page) {
        std::string const target =
            "/v3/users/me/events/?status=live&expand=venue,ticket_availability,organizer" +
            (page > 1 ? "&page=" + std::to_string(page) : std::string());
        json::value const doc = json::parse(get(host, port, target, argv[2]));
        json::object const& o = doc.as_object();
        if (auto const* p = o.if_contains("pagination"); p && p->is_object())
            if (auto const* n = p->get_object().if_contains("page_count"); n && n->is_int64())
                pages = static_cast<int>(n->get_int64());
        for (auto const& e : o.at("events").as_array())
            add_event(cal, e.as_object(), host, zones);
    }
    // One VTIMEZONE per zone used, as the system tzdata describes it (UTC has none).
    for (auto const& name : zones)
        if (icaltimezone* z = icaltimezone_get_builtin_timezone(name.c_str()))
            if (icalcomponent* vtz = icaltimezone_get_component(z))
                icalcomponent_add_component(cal, icalcomponent_new_clone(vtz));

    char* text = icalcomponent_as_ical_string_r(cal);
    FILE* out = std::fopen(argv[3], "wb");
    if (!out || std::fputs(text, out) < 0 || std::fclose(out) != 0)
        die(std::string("cannot write ") + argv[3]);
    std::free(text);
    icalcomponent_free(cal);
    return 0;
}
