#!/usr/bin/env bash
# File: export_output_test.sh
# `export --output PATH` against what may already be at PATH (issue 16, item 1): a regular file keeps its
# mode and owner, a new file is owner-only for a token feed and follows the umask otherwise, a FIFO and a
# character device are written through (never replaced), a symlink is refused and left alone.
#   export_output_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=output
fail_logs="err"
init_work

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream"

{
    jobs_source_toml "$upstream" 'timeout = "5s"'
    echo
    feed_toml pub jobs recent
    echo
    feed_toml priv jobs recent 'token = "output-test-feed-token"'
} >"$work/c.toml"

export_to() { # export_to FEED PATH: exit status of the export
    "$bin" export --config "$work/c.toml" --feed "$1" --output "$2" 2>"$work/err"
}
mode_of() { stat -c %a "$1"; }

umask 022
# A new file: owner-only for a token feed, the umask's choice for a public one.
export_to priv "$work/new-priv.ics" || fail "export priv to a new file failed"
[ "$(mode_of "$work/new-priv.ics")" = 600 ] || fail "a token feed's new file is $(mode_of "$work/new-priv.ics"), not 600"
export_to pub "$work/new-pub.ics" || fail "export pub to a new file failed"
[ "$(mode_of "$work/new-pub.ics")" = 644 ] || fail "a public feed's new file is $(mode_of "$work/new-pub.ics"), not 644 (umask 022)"
grep -q "BEGIN:VCALENDAR" "$work/new-pub.ics" || fail "the new file holds no calendar"

# An existing file keeps its exact mode (0600 stays 0600, 0640 stays 0640 although the umask would clear
# nothing) and, where we may set it, its owner.
echo old >"$work/kept.ics"
chmod 600 "$work/kept.ics"
export_to pub "$work/kept.ics" || fail "export over a 0600 file failed"
[ "$(mode_of "$work/kept.ics")" = 600 ] || fail "a 0600 file became $(mode_of "$work/kept.ics")"
grep -q "BEGIN:VCALENDAR" "$work/kept.ics" || fail "the 0600 file was not replaced"
chmod 640 "$work/kept.ics"
export_to priv "$work/kept.ics" || fail "export over a 0640 file failed"
[ "$(mode_of "$work/kept.ics")" = 640 ] || fail "a 0640 file became $(mode_of "$work/kept.ics")"
if [ "$(id -u)" = 0 ]; then
    chown 4321:4322 "$work/kept.ics"
    export_to pub "$work/kept.ics" || fail "export over a file of another owner failed"
    [ "$(stat -c %u:%g "$work/kept.ics")" = 4321:4322 ] ||
        fail "the owner became $(stat -c %u:%g "$work/kept.ics"), not 4321:4322"
fi

# A FIFO is written through: the reader gets the calendar and the FIFO is still a FIFO.
mkfifo "$work/pipe"
cat "$work/pipe" >"$work/from-pipe" &
reader=$!
export_to pub "$work/pipe" || fail "export into a FIFO failed"
wait "$reader"
[ -p "$work/pipe" ] || fail "the FIFO was replaced by a regular file"
grep -q "BEGIN:VCALENDAR" "$work/from-pipe" || fail "the FIFO's reader got no calendar"

# A character device: /dev/null as a user may write it; as root, a device node of our own (replacing the
# real /dev/null would break this machine if the fix regressed).
if [ "$(id -u)" = 0 ] && mknod "$work/null" c 1 3 2>/dev/null; then
    dev="$work/null"
else
    dev=/dev/null
fi
export_to pub "$dev" || fail "export to $dev failed"
[ -c "$dev" ] || fail "$dev is no longer a character device"

# A symlink is refused with a clear error (exit 1) and stays a link to an untouched file.
echo target >"$work/target"
ln -s "$work/target" "$work/link.ics"
export_to pub "$work/link.ics"
status=$?
[ $status -eq 1 ] || fail "export to a symlink exited $status, expected 1"
grep -q "symbolic link" "$work/err" || fail "export to a symlink: the message does not say why"
[ -L "$work/link.ics" ] || fail "the symlink was replaced"
[ "$(cat "$work/target")" = target ] || fail "the symlink's target was written"

# A directory is refused too.
mkdir "$work/dir.ics"
export_to pub "$work/dir.ics" && fail "export to a directory succeeded"
[ -d "$work/dir.ics" ] || fail "the directory was replaced"
echo "ok [output]"
