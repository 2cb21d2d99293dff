// File: loop_policy.cpp
// LoopPolicy: the push loop's steps (wait, ask for the lease, reconcile) as a function of what happened.
#include "push/loop_policy.hpp"

namespace icsbridge::push {

LoopPolicy::Action LoopPolicy::next(clock::time_point now) {
    if (stopping_)
        return {Action::Kind::done, {}};
    if (phase_ == Phase::lease_ours)
        return {Action::Kind::reconcile, {}};
    bool const go_on = phase_ == Phase::waited && passed_;
    phase_ = Phase::top;
    if (go_on)
        return go();
    if (!dirty_ || now < blocked_until_)
        return {Action::Kind::wait_until, dirty_ ? blocked_until_ : now + period_};
    return go();
}

LoopPolicy::Action LoopPolicy::go() {
    // The reasons so far are served by this reconcile (woken again meanwhile: one more after it).
    dirty_ = false;
    return {leased_ ? Action::Kind::ask_lease : Action::Kind::reconcile, {}};
}

void LoopPolicy::waited(clock::time_point now) {
    // Woken while a refusal's wait lasts: wait on until it is over. A period that came round: reconcile.
    passed_ = !(dirty_ && now < blocked_until_);
    phase_ = Phase::waited;
}

void LoopPolicy::lease_answered(std::chrono::milliseconds wait, clock::time_point now) {
    if (wait.count() > 0) {
        // Another replica holds the target: ask again when its lease may have ended.
        blocked_until_ = now + wait;
        dirty_ = true;
        phase_ = Phase::top;
        return;
    }
    phase_ = Phase::lease_ours;
}

void LoopPolicy::reconciled(std::optional<errc> failure, clock::time_point now) {
    if (failure && is_refusal(*failure))
        blocked_until_ = now + period_;
    phase_ = Phase::top;
}

bool LoopPolicy::is_refusal(errc e) {
    return e == errc::upstream_auth || e == errc::not_connected || e == errc::upstream_rate_limited ||
           e == errc::config_invalid || e == errc::upstream_status;
}

} // namespace icsbridge::push
