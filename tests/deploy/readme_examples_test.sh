#!/usr/bin/env bash
# File: readme_examples_test.sh
# The README's and the man pages' command examples are run as written (issue 40, item 2), against the fake
# upstream with the README's own config (tests/python/readme_examples.py has the substitution rule); a
# block that cannot run here carries "Not run by the test suite: REASON." under it. Planted blocks must be
# caught, so the check cannot pass by running nothing: an unmarked `systemctl` block, a wrong example (the
# jobs key left out), while the same wrong example marked as not run passes.
#   readme_examples_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -uo pipefail
bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=readme_examples
fail_logs="out"
init_work
check="$src/tests/python/readme_examples.py"

/usr/bin/python3 "$check" "$bin" "$fake" "$src" >"$work/out" 2>&1 || fail "an example does not work as written (above)"
cat "$work/out"
grep -q "README.md:[0-9]*: EVENTS_TOKEN=... icsbridge export --config config.toml --feed my-events .*: ok" "$work/out" ||
    fail "the README's export example was not run"

# A document of the README's config and three planted blocks.
awk '/^```toml$/ { on = 1 } on { print } on && /^```$/ { exit }' "$src/README.md" >"$work/planted.md"
cat >>"$work/planted.md" <<'MD'

```sh
sudo systemctl restart icsbridge
```

```sh
icsbridge categories --config config.toml --source jobs
```

```sh
icsbridge tags --config config.toml --source jobs
```

*Not run by the test suite: planted, wrong on purpose.*
MD
/usr/bin/python3 "$check" "$bin" "$fake" "$src" --doc "$work/planted.md" >"$work/out" 2>&1 &&
    fail "the planted blocks passed"
grep -qF "sudo systemctl restart icsbridge: FAIL: runs systemctl, which the suite does not run here: mark the block" "$work/out" ||
    fail "an unmarked systemctl block was not caught"
grep -qF "icsbridge categories --config config.toml --source jobs: FAIL: exited 2: config.toml:" "$work/out" ||
    fail "an example that fails as written was not caught"
grep -q "JOBS_API_KEY (api_key_env of \[sources.jobs\]) is not set" "$work/out" || fail "the failure does not say why"
grep -qF "not run: planted, wrong on purpose" "$work/out" || fail "a marked block was run or not reported"
echo "readme_examples: ok"
