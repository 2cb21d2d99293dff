// File: plan.cpp
// plan(): the three-way comparison of feed, recorded state and calendar listing, keyed by UID, with
// ownership decided by the writer's mark in the resource name (so it survives a lost state), or for an
// earlier version's unmarked names by the state.
#include "push/plan.hpp"

#include <icsbridge/digest.hpp>

#include <algorithm>
#include <set>

namespace icsbridge::push {

std::size_t Plan::count(OpKind k) const {
    return static_cast<std::size_t>(std::count_if(ops.begin(), ops.end(), [k](Op const& o) {
        return o.kind == k;
    }));
}

std::string hex_sha256(std::string_view data) {
    return to_hex(sha256(data));
}

std::string writer_tag(std::string_view writer) {
    // 32 bits: the writers of one calendar are a handful; a clash would need tens of thousands.
    return hex_sha256(writer).substr(0, 8);
}

std::string resource_name(std::string_view uid, std::string_view writer) {
    // 128 bits: a collision between two UIDs of one feed is out of the question.
    return std::string(owned_prefix) + writer_tag(writer) + "-" + hex_sha256(uid).substr(0, 32) + ".ics";
}

bool is_owned(std::string_view name) {
    // Exactly the names resource_name() makes, and an earlier version made: "icsbridge-notes.ics", written
    // by the person, is theirs.
    if (!name.starts_with(owned_prefix) || !name.ends_with(".ics"))
        return false;
    auto const middle = name.substr(owned_prefix.size(), name.size() - owned_prefix.size() - 4);
    if (middle.size() == 32)
        return is_lower_hex(middle);
    return middle.size() == 8 + 1 + 32 && middle[8] == '-' && is_lower_hex(middle.substr(0, 8)) &&
           is_lower_hex(middle.substr(9));
}

bool written_by(std::string_view name, std::string_view writer) {
    return is_owned(name) && name.substr(owned_prefix.size()).starts_with(writer_tag(writer) + "-");
}

void name_resources(
    std::vector<Resource>& desired, std::string_view writer, Known const& known, Listing const& listing
) {
    for (auto& r : desired) {
        auto const k = known.find(r.uid);
        bool const adopted = k != known.end() && listing.contains(k->second.name) && is_owned(k->second.name);
        r.name = adopted ? k->second.name : resource_name(r.uid, writer);
    }
}

namespace {

/** The write for one wanted item, or nullopt when the calendar already holds what we last wrote. */
std::optional<Op> op_for(Resource const& r, Written const* was, Listing const& listing) {
    auto const there = listing.find(r.name);
    if (there == listing.end())
        return Op{OpKind::create, r.uid, r.name, "", r.hash};
    // Unchanged only when we know what is there: our hash, and the server's ETag still the one we saw.
    bool const ours_as_written = was && was->name == r.name && was->hash == r.hash &&
                                 (was->etag.empty() || was->etag == there->second);
    if (ours_as_written)
        return std::nullopt;
    return Op{OpKind::update, r.uid, r.name, there->second, r.hash};
}

} // namespace

Plan plan(
    std::vector<Resource> const& desired, Known const& known, Listing const& listing, std::string_view writer
) {
    Plan out;
    std::set<std::string> wanted_names;
    for (auto const& r : desired) {
        wanted_names.insert(r.name);
        auto const k = known.find(r.uid);
        if (auto op = op_for(r, k == known.end() ? nullptr : &k->second, listing))
            out.ops.push_back(std::move(*op));
        else
            ++out.unchanged;
    }
    std::set<std::string> wanted_uids;
    for (auto const& r : desired)
        wanted_uids.insert(r.uid);
    // Ours that the feed no longer has: delete what the calendar still lists, forget the rest.
    std::set<std::string> deleting;
    for (auto const& [uid, w] : known) {
        if (wanted_uids.contains(uid))
            continue;
        auto const there = listing.find(w.name);
        if (there == listing.end() || wanted_names.contains(w.name)) {
            out.forget.push_back(uid);
            continue;
        }
        out.ops.push_back(Op{OpKind::remove, uid, w.name, there->second, ""});
        deleting.insert(w.name);
    }
    // Ours that the state forgot (a lost state): the writer's mark says they are ours. Another writer's, or
    // an earlier version's that our state does not name, are not.
    for (auto const& [name, etag] : listing)
        if (written_by(name, writer) && !wanted_names.contains(name) && !deleting.contains(name))
            out.ops.push_back(Op{OpKind::remove, "", name, etag, ""});
    return out;
}

std::optional<Op> after_conflict(Op const& op, std::optional<std::string> const& etag_now) {
    Op next = op;
    if (op.kind == OpKind::remove) {
        if (!etag_now)
            return std::nullopt;
        next.etag = *etag_now;
        return next;
    }
    next.kind = etag_now ? OpKind::update : OpKind::create;
    next.etag = etag_now.value_or("");
    return next;
}

} // namespace icsbridge::push
