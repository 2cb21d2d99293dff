# File: bench_events.sh
# The generated upstream data the push benchmarks (deploy/bench-push.sh, deploy/bench-cloud-push.sh) and the
# cluster push failover test push:
# source it after run_fixtures.sh (it uses $src and $python).

# events_dir N DIR: the fixture data with N generated events (ids 900000000000 + k, every 37 minutes from
# 2027-01-01 09:00 UTC in three zones without DST), named "Bench event #k+1 <template name>".
events_dir() {
    rm -rf "$2"
    cp -r "$src/tests/fixtures/upstream" "$2"
    $python - "$1" "$2/events/events.json" <<'PY'
import copy, datetime, json, sys
n, path = int(sys.argv[1]), sys.argv[2]
templates = json.load(open(path))["events"]
zones = [("Asia/Tokyo", 540), ("Asia/Kolkata", 330), ("Etc/UTC", 0)]
base = datetime.datetime(2027, 1, 1, 9, 0)
def at(t, off):
    return {"utc": t.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "local": (t + datetime.timedelta(minutes=off)).strftime("%Y-%m-%dT%H:%M:%S")}
out = []
for k in range(n):
    ev = copy.deepcopy(templates[k % len(templates)])
    zone, off = zones[k % 3]
    start = base + datetime.timedelta(minutes=37 * k)
    ev["id"] = str(900000000000 + k)
    name = "Bench event #%d %s" % (k + 1, ev["name"]["text"])
    ev["name"] = {"text": name, "html": name}
    ev["start"] = dict(at(start, off), timezone=zone)
    ev["end"] = dict(at(start + datetime.timedelta(hours=2), off), timezone=zone)
    ev["status"] = "live"
    ev["organization_id"] = "207140026882"
    out.append(ev)
json.dump({"events": out}, open(path, "w"))
PY
}

# rename_event DIR K TRY: event 900000000000+K is renamed "... try TRY" in DIR's events.json.
rename_event() {
    $python - "$1/events/events.json" "$((900000000000 + $2))" "$3" <<'PY'
import json, sys
path, id_, t = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(path))
for ev in d["events"]:
    if ev["id"] == id_:
        name = "Bench change %s of %s" % (t, id_)
        ev["name"] = {"text": name, "html": name}
        ev["changed"] = "2026-11-%02dT10:00:00Z" % (1 + int(t) % 28)
json.dump(d, open(path, "w"))
PY
}
