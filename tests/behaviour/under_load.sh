#!/bin/sh
# Runs a command while two busy loops compete with it for this machine's cores, then stops
# the loops and exits with the command's status.
#   under_load.sh command [args...]
# Nothing outlives the script: the loops and the command are killed on every exit path the
# script sees (end, INT, TERM, HUP), and each loop also stops by itself as soon as this
# script's process is gone (kill -0 on its pid fails), so a SIGKILL of the script leaves no
# loop behind either.
[ $# -gt 0 ] || { echo "usage: under_load.sh command [args...]" >&2; exit 2; }

self=$$
loads=""
cmd=""
cleanup() {
  [ -n "$cmd" ] && kill "$cmd" 2>/dev/null
  for p in $loads; do kill "$p" 2>/dev/null; done
  for p in $loads $cmd; do wait "$p" 2>/dev/null; done
  loads=""
  cmd=""
}
trap 'cleanup' EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap 'cleanup; exit 129' HUP

for i in 1 2; do
  ( while kill -0 "$self" 2>/dev/null; do :; done ) &
  loads="$loads $!"
done

"$@" &
cmd=$!
wait "$cmd"
status=$?
cmd=""
cleanup
[ "$status" -eq 0 ] || echo "under_load: command exited with status $status" >&2
exit "$status"
