#!/usr/bin/env bash
# File: compose_test.sh
# deploy/compose.yaml without docker (not on CI): the file parses, has the database, three replicas and
# nginx wired as the README says, names no secret, and the files it mounts hold up: the replicas' config
# passes `icsbridge check`, and nginx.conf with the compose file's own edit plus cluster/upstream.conf
# passes `nginx -t` with real nginx and balances three real replicas, skipping one that died.
#   compose_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u
bin=$1
src=$3
. "$src/tests/support/sh/serve_fixtures.sh"
test_name=compose_test
fail_logs="nginx/error.log r*.log"
nginx_test_init
/usr/bin/python3 -c 'import yaml' 2>/dev/null || { echo "FAIL: python3-yaml is not installed (deploy/install-deps.sh)" >&2; exit 1; }

# 1. The compose file: services, environment, volumes, dependencies; prints the nginx service's command.
/usr/bin/python3 - "$src/deploy" >"$work/nginx-command" <<'PY' || fail "deploy/compose.yaml: see above"
import os, re, sys, yaml
deploy = sys.argv[1]
text = open(os.path.join(deploy, "compose.yaml")).read()
doc = yaml.safe_load(text)
def check(ok, what):
    if not ok:
        sys.exit("compose.yaml: " + what)
svc = doc.get("services", {})
replicas = ["icsbridge-1", "icsbridge-2", "icsbridge-3"]
check(set(svc) == {"db", "nginx", *replicas}, "services are %s" % sorted(svc))
check(str(svc["db"].get("image", "")).startswith("postgres:15"), "db is not PostgreSQL 15")
check("healthcheck" in svc["db"], "db has no healthcheck for the replicas to wait on")
check("/var/lib/postgresql/data" in " ".join(svc["db"].get("volumes", [])), "db keeps no data volume")
env_files = set()
states = set()
for r in replicas:
    s = svc[r]
    check(s.get("build", {}).get("dockerfile") == "deploy/Dockerfile", r + " is not built from deploy/Dockerfile")
    check(s.get("depends_on", {}).get("db", {}).get("condition") == "service_healthy", r + " does not wait for db")
    env_files.add(s.get("env_file"))
    vols = s.get("volumes", [])
    check(any(v.endswith(":/etc/icsbridge/config.toml:ro") for v in vols), r + " mounts no read-only config")
    state = [v.split(":")[0] for v in vols if v.split(":")[1] == "/var/lib/icsbridge"]
    check(len(state) == 1 and state[0] in doc.get("volumes", {}), r + " has no named state volume")
    states.add(state[0])
    check(s.get("hostname") == r, r + ": its host name is its node name")
check(len(states) == 3, "the replicas share a state volume: each needs its own cache")
check(env_files == {"cluster/cluster.env"}, "the replicas take their secrets from %s" % env_files)
check(os.path.exists(os.path.join(deploy, "cluster/cluster.env.example")), "no cluster/cluster.env.example")
# Secrets only in cluster.env: no password, token or database URL with credentials in the compose file.
check(not re.search(r"(PASSWORD|TOKEN|SECRET)\s*[:=]\s*\S", text), "a secret's value is in the file")
check(not re.search(r"postgres(ql)?://[^@\s]*:[^@\s]*@", text), "a database URL with a password is in the file")
n = svc["nginx"]
check(set(n.get("depends_on", [])) == set(replicas), "nginx does not depend on the three replicas")
mounts = {v.split(":")[1]: v.split(":")[0] for v in n.get("volumes", [])}
check(mounts.get("/etc/icsbridge/nginx.conf") == "./nginx.conf", "nginx does not mount deploy/nginx.conf")
check(mounts.get("/etc/nginx/conf.d/upstream.conf") == "./cluster/upstream.conf", "nginx lacks the upstream group")
for host, mode in [(v.split(":")[0], v) for r in replicas + ["nginx"] for v in svc[r].get("volumes", [])]:
    if host.startswith("./") and "certs" not in host:
        check(os.path.exists(os.path.join(deploy, host)), "mounts a missing file " + host)
check(any(p.startswith("443:") for p in n.get("ports", [])), "nginx publishes no 443")
cmd = n.get("command", [])
check(cmd[:2] == ["/bin/sh", "-c"], "nginx's command is not a shell line")
print(cmd[2])
PY

# 2. The replicas' config is valid (its secrets from the environment, as cluster.env gives them).
ICSBRIDGE_DATABASE_URL=postgresql://icsbridge:pw@db/icsbridge EVENTS_TOKEN=t EVENTS_WEBHOOK_SECRET=0123456789abcdef0123456789abcdef \
    "$bin" check --config "$src/deploy/cluster/icsbridge.toml" >"$work/check.out" 2>&1 ||
    fail "icsbridge check rejects deploy/cluster/icsbridge.toml: $(cat "$work/check.out")"
grep -q '0.0.0.0:8080' "$src/deploy/cluster/icsbridge.toml" || fail "the replicas do not listen where nginx proxies to"

# 3. Three replicas from one snapshot (their upstream is a dead port), and nginx as compose runs it: the
# compose command's sed over nginx.conf, then the upstream group, with test ports and certificate.
mkdir -p "$work/state"
sample_snapshot "$work/state/team.snapshot" 50
ports=()
for i in 1 2 3; do
    ports+=("$(free_port)")
    mkdir -p "$work/state$i"
    cp "$work/state/team.snapshot" "$work/state$i/"
    {
        server_toml "$work/state$i" "127.0.0.1:${ports[$((i - 1))]}" 'public_url = "https://calendar.example.org"' \
            'threads = 1'
        offline_source
        offline_feed team organizer
    } >"$work/r$i.toml"
    ICSBRIDGE_LOG=info "$bin" serve --config "$work/r$i.toml" 2>"$work/r$i.log" &
    pids+=($!)
done
sed_line=$(sed -n "s/^\(sed '[^']*'\).*/\1/p" "$work/nginx-command")
[ -n "$sed_line" ] || fail "the nginx command does not start with its sed over nginx.conf"
eval "$sed_line" "$src/deploy/nginx.conf" >"$work/compose-site.conf"
[ "$(grep -c 'proxy_pass http://icsbridge_replicas;' "$work/compose-site.conf")" -ge 2 ] ||
    fail "the compose command no longer points nginx.conf's proxy_pass at the replicas"
test_cert "$work" || fail "openssl could not make a test certificate"
http_port=$(free_port)
https_port=$(free_port)
mkdir -p "$work/upstream"
sed -e "s|icsbridge-1:8080|127.0.0.1:${ports[0]}|; s|icsbridge-2:8080|127.0.0.1:${ports[1]}|; s|icsbridge-3:8080|127.0.0.1:${ports[2]}|" \
    "$src/deploy/cluster/upstream.conf" >"$work/upstream/upstream.conf"
test_nginx "$work" "$work/compose-site.conf" "$http_port" "$https_port" -- "$work/upstream/upstream.conf"
nginx -t -c "$work/nginx/nginx.conf" -p "$work/nginx" 2>"$work/nginx/t.out" || { cat "$work/nginx/t.out" >&2; fail "nginx rejects the compose setup"; }
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)

# 4. Through nginx over TLS: every request answered, by every replica in turn, with the same ETag; a
# replica killed is skipped.
url="https://calendar.example.org:$https_port/feeds/team.ics"
c=(curl -s --cacert "$work/cert.pem" --resolve "calendar.example.org:$https_port:127.0.0.1")
for _ in $(seq 1 100); do [ "$("${c[@]}" -o /dev/null -w '%{http_code}' "$url")" = 200 ] && break; sleep 0.1; done
for i in 1 2 3; do for _ in $(seq 1 50); do grep -q 'listening on' "$work/r$i.log" && break; sleep 0.1; done; done
etags=
for _ in $(seq 1 9); do
    "${c[@]}" -D "$work/h" -o /dev/null "$url"
    grep -q "^HTTP/[0-9.]* 200" "$work/h" || fail "through nginx: $(head -1 "$work/h")"
    etags="$etags $(tr -d '\r' <"$work/h" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')"
done
[ "$(echo $etags | tr ' ' '\n' | sort -u | wc -l)" = 1 ] || fail "ETags differ between replicas: $etags"
for i in 1 2 3; do
    n=$(curl -s "http://127.0.0.1:${ports[$((i - 1))]}/metrics" | sed -n 's/^icsbridge_http_requests_total{route="feed",status="200"} //p')
    [ "${n:-0}" -ge 1 ] || fail "replica $i got none of the 9 requests: nginx does not balance"
done
kill -TERM "${pids[0]}"; wait "${pids[0]}" 2>/dev/null
for _ in $(seq 1 6); do
    [ "$("${c[@]}" -o /dev/null -w '%{http_code}' "$url")" = 200 ] || fail "a request failed after replica 1 stopped"
done
echo "compose_test: ok"
