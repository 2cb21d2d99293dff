// File: refresh_loop.cpp
// RefreshLoop: a wait that hooks shorten or fill with patches, the turn, and the backoff after failures.
#include "refresh/refresh_loop.hpp"

#include <algorithm>

namespace icsbridge {

RefreshLoop::Action RefreshLoop::nap(clock::duration d, clock::time_point now) {
    nap_until_ = now + d;
    return woke(now);
}

RefreshLoop::Action RefreshLoop::woke(clock::time_point now) {
    auto const hooked = schedule_.next();
    auto const target = hooked ? std::min(nap_until_, *hooked) : nap_until_;
    if (now < target)
        return {Action::wait, target};
    // Events hooks named are read while the wait goes on; a refresh that is due reads them anyway.
    if (schedule_.patches_due(now) && now < nap_until_)
        return {Action::patch};
    return {policy_.leased ? Action::ask_lease : Action::refresh};
}

RefreshLoop::Action RefreshLoop::lease(clock::duration not_yet, clock::time_point now) {
    if (not_yet <= clock::duration::zero())
        return {Action::refresh};
    // Another replica's turn: its publish reaches us through the database; a webhook that woke us is its
    // business too, and left set it would end every wait at once.
    schedule_.forget();
    return nap(not_yet, now);
}

RefreshLoop::Action RefreshLoop::refreshed(bool ok, clock::time_point now) {
    clock::duration const refresh = policy_.refresh;
    clock::duration wait;
    if (ok) {
        backoff_ = policy_.retry_initial;
        wait = policy_.jitter ? policy_.jitter(policy_.refresh) : refresh;
    } else {
        wait = std::min(backoff_, refresh);
        backoff_ = std::min(backoff_ * 2, refresh);
    }
    return nap(wait, now);
}

} // namespace icsbridge
