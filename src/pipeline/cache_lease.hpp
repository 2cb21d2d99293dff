// File: cache_lease.hpp
// A feed's render cache lent to one run of the pipeline for as long as the run lasts.
#pragma once

#include <icsbridge/ical.hpp>

namespace icsbridge {

/** A feed's render cache, and whether a run has it (CacheLease). */
struct CacheSlot {
    RenderCache cache;
    bool lent = false;
};

/**
 * The feed's cache, the run's alone while the lease lasts: its workers read it while the pages travel
 * and the render after the last page fills it, off the pipeline's strand. A render of the same feed
 * meanwhile (a webhook's patch) renders without a cache: the same bytes, only slower.
 */
class CacheLease {
  public:
    explicit CacheLease(CacheSlot* slot)
        : slot_(slot != nullptr && !slot->lent ? slot : nullptr) {
        if (slot_)
            slot_->lent = true;
    }
    ~CacheLease() {
        if (slot_)
            slot_->lent = false;
    }
    CacheLease(CacheLease const&) = delete;
    CacheLease& operator=(CacheLease const&) = delete;
    RenderCache* get() const { return slot_ ? &slot_->cache : nullptr; }

  private:
    CacheSlot* slot_;
};

} // namespace icsbridge
