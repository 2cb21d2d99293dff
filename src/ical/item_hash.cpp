// File: item_hash.cpp
// The cache hash of an event's or a job post's block: every field that reaches the block, plus the options
// and calendar meta that shape it, so equal hashes mean equal blocks.
#include "ical/item_hash.hpp"

#include "ical/render_cache.hpp"

namespace icsbridge::ical {

namespace {

// Bump when the block format changes, so a long-lived cache never mixes old and new blocks.
constexpr std::uint64_t block_format_version = 2;

void hash_zoned(ItemHasher& h, ZonedTime const& t) {
    h.add(t.timezone);
    h.add(t.utc);
    // `local` is not rendered (it is derived from utc), so it does not enter the hash.
}

void hash_money(ItemHasher& h, std::optional<Money> const& m) {
    h.add(m.has_value());
    if (m) {
        h.add(m->currency);
        h.add(m->minor);
        h.add(m->major_value);
    }
}

} // namespace

// Every Event field that reaches the block, plus the options and meta that shape it.
std::uint64_t event_hash(Event const& e, CalendarMeta const& meta, EventRenderOptions const& opts) {
    ItemHasher h;
    h.add(block_format_version);
    h.add(meta.uid_domain);
    h.add(opts.alarm ? static_cast<long long>(opts.alarm->count()) : -1LL);
    h.add(static_cast<int>(opts.cancelled));
    h.add(e.id);
    h.add(e.name);
    h.add(e.summary);
    h.add(e.description_text);
    h.add(e.description_html);
    h.add(e.url);
    hash_zoned(h, e.start);
    hash_zoned(h, e.end);
    h.add(e.created);
    h.add(e.changed);
    h.add(e.status);
    h.add(e.online);
    h.add(e.venue.has_value());
    if (e.venue) {
        h.add(e.venue->name);
        h.add(e.venue->address);
        h.add(e.venue->latitude);
        h.add(e.venue->longitude);
    }
    h.add(e.organizer_name);
    h.add(e.organizer_url);
    h.add(e.category_id);
    h.add(e.is_free);
    hash_money(h, e.min_price);
    hash_money(h, e.max_price);
    h.add(e.sold_out);
    h.add(static_cast<long long>(e.ticket_classes.size()));
    for (auto const& tc : e.ticket_classes) {
        h.add(tc.name);
        h.add(tc.free);
        hash_money(h, tc.cost);
    }
    h.add(e.currency);
    return h.value();
}

std::uint64_t job_hash(JobPost const& p, CalendarMeta const& meta, JobRenderOptions const& opts) {
    ItemHasher h;
    h.add(block_format_version);
    h.add(meta.uid_domain);
    h.add(static_cast<long long>(opts.due_after.count()));
    h.add(static_cast<int>(opts.jobs_as));
    h.add(p.id);
    h.add(p.title);
    h.add(p.description_html);
    h.add(p.perks);
    h.add(p.howto_apply);
    for (int v :
         {p.posted.year, p.posted.month, p.posted.day, p.posted.hour, p.posted.minute, p.posted.second})
        h.add(v);
    h.add(p.category);
    h.add(p.type);
    h.add(p.company);
    h.add(p.location);
    h.add(p.latitude);
    h.add(p.longitude);
    h.add(p.remote);
    h.add(p.relocation);
    h.add(p.url);
    h.add(p.apply_url);
    h.add(p.last_update);
    return h.value();
}

} // namespace icsbridge::ical
