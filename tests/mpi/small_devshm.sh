#!/usr/bin/env bash
# An MPI job whose heaps do not fit in /dev/shm stops at start-up with a message that says
# how much is needed, instead of a SIGBUS later. Runs the job in a private mount namespace
# with an 64 MiB /dev/shm; skips (exit 77) where that cannot be made.
#   small_devshm.sh GANNET_RUN PROGRAM
set -u
run=$1 prog=$2
if ! unshare -m true 2>/dev/null; then
  echo "SKIP: cannot make a mount namespace here (needs root or user namespaces)"
  exit 77
fi
out=$(unshare -m bash -c "mount -t tmpfs -o size=64m tmpfs /dev/shm && exec '$run' --mpi -n 2 --shared-heap 48MB '$prog'" 2>&1)
status=$?
echo "$out"
[ $status -ne 0 ] || { echo "FAIL: the job started although its heaps do not fit"; exit 1; }
echo "$out" | grep -Eq "/dev/shm has [0-9]+ MiB free but the 2 ranks on this machine need [0-9]+ MiB" ||
  { echo "FAIL: no message naming the room needed"; exit 1; }
echo "small_devshm: OK"
