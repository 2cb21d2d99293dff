"""Loaded by the push tests' Radicale only (PYTHONPATH, see tests/push/radicale.sh): works around a deadlock
in Debian 12's python3-dateutil 2.8.2 that hangs Radicale 3.1.8 request threads under concurrent PUTs.

rrulebase._iter_cached takes the cache lock and leaves by `break` still holding it when the rule's cache is
complete (whether this thread completed it or found it completed). vobject shares one tzinfo, and so one
rrule, per TZID between requests, so two concurrent PUTs carrying the same VTIMEZONE can leave one Radicale
thread blocked on that lock for good (seen: a PUT that never answers, a Radicale that never exits on
SIGTERM; faulthandler stack in dateutil/rrule.py _iter_cached). The same as dateutil's, with the lock
released on the way out.
"""
import os

if os.environ.get("RADICALE_UNPATCHED") != "1":
    try:
        from dateutil import rrule as _rrule
    except ImportError:
        _rrule = None

    def _iter_cached(self):
        i = 0
        gen = self._cache_gen
        cache = self._cache
        while gen:
            if i == len(cache):
                with self._cache_lock:
                    if self._cache_complete:
                        break
                    try:
                        for _ in range(10):
                            cache.append(next(gen))
                    except StopIteration:
                        self._cache_gen = gen = None
                        self._cache_complete = True
                        break
            yield cache[i]
            i += 1
        while i < self._len:
            yield cache[i]
            i += 1

    if _rrule is not None and hasattr(_rrule.rrulebase, "_iter_cached"):
        _rrule.rrulebase._iter_cached = _iter_cached
