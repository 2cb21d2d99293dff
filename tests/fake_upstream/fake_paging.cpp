// File: fake_paging.cpp
// The events API's list paging for the fake upstream: page numbers and continuation tokens on every page,
// page numbers refused or ignored on request, and a list whose head moves while it is read.
#include "fake_upstream/fake_paging.hpp"

#include <algorithm>
#include <charconv>

namespace icsbridge::test::fake {

namespace json = boost::json;

namespace {

// The list as one answer sees it: the full list without the hidden positions [from, to).
class Visible {
  public:
    Visible(std::size_t n, Hidden h)
        : n_(n)
        , from_(std::min(h.from, n))
        , to_(std::max(from_, std::min(h.to, n))) {}

    std::size_t size() const { return n_ - (to_ - from_); }

    /** Full-list position of visible position v. */
    std::size_t full(std::size_t v) const { return v < from_ ? v : v + (to_ - from_); }

    /** Visible position of full-list position i; a hidden one resumes at the first item after the gap. */
    std::size_t visible(std::size_t i) const {
        if (i >= n_)
            return size();
        if (i < from_)
            return i;
        return i < to_ ? from_ : i - (to_ - from_);
    }

  private:
    std::size_t n_, from_, to_;
};

std::optional<int> to_int(std::string const& s) {
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    return v;
}

PageAnswer bad_page(std::string description) {
    return PageAnswer{std::nullopt, PageError{"BAD_PAGE", std::move(description)}};
}

constexpr char token_head[] = "AEtFRyiWxkr0ZXyC";
constexpr char token_tail[] = "JcnZ5U1";

} // namespace

std::optional<PageNumbers> parse_page_numbers(std::string_view name) {
    for (auto mode : {PageNumbers::accept, PageNumbers::refuse, PageNumbers::ignore})
        if (page_numbers_name(mode) == name)
            return mode;
    return std::nullopt;
}

std::string_view page_numbers_name(PageNumbers mode) {
    switch (mode) {
    case PageNumbers::refuse:
        return "refuse";
    case PageNumbers::ignore:
        return "ignore";
    case PageNumbers::accept:
        break;
    }
    return "accept";
}

Hidden hidden_by(ListShift const& shift, bool shifted) {
    if (shifted)
        return Hidden{shift.add, shift.add + shift.remove};
    return Hidden{0, shift.add};
}

// Continuation tokens are opaque to clients; this one encodes a list position plus a check, so a forged or
// mangled token is rejected the way the service does (400 BAD_CONTINUATION_TOKEN). A position, not an
// offset: items added or removed before it do not move it, as with the service's cursor.
std::string make_continuation(std::size_t index) {
    auto const v = index * 7919 + 1301;
    return token_head + std::to_string(v) + token_tail;
}

std::optional<std::size_t> parse_continuation(std::string const& token) {
    std::string_view const head = token_head, tail = token_tail;
    std::string_view const t = token;
    if (t.size() <= head.size() + tail.size() || !t.starts_with(head) || !t.ends_with(tail))
        return std::nullopt;
    auto const digits = t.substr(head.size(), t.size() - head.size() - tail.size());
    std::size_t v = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || p != digits.data() + digits.size() || v < 1301 || (v - 1301) % 7919 != 0)
        return std::nullopt;
    return (v - 1301) / 7919;
}

PageAnswer page_of_list(
    std::size_t list_size,
    int page_size,
    std::string const* page,
    std::string const* continuation,
    PagingRules const& rules
) {
    Visible const list(list_size, rules.hidden);
    auto const size = static_cast<std::size_t>(std::max(1, page_size));
    auto const count = list.size();
    int const page_count = static_cast<int>(std::max<std::size_t>(1, (count + size - 1) / size));
    std::size_t start = 0;
    if (continuation) {
        auto const at = parse_continuation(*continuation);
        if (!at)
            return PageAnswer{
                std::nullopt,
                PageError{"BAD_CONTINUATION_TOKEN", "The continuation token you provided is invalid."}};
        start = list.visible(*at);
    } else if (page && rules.page_numbers == PageNumbers::refuse) {
        return bad_page("Paging by page number is not supported here; use the continuation token.");
    } else if (page && rules.page_numbers == PageNumbers::accept) {
        auto const n = to_int(*page);
        if (!n || *n < 1 || *n > page_count)
            return bad_page("Page number does not exist or is an invalid format (e.g. negative).");
        start = static_cast<std::size_t>(*n - 1) * size;
    }
    auto const end = std::min(start + size, count);
    PageSlice out;
    for (auto v = start; v < end; ++v)
        out.items.push_back(list.full(v));
    bool const more = end < count;
    out.pagination = json::object{
        {"object_count", count},
        {"page_number", start / size + 1},
        {"page_size", size},
        {"page_count", page_count},
        {"has_more_items", more},
    };
    if (more)
        out.pagination["continuation"] = make_continuation(list.full(end));
    return PageAnswer{std::move(out), {}};
}

} // namespace icsbridge::test::fake
