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
#include <set>
#include <string>

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
 * replica's refresh may send it again, which a client takes as one more sync).
 *
 * A merged feed is rebuilt from its parts on every replica, and its publication comes later than the part's
 * that set it off (the Publisher queues it; other feeds' publications may run in between). So a replica's own
 * change of a part makes it owe one message to each merged feed the part is in, paid by that merged feed's
 * next changed publication, its own rebuild (ClusterNode::load_rows never takes up a peer's row of a merged
 * feed); a rebuild nobody here owes (its part was adopted) sends nothing. In the normal
 * case exactly one replica, the part's lease holder, sends each change of a merged feed. A part's own change
 * that leaves the merge the same (its filter drops it) stays owed, so a later change may go out twice: a
 * client takes that as one more sync, where a rule that could forget would lose one.
 * Sans-io; told of every publication in their order (the Publisher runs its subscribers one at a time), with
 * the config in force.
 */
class SendRule {
  public:
    explicit SendRule(bool cluster)
        : cluster_(cluster) {}
    /** @brief Whether `p` makes messages; `cfg` says which merged feeds a part is in. */
    bool sends(Publication const& p, Config const& cfg);

  private:
    bool cluster_;
    std::set<std::string, std::less<>> owed_; ///< merged feeds one of whose parts this replica changed
};

/**
 * @brief The Publisher's subscriber that hands each change of a collection to `sender`, with the collection's
 * topic and its new sync-token from `history` (which must have subscribed before it: the token is the one
 * its subscriber recorded), for the publications SendRule(cluster) lets through under `config`'s feeds.
 */
Publisher::Subscriber send_pushes(
    std::shared_ptr<webpush::Sender> sender,
    std::shared_ptr<dav::History> history,
    std::shared_ptr<dav::PushRegistry> registry,
    bool cluster,
    std::shared_ptr<LiveConfig const> config
);

} // namespace icsbridge::cli
