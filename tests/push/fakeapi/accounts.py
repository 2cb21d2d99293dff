"""The fake's accounts: the persons who sign in at its authorization server, each with their own calendars.

An account is an e-mail-like login, lower-cased (as both providers treat logins). It is made the first time
someone signs in with it (login_hint or the consent page's field) or an admin endpoint puts something in it;
the provider then gives it its main calendar (google: the primary one, whose id is the e-mail; graph: the
default one, "Calendar"). The default account exists from the start: everything a client did before accounts
existed happens there. Sync tokens, page tokens and Graph's transactionIds are the account's own, so another
account's token is unknown (410 / 400) rather than a look into someone else's calendar.
"""
import collections
import re
import time

DEFAULT = "default@example.org"
LOGIN = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")


def login(text):
    """The account name of an e-mail-like login (lower-cased), or None when it is not one."""
    text = (text or "").strip()
    return text.lower() if LOGIN.fullmatch(text) else None


class PerSecond:
    """How many API requests came in each wall-clock second (UNIX time, whole seconds)."""

    def __init__(self):
        self.seconds = collections.Counter()

    def count(self):
        self.seconds[int(time.time())] += 1

    def most(self):
        return max(self.seconds.values(), default=0)

    def as_json(self):
        seconds = sorted(self.seconds.items())
        return {"max": max((n for _, n in seconds), default=0), "total": sum(n for _, n in seconds),
                "seconds": [[s, n] for s, n in seconds]}


class Account:
    def __init__(self, email):
        self.email = email
        self.calendars = {}  # id -> Calendar, in creation order
        self.sync = {}  # google sync token / graph delta token -> (calendar id, seq, extra)
        self.pages = {}  # page token / skip token -> dict of what the next page needs
        self.transactions = {}  # graph: transactionId -> (calendar id, event id)
        self.window = collections.deque()  # times of this account's API requests its quota let through
        self.reset_counts()

    def reset_counts(self):
        self.requests = 0
        self.user_quota_refused = 0
        self.per_second = PerSecond()

    def summary(self, live_grants):
        """The /_fake/accounts entry: calendars with their event counts (live, deleted), counters, live grants."""
        cals = []
        for cal in self.calendars.values():
            deleted = sum(1 for ev in cal.events.values() if ev.get("_deleted") or ev.get("status") == "cancelled")
            cals.append({"id": cal.id, "name": cal.name, "main": cal.main, "app_created": cal.app_created,
                         "events": len(cal.events) - deleted, "deleted": deleted})
        return {"account": self.email, "calendars": cals, "grants": live_grants, "requests": self.requests,
                "user_quota_refused": self.user_quota_refused, "max_per_second": self.per_second.most()}
