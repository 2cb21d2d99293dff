#!/usr/bin/env bash
# File: package_test.sh
# The Debian package as `cpack -G DEB` builds it from this build tree (issue 15), one CASE each:
#   package_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR CASE
#   build     cpack into BUILD_DIR/package-test/ (the CTest fixture of the others)
#   contents  files, modes, owners, conffiles, control fields, Depends
#   lintian   no error and no warning that lintian-overrides does not explain
#   install   dpkg -i into a throwaway root, `icsbridge check` on the packaged config, then remove (config
#             and state kept) and purge (gone)
set -euo pipefail
src=$3 build=$4 mode=$5
out="$build/package-test"

# Scratch space ($work, removed at exit) from the shared fixtures.
. "$(dirname "${BASH_SOURCE[0]}")/../support/sh/run_fixtures.sh"
fail_logs=""

deb_file() {
    local debs=("$out"/icsbridge_*.deb)
    [ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one icsbridge_*.deb in $out"
    echo "${debs[0]}"
}

case $mode in
build)
    rm -rf "$out"
    # The tree is already built (CTest runs after the build), so this only installs, strips and packs.
    (cd "$build" && cpack -G DEB -B "$out") >"$build/package-test.log" 2>&1 || { cat "$build/package-test.log"; fail "cpack"; }
    deb=$(deb_file)
    echo "built $deb"
    ;;

contents)
    deb=$(deb_file)
    listing=$(dpkg-deb -c "$deb")
    # mode owner path, e.g. "-rw------- root/root ./etc/icsbridge/config.toml"
    entry() { awk -v p="./$1" '$6 == p { print $1, $2 }' <<<"$listing"; }
    expect() { # expect PATH MODE
        local got
        got=$(entry "$1")
        [ -n "$got" ] || fail "$1 is not in the package"
        [ "$got" = "$2 root/root" ] || fail "$1 is '$got', want '$2 root/root'"
    }
    expect usr/bin/icsbridge -rwxr-xr-x
    expect lib/systemd/system/icsbridge.service -rw-r--r--
    expect etc/icsbridge/config.toml -rw-------
    expect etc/icsbridge/secrets.env -rw-------
    expect usr/share/man/man1/icsbridge.1.gz -rw-r--r--
    expect usr/share/man/man5/icsbridge.toml.5.gz -rw-r--r--
    expect usr/share/bash-completion/completions/icsbridge -rw-r--r--
    for f in README.md copyright changelog.gz examples/example.toml examples/nginx.conf; do
        expect "usr/share/doc/icsbridge/$f" -rw-r--r--
    done
    # Every entry is root's, and nothing of the build or of `cmake --install`'s /usr/local layout leaks in.
    if awk '$2 != "root/root"' <<<"$listing" | grep -q .; then fail "files not owned by root: $(awk '$2 != "root/root"' <<<"$listing")"; fi
    if grep -Eq '/usr/local|/usr/lib/systemd|bench|fake-upstream' <<<"$listing"; then fail "unexpected files: $listing"; fi

    [ "$(dpkg-deb -f "$deb" Package)" = icsbridge ] || fail "Package field"
    [ "$(dpkg-deb -f "$deb" Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture field"
    [ -n "$(dpkg-deb -f "$deb" Maintainer)" ] || fail "no Maintainer"
    # Depends: derived by dpkg-shlibdeps from the binary (libical, Boost.JSON, OpenSSL...), plus the data
    # packages typed by hand.
    depends=$(dpkg-deb -f "$deb" Depends)
    for dep in libical3 libboost-json1.81.0 libssl3 libpsl5 libc6 tzdata ca-certificates; do
        grep -Eq "(^|, )$dep( |,|$)" <<<"$depends" || fail "Depends lacks $dep: $depends"
    done

    init_work
    ctl="$work/control"
    mkdir "$ctl"
    dpkg-deb -e "$deb" "$ctl"
    diff <(printf '/etc/icsbridge/config.toml\n/etc/icsbridge/secrets.env\n') "$ctl/conffiles" || fail "conffiles"
    for s in postinst prerm postrm; do
        [ -x "$ctl/$s" ] || fail "$s missing or not executable"
        sh -n "$ctl/$s" || fail "$s: syntax"
    done
    # Installing neither enables nor starts the service (the config must be edited first).
    # (Commands only: the message that tells the user to run `systemctl enable --now` is fine.)
    if grep -Ev '^[[:space:]]*(#|echo )' "$ctl/postinst" |
        grep -Eq 'systemctl.*(enable|start)|deb-systemd-(helper enable|invoke (re)?start)'; then
        fail "postinst enables or starts the service"
    fi

    # The packaged unit is the repository's, with the package's paths; the packaged config is the example
    # with its snapshots in the unit's state directory.
    x="$work/extracted"
    mkdir "$x"
    dpkg-deb -x "$deb" "$x"
    unit="$x/lib/systemd/system/icsbridge.service"
    grep -q '^ExecStart=/usr/bin/icsbridge serve ' "$unit" || fail "unit ExecStart"
    if grep -q /usr/local "$unit"; then fail "unit mentions /usr/local"; fi
    diff <(grep -E '^[A-Z][A-Za-z]+=' "$src/deploy/icsbridge.service" | grep -Ev '^(ExecStart|Documentation)=') \
        <(grep -E '^[A-Z][A-Za-z]+=' "$unit" | grep -Ev '^(ExecStart|Documentation)=') || fail "unit settings differ from deploy/icsbridge.service"
    grep -q '^dir = "/var/lib/icsbridge"' "$x/etc/icsbridge/config.toml" || fail "packaged config: storage dir"
    diff <(grep -v '^dir = ' "$src/config/example.toml") <(grep -v '^dir = ' "$x/etc/icsbridge/config.toml") ||
        fail "packaged config differs from config/example.toml beyond [storage] dir"
    # No secret in the shipped secrets.env: only comments.
    if grep -v '^#' "$x/etc/icsbridge/secrets.env" | grep -q .; then fail "secrets.env holds more than comments"; fi
    # Stripped: debug info stays in the build tree.
    if file "$x/usr/bin/icsbridge" | grep -q 'not stripped'; then fail "binary not stripped"; fi
    echo "package contents ok"
    ;;

lintian)
    deb=$(deb_file)
    # --fail-on error,warning: an error, or a warning lintian-overrides does not silence, fails the test.
    # The info tags left (hardening-no-bindnow, hardening-no-fortify-functions, binary-has-unneeded-section)
    # are explained in README.md ("Install the package").
    set +e
    report=$(lintian --fail-on error,warning --display-info --pedantic "$deb" 2>&1)
    rc=$?
    set -e
    grep -v 'running with root privileges' <<<"$report" || true
    [ $rc -eq 0 ] || fail "lintian found errors or warnings (above)"
    echo "lintian ok"
    ;;

install)
    deb=$(deb_file)
    init_work
    root="$work/root"
    mkdir "$root"
    mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/log"
    touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
    # The maintainer scripts run unchrooted with DPKG_ROOT set (the root has no shell of its own); they must
    # touch nothing outside it. The dependencies are the host's, so they are not checked in the root.
    # Not root (a developer's run): fakeroot, so dpkg may "chown" to root.
    dpkg_cmd=(dpkg)
    [ "$(id -u)" -eq 0 ] || dpkg_cmd=(fakeroot dpkg --force-not-root)
    dpkg_root() {
        "${dpkg_cmd[@]}" --root="$root" --log="$root/var/log/dpkg.log" --force-script-chrootless \
            --force-depends --force-unsafe-io "$@"
    }
    dpkg_root -i "$deb" >"$root/install.log" 2>&1 || { cat "$root/install.log"; fail "dpkg -i"; }
    grep -q 'systemctl enable --now icsbridge' "$root/install.log" || fail "postinst says nothing about what to do next"

    cfg="$root/etc/icsbridge/config.toml"
    bin="$root/usr/bin/icsbridge"
    "$bin" --version | grep -q '^icsbridge ' || fail "installed binary does not run"
    # Without secrets.env filled in, check says which variable is missing (exit 2, as the unit would).
    set +e
    err=$(env -u EVENTS_TOKEN -u JOBS_API_KEY "$bin" check --config "$cfg" 2>&1)
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "check without secrets exited $rc"
    grep -q 'EVENTS_TOKEN' <<<"$err" || fail "check without secrets: $err"
    # With them, as README's `set -a; . secrets.env` would give them.
    okay=$(EVENTS_TOKEN=packaged-events-secret JOBS_API_KEY=packaged-jobs-secret "$bin" check --config "$cfg") || fail "check: $okay"
    grep -q ': OK ' <<<"$okay" || fail "check output: $okay"
    grep -q '^feed my-events$' <<<"$okay" || fail "check lists no my-events feed: $okay"
    if grep -q 'packaged-.*-secret' <<<"$okay"; then fail "check printed a secret"; fi

    # remove: config (conffiles) and the state directory stay.
    mkdir -p "$root/var/lib/private/icsbridge"
    ln -s private/icsbridge "$root/var/lib/icsbridge"
    echo snapshot >"$root/var/lib/private/icsbridge/my-events.snapshot"
    echo "# edited" >>"$cfg"
    dpkg_root -r icsbridge >"$root/remove.log" 2>&1 || { cat "$root/remove.log"; fail "dpkg -r"; }
    [ ! -e "$bin" ] || fail "binary left after remove"
    grep -q '^# edited' "$cfg" || fail "config lost on remove"
    [ -f "$root/var/lib/icsbridge/my-events.snapshot" ] || fail "snapshots lost on remove"

    # purge: config and state are gone.
    dpkg_root -P icsbridge >"$root/purge.log" 2>&1 || { cat "$root/purge.log"; fail "dpkg -P"; }
    [ ! -e "$root/etc/icsbridge" ] || fail "/etc/icsbridge left after purge: $(ls -la "$root/etc/icsbridge")"
    [ ! -e "$root/var/lib/icsbridge" ] && [ ! -e "$root/var/lib/private/icsbridge" ] || fail "state left after purge"
    echo "install, remove, purge ok"
    ;;

*)
    fail "unknown mode $mode"
    ;;
esac
