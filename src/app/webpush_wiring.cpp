// File: webpush_wiring.cpp
// make_sender() over the registry, and send_pushes(): which publications make messages, with which token.
#include "app/webpush_wiring.hpp"

#include "webpush/address.hpp"

#include <algorithm>

namespace icsbridge::cli {

namespace {

sys_seconds now_s() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

webpush::Registrations registrations_of(std::shared_ptr<dav::PushRegistry> const& registry) {
    webpush::Registrations out;
    // In a cluster the registry reads what other replicas registered every 5 s (cli::start_upkeep, on the
    // control thread): live() here reads what it holds, never the database.
    out.live = [registry](std::string const& feed) {
        std::vector<webpush::Recipient> recipients;
        for (auto& r : registry->live(feed, now_s()))
            recipients.push_back(
                webpush::Recipient{std::move(r.id), std::move(r.push_resource), std::move(r.keys)}
            );
        return recipients;
    };
    out.still_live = [registry](std::string const& id) { return registry->find(id, now_s()).has_value(); };
    out.remove = [registry](std::string const& id) { (void)registry->remove(id); };
    return out;
}

} // namespace

std::shared_ptr<webpush::Sender> make_sender(
    Config const& cfg,
    std::shared_ptr<dav::PushRegistry> const& registry,
    webpush::VapidKey const& vapid,
    WebPushCounts& counts,
    Logger const& log
) {
    if (cfg.dav.push_allow_private)
        log.warn("[dav] push_allow_private = true: push messages may go to loopback and private addresses "
                 "and over http (for tests only)");
    // The contact a push service sees: [dav] push_subject, else an https public_url, else none (no `sub`).
    auto subject = cfg.dav.push_subject;
    if (subject.empty() && cfg.server.public_url.rfind("https://", 0) == 0)
        subject = cfg.server.public_url;
    auto opts = webpush::default_sender_options(std::move(subject), cfg.dav.push_allow_private);
    return std::make_shared<webpush::Sender>(
        std::move(opts),
        vapid,
        registrations_of(registry),
        [](boost::asio::ip::address const& a) { return webpush::is_public(a); },
        counts,
        log
    );
}

bool SendRule::sends(Publication const& p, Config const& cfg) {
    // Our own changed rebuild pays what we owe (ClusterNode::load_rows never takes up a peer's row of a
    // merged feed, so nothing else could).
    if (cluster_ && p.origin == Origin::merged && owed_.contains(p.feed))
        return p.changed && owed_.erase(p.feed) > 0;
    if (p.origin == Origin::merged)
        return p.changed && !cluster_;
    bool const own = p.changed && (p.origin == Origin::fetched || p.origin == Origin::patched);
    if (own && cluster_)
        for (auto const& f : cfg.feeds)
            if (std::find(f.merge.begin(), f.merge.end(), p.feed) != f.merge.end())
                owed_.insert(f.name);
    return own;
}

Publisher::Subscriber send_pushes(
    std::shared_ptr<webpush::Sender> sender,
    std::shared_ptr<dav::History> history,
    std::shared_ptr<dav::PushRegistry> registry,
    bool cluster,
    std::shared_ptr<LiveConfig const> config
) {
    auto rule = std::make_shared<SendRule>(cluster);
    return [sender = std::move(sender),
            history = std::move(history),
            registry = std::move(registry),
            config = std::move(config),
            rule](Publication const& p) {
        if (!rule->sends(p, *config->get()))
            return;
        auto const collection = history->collection(p.feed, p.snapshot, now_s());
        if (!collection)
            return;
        sender->changed(p.feed, registry->topic(p.feed), collection->token());
    };
}

} // namespace icsbridge::cli
