// File: item_text.cpp
// The words of a calendar item: DESCRIPTION (the upstream's text exactly, else its HTML made readable, then
// prices and the link), LOCATION, a job's summary, and URI values as iCalendar writes them.
#include "ical/item_text.hpp"

#include "ical/text.hpp"
#include "util/ascii.hpp"
#include <icsbridge/ical.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <vector>

namespace icsbridge::ical {

namespace {

// The upstream's own plain text exactly (tabs, blank lines, backslashes: only what iCalendar cannot carry is
// cleaned), or, when it sent none, the HTML made readable with its paragraph breaks.
std::string plain_description(std::string const& text, std::string const& html) {
    if (text.find_first_not_of(" \t\r\n") != std::string::npos)
        return clean_text(text);
    return clean_text(html_to_text(html));
}

// Joins non-empty sections with a blank line.
void append_section(std::string& text, std::string_view section) {
    if (section.empty())
        return;
    if (!text.empty())
        text.append("\n\n");
    text.append(section);
}

std::string format_money(Money const& m, std::string const& fallback_currency) {
    std::string value = m.major_value;
    if (value.empty()) {
        char buf[64];
        long long const minor = m.minor < 0 ? -m.minor : m.minor;
        std::snprintf(buf, sizeof buf, "%s%lld.%02lld", m.minor < 0 ? "-" : "", minor / 100, minor % 100);
        value = buf;
    }
    std::string const& currency = m.currency.empty() ? fallback_currency : m.currency;
    if (!currency.empty())
        value.append(" ").append(currency);
    return value;
}

// "Free", "From 10.00 USD", "10.00–25.00 USD", "Sold out", and one line per ticket class.
std::string price_text(Event const& e) {
    std::string text;
    if (e.is_free.value_or(false)) {
        text = "Free";
    } else if (e.min_price && e.max_price) {
        Money const& lo = *e.min_price;
        Money const& hi = *e.max_price;
        if (format_money(lo, e.currency) == format_money(hi, e.currency))
            text = format_money(lo, e.currency);
        else if (lo.currency == hi.currency)
            text = format_money(Money{"", lo.minor, lo.major_value}, "") + "\u2013" +
                   format_money(hi, e.currency);
        else
            text = format_money(lo, e.currency) + " \u2013 " + format_money(hi, e.currency);
    } else if (e.min_price) {
        text = "From " + format_money(*e.min_price, e.currency);
    } else if (e.max_price) {
        text = "Up to " + format_money(*e.max_price, e.currency);
    }
    if (e.sold_out.value_or(false))
        text.append(text.empty() ? "" : "\n").append("Sold out");
    if (!e.ticket_classes.empty()) {
        text.append(text.empty() ? "" : "\n").append("Tickets:");
        for (auto const& tc : e.ticket_classes) {
            text.append("\n\u2022 ").append(one_line(tc.name.empty() ? "Ticket" : tc.name));
            if (tc.free)
                text.append(": Free");
            else if (tc.cost)
                text.append(": ").append(format_money(*tc.cost, e.currency));
        }
    }
    return text;
}

} // namespace

// A URI value: one line, and spaces percent-encoded (libical writes URIs verbatim).
std::string uri(std::string_view in) {
    std::string const s = one_line(in);
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == ' ')
            out.append("%20");
        else if (c == '"')
            out.append("%22");
        else
            out.push_back(c);
    }
    return out;
}

std::string web_url(std::string_view in) {
    std::string out = uri(in);
    return is_web_url(out) ? out : std::string();
}

bool says_cancelled(std::string_view summary) {
    return ascii_iequals(summary.substr(0, 6), "cancel");
}

std::string location_text(std::string_view place) {
    std::string const line = one_line(place);
    std::vector<std::string_view> parts;
    std::string_view rest = line;
    while (!rest.empty()) {
        auto const comma = rest.find(',');
        std::string_view part = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        while (!part.empty() && part.front() == ' ')
            part.remove_prefix(1);
        while (!part.empty() && part.back() == ' ')
            part.remove_suffix(1);
        bool const repeated = std::any_of(parts.begin(), parts.end(), [&](std::string_view p) {
            return ascii_iequals(p, part);
        });
        if (!part.empty() && !repeated)
            parts.push_back(part);
    }
    std::string out;
    for (auto p : parts)
        out.append(out.empty() ? "" : ", ").append(p);
    return out;
}

std::string event_location(Event const& e) {
    if (e.online)
        return "Online";
    if (!e.venue)
        return {};
    std::string const name = one_line(e.venue->name);
    std::string const address = one_line(e.venue->address);
    if (name.empty() || address.starts_with(name))
        return location_text(address);
    return location_text(address.empty() ? name : name + ", " + address);
}

std::string event_description(Event const& e, std::string const& url) {
    std::string description = plain_description(e.description_text, e.description_html);
    if (description.empty())
        description = clean_text(e.summary);
    append_section(description, price_text(e));
    append_section(description, url);
    return description;
}

std::string job_summary(JobPost const& p) {
    std::string s = one_line(p.title);
    if (s.empty())
        s = "Job post";
    std::string const company = one_line(p.company);
    if (!company.empty())
        s.append(" \u2014 ").append(company);
    return s;
}

std::string job_description(JobPost const& p) {
    std::string text = plain_description({}, p.description_html);
    if (std::string const perks = clean_text(html_to_text(p.perks)); !perks.empty())
        append_section(text, "Perks: " + perks);
    if (std::string const howto = clean_text(html_to_text(p.howto_apply)); !howto.empty())
        append_section(text, "How to apply: " + howto);
    std::string flags;
    if (p.remote)
        flags.append("Remote");
    if (p.relocation)
        flags.append(flags.empty() ? "" : "\n").append("Relocation assistance");
    append_section(text, flags);
    append_section(text, web_url(p.url));
    return text;
}

} // namespace icsbridge::ical
