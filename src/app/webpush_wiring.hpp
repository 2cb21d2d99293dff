// File: webpush_wiring.hpp
// WebDAV-Push's delivery side in `serve`, wired here because it joins the dav (the registry and the change
// history), webpush (the sender) and publish rooms: the sender over the registry, and the one subscriber of
// publications that tells it of each change of a collection.
#pragma once

#include "dav/push_registry.hpp"
#include "webpush/sender.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/dav.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/publish.hpp>

#include <memory>

namespace icsbridge::cli {

/**
 * @brief The sender of messages to `registry`'s registrations, signing with `vapid` as `[dav] push_subject`,
 * under the address rules unless `[dav] push_allow_private`. `counts` must outlive it.
 */
std::shared_ptr<webpush::Sender> make_sender(
    Config const& cfg,
    std::shared_ptr<dav::PushRegistry> const& registry,
    webpush::VapidKey const& vapid,
    WebPushCounts& counts,
    Logger const& log
);

/**
 * @brief Which publications of a collection this process tells its registrations of: every change it made
 * itself (a refresh, a webhook's patch, a merged feed's rebuild), never a snapshot loaded at start. In a
 * cluster every replica publishes each change, the lease holder that fetched it and the others when they
 * adopt its row: only the lease holder sends, so each message goes once (after it dies mid-send, a second
 * replica's refresh may send it again, which a client takes as one more sync). A merged feed is rebuilt
 * from its parts on every replica: its rebuild is ours when the part's publication just before it was.
 * Sans-io; told of every publication in their order (the Publisher runs its subscribers one at a time).
 */
class SendRule {
  public:
    explicit SendRule(bool cluster)
        : cluster_(cluster) {}
    /** @brief Whether `p` makes messages. */
    bool sends(Publication const& p);

  private:
    bool cluster_;
    bool last_part_own_ = false; ///< the last publication that was no merged feed's was this replica's
};

/**
 * @brief The Publisher's subscriber that hands each change of a collection to `sender`, with the collection's
 * topic and its new sync-token from `history` (which must have subscribed before it: the token is the one
 * its subscriber recorded), for the publications SendRule(cluster) lets through.
 */
Publisher::Subscriber send_pushes(
    std::shared_ptr<webpush::Sender> sender,
    std::shared_ptr<dav::History> history,
    std::shared_ptr<dav::PushRegistry> registry,
    bool cluster
);

} // namespace icsbridge::cli
