// File: listing.cpp
// A multistatus of many items (a collection's every item, a query's matches, a multiget's hrefs) made a
// batch at a time as the socket takes it: each item's calendar-data is referenced where the collection
// holds it, so a 10,000-item answer holds one batch of its own bytes, never the whole body.
#include "dav/answer_detail.hpp"
#include "dav/props.hpp"
#include <icsbridge/body_stream.hpp>

#include <utility>

namespace icsbridge::dav::detail {

namespace {

/// Up to this many responses go out as one string: a no-change sync stays one write of a few hundred bytes.
constexpr std::size_t few = 32;
/// A batch ends once it holds this many bytes (its own and the items' it references): one chunk each.
constexpr std::size_t batch_bytes = std::size_t{256} * 1024;

class MultistatusStream final : public BodyStream {
  public:
    MultistatusStream(Step step, std::string sync_token)
        : step_(std::move(step))
        , token_(std::move(sync_token)) {}

  private:
    bool produce(std::vector<std::string_view>& parts) override {
        w_.next_batch();
        bool more = true;
        while (more && w_.pending() < batch_bytes)
            more = step_(w_);
        if (!more)
            w_.finish(token_);
        w_.parts(parts);
        return more;
    }

    MultistatusWriter w_{true};
    Step step_;
    std::string token_;
};

Tree without_feeds(Tree t) {
    t.feeds.clear();
    return t;
}

} // namespace

Response listing(Step step, std::size_t count, std::string sync_token) {
    Response r;
    r.status = 207;
    r.headers.emplace_back("Content-Type", "application/xml; charset=utf-8");
    if (count > few) {
        r.stream = std::make_shared<MultistatusStream>(std::move(step), std::move(sync_token));
        return r;
    }
    MultistatusWriter w;
    while (step(w)) {
    }
    w.finish(sync_token);
    r.body = w.take();
    return r;
}

ItemsOf::ItemsOf(Tree const& t, FeedEntry f, PropRequest p)
    : tree(without_feeds(t))
    , feed(std::move(f))
    , props(std::move(p))
    , href(collection_href(tree, feed)) {}

void ItemsOf::write(MultistatusWriter& w, Item const& item, std::string item_href) const {
    write_node(w, {Node::Kind::item, std::move(item_href), &feed, &item}, props, tree);
}

Response items_listing(
    std::shared_ptr<ItemsOf const> of,
    std::optional<CompFilter> filter,
    std::string sync_token,
    bool with_collection
) {
    std::size_t const count = of->collection().items.size() + (with_collection ? 1 : 0);
    Step step = [of, filter = std::move(filter), i = std::size_t{0}, head = with_collection](
                    MultistatusWriter& w
                ) mutable {
        auto const& items = of->collection().items;
        if (std::exchange(head, false)) {
            write_node(w, {Node::Kind::collection, of->href, &of->feed}, of->props, of->tree);
            return !items.empty();
        }
        while (i < items.size()) {
            auto const& item = items[i++];
            if (!filter || matches(*filter, item)) {
                of->write(w, item, of->href + item.name);
                break;
            }
        }
        return i < items.size();
    };
    return listing(std::move(step), count, std::move(sync_token));
}

} // namespace icsbridge::dav::detail
