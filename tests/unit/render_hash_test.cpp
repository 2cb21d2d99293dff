// File: render_hash_test.cpp
// The render cache's change detection covers every model field: for each leaf field of Event and
// JobPost (found by Boost.PFR, so a field added to the model is covered without editing this file), a
// calendar rendered through a cache warmed with the item before the change equals one rendered afresh.
#include <icsbridge/ical.hpp>

#include <boost/pfr.hpp>
#include <boost/test/unit_test.hpp>

#include <functional>
#include <type_traits>

using namespace icsbridge;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(render_hash_test)

namespace {

/** @brief Calls `on_leaf(mutate)` once per leaf field reachable from `v`; `mutate` changes that leaf. */
template <class T>
void each_change(T& v, std::function<void(std::function<void()>)> const& on_leaf);

template <class T>
void each_change_of_leaf(T& v, std::function<void(std::function<void()>)> const& on_leaf) {
    if constexpr (std::is_same_v<T, std::string>)
        on_leaf([&v] { v += "x'<&>"; });
    else if constexpr (std::is_same_v<T, bool>)
        on_leaf([&v] { v = !v; });
    else if constexpr (std::is_same_v<T, double>)
        on_leaf([&v] { v += 0.5; });
    else if constexpr (std::is_integral_v<T>)
        on_leaf([&v] { v += 1; });
    else if constexpr (std::is_same_v<T, sys_seconds>)
        on_leaf([&v] { v += 1h; });
    else
        each_change(v, on_leaf);
}

template <class T>
void each_change_of_leaf(std::optional<T>& v, std::function<void(std::function<void()>)> const& on_leaf) {
    on_leaf([&v] { v.reset(); });
    if (v)
        each_change_of_leaf(*v, on_leaf);
}

template <class T>
void each_change_of_leaf(std::vector<T>& v, std::function<void(std::function<void()>)> const& on_leaf) {
    on_leaf([&v] { v.push_back(v.empty() ? T{} : v.back()); });
    for (auto& item : v)
        each_change_of_leaf(item, on_leaf);
}

template <class T>
void each_change(T& v, std::function<void(std::function<void()>)> const& on_leaf) {
    static_assert(
        std::is_aggregate_v<T>,
        "a model field of a new kind: teach each_change_of_leaf to change it"
    );
    boost::pfr::for_each_field(v, [&](auto& field) { each_change_of_leaf(field, on_leaf); });
}

/** @brief The changed copies of `item`: one per leaf field. */
template <class T>
std::vector<T> changed_copies(T const& item) {
    std::vector<T> out;
    std::size_t leaves = 0;
    T probe = item;
    each_change(probe, [&](std::function<void()> const&) { ++leaves; });
    for (std::size_t k = 0; k < leaves; ++k) {
        T copy = item;
        std::size_t i = 0;
        each_change(copy, [&](std::function<void()> const& mutate) {
            if (i++ == k)
                mutate();
        });
        out.push_back(std::move(copy));
    }
    return out;
}

sys_seconds at(int d, int h) {
    return sys_days{2026y / April / d} + hours(h);
}

Event full_event() {
    Event e;
    e.id = "7001";
    e.name = "Talk";
    e.summary = "Short";
    e.description_text = "Long text";
    e.description_html = "<p>Long <b>text</b> <a href=\"https://example.org/x\">link</a></p>";
    e.url = "https://example.org/e/7001";
    e.start = {"Europe/Berlin", {2026, 4, 10, 18, 0, 0}, at(10, 16)};
    e.end = {"Europe/Berlin", {2026, 4, 10, 20, 0, 0}, at(10, 18)};
    e.created = at(1, 9);
    e.changed = at(2, 9);
    e.published = at(3, 9);
    e.status = "live";
    e.venue = Venue{"v1", "Hall", "1 Main St, Berlin", 52.5, 13.4};
    e.organizer_name = "Org";
    e.organizer_url = "https://example.org/o";
    e.category_id = "102";
    e.is_free = false;
    e.min_price = Money{"EUR", 500, "5.00"};
    e.max_price = Money{"EUR", 1500, "15.00"};
    e.sold_out = false;
    e.ticket_classes = {TicketClass{"t1", "Standard", false, Money{"EUR", 500, "5.00"}}};
    e.currency = "EUR";
    e.series_id = "s1";
    return e;
}

JobPost full_job() {
    JobPost p;
    p.id = "j1";
    p.title = "Engineer";
    p.description_html = "<p>Build <i>things</i></p>";
    p.perks = "<ul><li>Tea</li></ul>";
    p.howto_apply = "Write to <a href=\"https://example.org/apply\">us</a>";
    p.posted = {2026, 4, 1, 9, 0, 0};
    p.category_id = "3";
    p.category = "Engineering";
    p.type_id = "1";
    p.type = "Full-time";
    p.company = "ACME";
    p.company_url = "https://acme.example.org";
    p.location = "Berlin";
    p.latitude = 52.5;
    p.longitude = 13.4;
    p.url = "https://jobs.example.org/j1";
    p.apply_url = "https://jobs.example.org/j1/apply";
    p.last_update = at(2, 9);
    return p;
}

/** @brief A render through a cache that saw `before` gives the bytes of a fresh render of `after`. */
template <class T, class Options, class Render>
void check_cache_follows_every_change(T const& item, Options const& opts, Render render) {
    CalendarMeta meta;
    meta.feed_name = "f";
    meta.uid_domain = "example.org";
    std::size_t rendered_differently = 0;
    auto const base = render(meta, std::span<T const>(&item, 1), opts, nullptr);
    BOOST_TEST_REQUIRE(base.has_value());
    auto const copies = changed_copies(item);
    for (std::size_t k = 0; k < copies.size(); ++k) {
        RenderCache cache;
        BOOST_TEST_REQUIRE(render(meta, std::span<T const>(&item, 1), opts, &cache).has_value());
        auto const fresh = render(meta, std::span<T const>(&copies[k], 1), opts, nullptr);
        auto const cached = render(meta, std::span<T const>(&copies[k], 1), opts, &cache);
        BOOST_TEST(fresh.has_value() == cached.has_value(), "leaf field " << k);
        if (fresh && cached) {
            BOOST_TEST(*fresh == *cached, "leaf field " << k << ": rendered differently but hashed the same");
            rendered_differently += *fresh != *base ? 1 : 0;
        }
    }
    // The changes are real ones: most fields reach the calendar.
    BOOST_TEST(rendered_differently * 2 > copies.size());
}

} // namespace

BOOST_AUTO_TEST_CASE(every_event_field_that_is_rendered_is_hashed) {
    for (auto cancelled : {CancelledPolicy::status, CancelledPolicy::drop}) {
        EventRenderOptions opts;
        opts.alarm = 30min;
        opts.cancelled = cancelled;
        check_cache_follows_every_change(full_event(), opts, [](auto const&... a) {
            return render_events(a...);
        });
    }
}

BOOST_AUTO_TEST_CASE(every_job_field_that_is_rendered_is_hashed) {
    for (auto as : {JobsAs::vtodo, JobsAs::vevent}) {
        JobRenderOptions opts;
        opts.jobs_as = as;
        check_cache_follows_every_change(full_job(), opts, [](auto const&... a) {
            return render_jobs(a...);
        });
    }
}

BOOST_AUTO_TEST_SUITE_END()
