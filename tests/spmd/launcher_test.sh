#!/usr/bin/env bash
# Launcher behaviour, one case per invocation (CTest registers each case as its own test):
#   launcher_test.sh GANNET_RUN CRASH_BINARY CASE
# Failures, signals, bad input, heap sizing and /dev/shm hygiene. Checks outcomes (exit
# status, messages, processes gone, nothing left in /dev/shm), never speed: the time bounds
# below are generous ceilings that only catch hangs.
set -u
run=$1
crash=$2
case_name=$3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL [$case_name]: $*"
  echo "--- stdout:"; cat "$work/out" 2>/dev/null
  echo "--- stderr:"; cat "$work/err" 2>/dev/null
  exit 1
}
shm_snapshot() { ls /dev/shm 2>/dev/null | grep -c '^gannet-' || true; }
shm_before=$(shm_snapshot)
check_no_shm_left() {
  # Other tests running at the same time own a name for a few microseconds between
  # shm_open and shm_unlink: only a name that stays is a leak.
  local now tries=0
  while now=$(shm_snapshot); [ "$now" -gt "$shm_before" ] && [ $tries -lt 20 ]; do
    sleep 0.1
    tries=$((tries + 1))
  done
  [ "$now" -le "$shm_before" ] || fail "objects left in /dev/shm: $(ls /dev/shm | grep '^gannet-')"
}
# Runs the launcher, recording its status in $status and its duration in $secs.
launch() {
  local t0 t1
  t0=$(date +%s.%N)
  "$run" "$@" >"$work/out" 2>"$work/err"
  status=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}
expect_status() { [ "$status" -eq "$1" ] || fail "exit status $status, expected $1"; }
expect_err() { grep -Eq -- "$1" "$work/err" || fail "stderr lacks /$1/"; }
expect_out() { grep -Eq -- "$1" "$work/out" || fail "stdout lacks /$1/"; }
expect_under() { awk -v s="$secs" -v c="$1" 'BEGIN { exit !(s < c) }' || fail "took ${secs}s (ceiling $1 s)"; }
pids_gone() {
  # Waits up to $1 seconds for every pid recorded by the ranks to disappear.
  local deadline=$((SECONDS + $1)) p alive
  while :; do
    alive=0
    for f in "$work"/pids/pid.*; do
      [ -e "$f" ] || continue
      p=$(cat "$f")
      # Alive and not a zombie (field 3 of /proc/PID/stat is the state).
      if [ -r "/proc/$p/stat" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ]; then alive=1; fi
    done
    [ $alive -eq 0 ] && return 0
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.1
  done
}
mkdir -p "$work/pids"
# Under AddressSanitizer a SIGSEGV would become an ASan report and exit status 1; these
# cases test what the launcher does with a real signal death.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_abort=0"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}handle_segv=0:handle_abort=0"
export CRASH_PID_DIR="$work/pids"

case "$case_name" in
abort)
  launch -n 4 "$crash" abort 1
  expect_status 134
  expect_err "rank 1: killed by SIGABRT"
  expect_err "ending the other 3 ranks"
  expect_under 20
  pids_gone 5 || fail "ranks still alive"
  ;;
segv)
  launch -n 2 "$crash" segv 0
  expect_status 139
  expect_err "rank 0: killed by SIGSEGV"
  pids_gone 5 || fail "ranks still alive"
  ;;
user-segv)
  # The crash report: the signal, then a backtrace that names the user's function with its
  # file and line (the test program is built with -g), before the launcher ends the job.
  launch -n 2 "$crash" user-segv 1
  expect_status 139
  expect_err "rank 1: caught SIGSEGV .* at address 0x0 \\(a null pointer\\)"
  expect_err "rank 1: +#[0-9]+ user_function_that_crashes\\(int volatile\\*\\) at .*crash.cpp:[0-9]+"
  expect_err "rank 1: +#[0-9]+ main at .*crash.cpp:[0-9]+"
  expect_err "rank 1: killed by SIGSEGV"
  grep -q "rank 0: caught" "$work/err" && fail "rank 0 reported a crash it did not have"
  # Off: only the launcher's line.
  GANNET_BACKTRACE=0 launch -n 2 "$crash" user-segv 1
  expect_status 139
  grep -q "backtrace" "$work/err" && fail "GANNET_BACKTRACE=0 still printed a backtrace"
  expect_err "rank 1: killed by SIGSEGV"
  pids_gone 5 || fail "ranks still alive"
  ;;
user-throw)
  launch -n 2 "$crash" user-throw 0
  expect_status 134
  expect_err "rank 0: terminate called after an uncaught exception of type std::runtime_error: the user's own error"
  expect_err "rank 0: +#0 main(\\.cold)? at .*crash.cpp:[0-9]+"
  [ "$(grep -c 'backtrace of the failing thread' "$work/err")" -eq 1 ] || fail "expected one backtrace"
  pids_gone 5 || fail "ranks still alive"
  ;;
freeze)
  # GANNET_FREEZE_ON_ERROR=1: the failing rank says its pid and waits; a debugger lets it go.
  GANNET_FREEZE_ON_ERROR=1 "$run" -n 2 "$crash" user-segv 1 >"$work/out" 2>"$work/err" &
  launcher=$!
  for _ in $(seq 100); do grep -q "waits for a debugger" "$work/err" && break; sleep 0.1; done
  expect_err "rank 1: GANNET_FREEZE_ON_ERROR: pid [0-9]+ on .* waits for a debugger: gdb -p [0-9]+"
  pid=$(sed -n 's/.*GANNET_FREEZE_ON_ERROR: pid \([0-9]*\) .*/\1/p' "$work/err" | head -1)
  sleep 0.5
  kill -0 "$launcher" 2>/dev/null || fail "the job ended instead of waiting"
  [ "$(awk '{print $3}' "/proc/$pid/stat")" != Z ] || fail "the frozen rank is gone"
  if command -v gdb >/dev/null; then
    gdb -batch -p "$pid" -ex 'set var *(int*)&gannet_frozen = 0' -ex detach >/dev/null 2>&1 || kill -TERM "$launcher"  # ptrace not allowed here
  else
    kill -TERM "$launcher"
  fi
  wait "$launcher"
  status=$?
  [ "$status" -ne 0 ] || fail "the job succeeded"
  pids_gone 5 || fail "ranks still alive"
  ;;
hang-skip-barrier)
  # Rank 2 skips a barrier: it waits in finalize, the others in the barrier. With
  # GANNET_HANG_SECONDS=1, rank 0 says so and the job ends.
  GANNET_HANG_SECONDS=1 launch -n 4 "$crash" skip-barrier 2
  expect_status 1
  expect_err "rank 0: error: every rank has waited in Gannet for 1 s"
  expect_err "^  ranks 0-1, 3: barrier #[0-9]+ on world"
  expect_err "^  rank 2: finalize"
  expect_err "rank 0: exited with status 1"
  expect_under 30
  pids_gone 5 || fail "ranks still alive"
  check_no_shm_left
  ;;
hang-slow-barriers)
  # A rank that computes longer than GANNET_HANG_SECONDS while the others wait is not a hang.
  GANNET_HANG_SECONDS=1 launch -n 2 "$crash" slow-barriers 1
  expect_status 0
  expect_out "slow-barriers done"
  grep -q "every rank has waited" "$work/err" && fail "a slow job was reported as stuck"
  ;;
exit-code)
  launch -n 4 "$crash" exit 2 7
  expect_status 7
  expect_err "rank 2: exited with status 7"
  pids_gone 5 || fail "ranks still alive"
  ;;
no-finalize)
  # Rank 1 returns from main while rank 0 waits in a barrier: after GANNET_EXIT_WAIT rank 1
  # ends the job, naming itself.
  GANNET_EXIT_WAIT=1 launch -n 2 "$crash" nofinalize 1
  [ "$status" -ne 0 ] || fail "exit status 0"
  expect_err "rank 1 returned from main without calling upcxx::finalize\(\) while other ranks still run"
  expect_err "rank 1: killed by SIGABRT"
  expect_under 8
  ;;
return-without-finalize)
  # Every rank returns from main without finalize(), as UPC++ programs do: success, all the
  # output, one debug-codemode note.
  launch -n 4 "$crash" return-without-finalize
  expect_status 0
  for r in 0 1 2 3; do expect_out "rank $r returns without finalize"; done
  [ "$(grep -c "returned from main without calling upcxx::finalize" "$work/err")" -eq 1 ] || fail "not one note"
  ;;
return-early)
  # Rank 2 returns at once while rank 0 waits for its RPC reply: ends, naming rank 2.
  GANNET_EXIT_WAIT=1 launch -n 3 "$crash" return-early 2
  [ "$status" -ne 0 ] || fail "exit status 0"
  expect_err "rank 2 returned from main without calling upcxx::finalize\(\) while other ranks still run"
  expect_under 8
  ;;
clean)
  launch -n 4 "$crash" ok
  expect_status 0
  [ ! -s "$work/err" ] || fail "unexpected stderr"
  ;;
output)
  # Every rank's stdout reaches the launcher's stdout.
  launch -n 4 "$crash" heap
  expect_status 0
  for r in 0 1 2 3; do expect_out "^rank $r heap "; done
  ;;
sigint | sigterm)
  sig=INT; [ "$case_name" = sigterm ] && sig=TERM
  "$run" -n 3 "$crash" hang >"$work/out" 2>"$work/err" &
  lpid=$!
  for _ in $(seq 100); do [ "$(ls "$work/pids" | wc -l)" -eq 3 ] && break; sleep 0.1; done
  [ "$(ls "$work/pids" | wc -l)" -eq 3 ] || fail "ranks did not start"
  kill -"$sig" $lpid
  wait $lpid
  status=$?
  if [ $sig = INT ]; then expect_status 130; else expect_status 143; fi
  expect_err "received SIG$sig; ending 3 ranks"
  pids_gone 5 || fail "ranks still alive"
  ;;
sigkill-launcher)
  "$run" -n 3 "$crash" hang >"$work/out" 2>"$work/err" &
  lpid=$!
  for _ in $(seq 100); do [ "$(ls "$work/pids" | wc -l)" -eq 3 ] && break; sleep 0.1; done
  [ "$(ls "$work/pids" | wc -l)" -eq 3 ] || fail "ranks did not start"
  kill -KILL $lpid
  wait $lpid 2>/dev/null
  pids_gone 5 || fail "ranks outlived the SIGKILLed launcher"
  ;;
bad-input)
  marker="$work/started"
  check_rejected() {  # args...: must fail before starting anything, with one line on stderr
    "$run" "$@" >"$work/out" 2>"$work/err"
    status=$?
    [ $status -ne 0 ] || fail "accepted: $*"
    [ ! -e "$marker" ] || fail "started ranks for: $*"
    [ -s "$work/err" ] || fail "no message for: $*"
    grep -q "gannet-run: " "$work/err" || fail "message not prefixed for: $*"
  }
  check_rejected -n 0 touch "$marker";                 expect_err "at least 1"
  check_rejected -n abc touch "$marker";               expect_err "whole number of ranks, not 'abc'"
  check_rejected -n -3 touch "$marker";                expect_err "whole number"
  check_rejected --frobnicate -n 2 touch "$marker";    expect_err "unknown option '--frobnicate'"
  check_rejected -n 2 --shared-heap 12QB touch "$marker"; expect_err "invalid shared heap size '12QB'"
  check_rejected -n 2 --shared-heap 1000TB touch "$marker"; expect_err "exceed this machine's memory"
  expect_err "use a smaller --shared-heap"
  # The fix names what the user set: here the environment, not an option they never gave.
  UPCXX_SHARED_HEAP_SIZE=1000TB check_rejected -n 2 touch "$marker"; expect_err "exceed this machine's memory"
  expect_err "a smaller shared heap than UPCXX_SHARED_HEAP_SIZE=1000TB"
  check_rejected -n 2 ./no-such-program;               expect_err "cannot run './no-such-program'"
  check_rejected -n 2 no-such-program-anywhere;        expect_err "no such program"
  check_rejected touch "$marker";                      expect_err "-n N"
  check_rejected -n 2;                                 expect_err "no program"
  check_rejected -n 2 --shared-heap;                   expect_err "needs a value"
  UPCXX_SHARED_HEAP_SIZE=lots check_rejected -n 1 touch "$marker"; expect_err "invalid shared heap size 'lots'"
  ;;
heap-sizes)
  # The UPC++ spellings and the environment variable, seen by the program.
  launch -np 2 -shared-heap 8MB "$crash" heap
  expect_status 0; expect_out "^rank 1 heap 8388608$"
  launch -n 2 --shared-heap=3MB "$crash" heap
  expect_status 0; expect_out "^rank 0 heap 3145728$"
  UPCXX_SHARED_HEAP_SIZE=5MB launch -n 2 "$crash" heap
  expect_status 0; expect_out "^rank 0 heap 5242880$"
  launch -n 1 "$crash" heap
  expect_status 0; expect_out "^rank 0 heap 134217728$"
  # A percentage of physical memory, split between the ranks.
  launch -n 2 --shared-heap 1% "$crash" heap
  expect_status 0
  phys=$(( $(getconf _PHYS_PAGES) * $(getconf PAGESIZE) ))
  got=$(grep '^rank 0 heap' "$work/out" | awk '{print $4}')
  want=$(( phys / 100 / 2 ))
  [ $(( got > want ? got - want : want - got )) -lt 65536 ] || fail "1% of $phys over 2 ranks: got $got, want ~$want"
  # Running the program directly is a one-rank job with the default heap.
  "$crash" heap >"$work/out" 2>"$work/err" || fail "direct run failed"
  expect_out "^rank 0 heap 134217728$"
  UPCXX_SHARED_HEAP_SIZE=2MB "$crash" heap >"$work/out" 2>"$work/err" || fail "direct run failed"
  expect_out "^rank 0 heap 2097152$"
  ;;
upcxx-run-habits)
  # What job scripts and Makefiles written for UPC++'s upcxx-run do: a bare program name in
  # the current directory, UPC++'s heap variables (a bare number is MB; MAX; the older
  # UPCXX_SEGMENT_MB), and its other options.
  (cd "$(dirname "$crash")" && "$run" -n 2 "$(basename "$crash")" heap) >"$work/out" 2>"$work/err"
  status=$?; expect_status 0; expect_out "^rank 1 heap 134217728$"
  UPCXX_SHARED_HEAP_SIZE=6 launch -n 2 "$crash" heap
  expect_status 0; expect_out "^rank 0 heap 6291456$"
  UPCXX_SHARED_HEAP_SIZE=6 "$crash" heap >"$work/out" 2>"$work/err" || fail "direct run failed"
  expect_out "^rank 0 heap 6291456$"
  UPCXX_SEGMENT_MB=7 launch -n 2 "$crash" heap
  expect_status 0; expect_out "^rank 0 heap 7340032$"
  UPCXX_SHARED_HEAP_SIZE=MAX launch -n 2 -show "$crash" heap
  expect_status 0; expect_out "-n 2 --shared-heap [0-9]+B .*crash heap$"
  phys=$(( $(getconf _PHYS_PAGES) * $(getconf PAGESIZE) ))
  got=$(sed -E 's/.*--shared-heap ([0-9]+)B.*/\1/' "$work/out")
  want=$(( phys / 2 / 2 ))
  [ $(( got > want ? got - want : want - got )) -lt 65536 ] || fail "MAX over 2 ranks: got $got, want ~$want"
  launch -vv -E FOO,BAR -localhost -backtrace -ssh-servers here -n 2 "$crash" heap
  expect_status 0; expect_out "^rank 1 heap"
  launch -N 2 -n 2 "$crash" heap
  expect_status 0; expect_out "^rank 1 heap"; expect_err "-N 2: starting every rank on this machine"
  ;;
small-devshm)
  # A /dev/shm too small for the heaps is reported before anything starts. Needs a private
  # mount namespace (root, unshare); skipped where the sandbox forbids it.
  if ! unshare -m true 2>/dev/null; then echo "SKIP: cannot create a mount namespace"; exit 0; fi
  unshare -m bash -c "mount -t tmpfs -o size=8m tmpfs /dev/shm && exec '$run' -n 2 --shared-heap 16MB touch '$work/started'" \
    >"$work/out" 2>"$work/err"
  status=$?
  [ $status -ne 0 ] || fail "accepted a job larger than /dev/shm"
  [ ! -e "$work/started" ] || fail "started ranks"
  expect_err "/dev/shm has 8 MiB free but 2 ranks need [0-9.]+ MiB \\(16 MiB of shared heap and"
  expect_err "mount -o remount,size="
  expect_err "use a smaller --shared-heap"
  unshare -m bash -c "mount -t tmpfs -o size=8m tmpfs /dev/shm && UPCXX_SHARED_HEAP_SIZE=16 exec '$run' -n 2 touch '$work/started'" \
    >"$work/out" 2>"$work/err"
  [ $? -ne 0 ] || fail "accepted a job larger than /dev/shm (heap from UPCXX_SHARED_HEAP_SIZE)"
  expect_err "a smaller shared heap than UPCXX_SHARED_HEAP_SIZE=16"
  ;;
debug-before-init)
  launch -n 2 "$crash" before-init
  [ "$status" -ne 0 ] || fail "rank_me() before init was not caught"
  expect_err "crash.cpp:[0-9]+: upcxx::rank_me\(\) called while UPC\+\+ is not initialized"
  expect_err "killed by SIGABRT"
  ;;
debug-rput-before-init)
  # Debug codemode names the user's line for an rput before init() (not a Gannet header's).
  launch -n 2 "$crash" rput-before-init
  [ "$status" -ne 0 ] || fail "rput before init was not caught"
  expect_err "crash.cpp:[0-9]+: upcxx::rput called while UPC\+\+ is not initialized"
  ;;
debug-rpc-before-init)
  launch -n 2 "$crash" rpc-before-init
  [ "$status" -ne 0 ] || fail "rpc_ff before init was not caught"
  expect_err "crash.cpp:[0-9]+: upcxx::rpc_ff called while UPC\+\+ is not initialized"
  ;;
debug-rput-after-finalize)
  launch -n 2 "$crash" rput-after-finalize 1
  [ "$status" -ne 0 ] || fail "rput after finalize was not caught"
  expect_err "rank 1: error: .*crash.cpp:[0-9]+: upcxx::rput called while UPC\+\+ is not initialized"
  ;;
opt-rput-before-init)
  # Opt codemode (crash_opt): the check costs nothing on the hot path (the empty peer table
  # sends the call to the off-node path, which reports it); the backtrace shows the call.
  launch -n 2 "${crash}_opt" rput-before-init
  [ "$status" -ne 0 ] || fail "rput before init was not caught"
  expect_err "upcxx::rput called while UPC\+\+ is not initialized"
  expect_err "#[0-9]+ main at .*crash.cpp:[0-9]+"
  ;;
opt-rput-after-finalize)
  launch -n 2 "${crash}_opt" rput-after-finalize 1
  [ "$status" -ne 0 ] || fail "rput after finalize was not caught"
  expect_err "rank 1: error: upcxx::rput called while UPC\+\+ is not initialized"
  expect_err "#[0-9]+ main at .*crash.cpp:[0-9]+"
  ;;
opt-rpc-before-init)
  # Where a check would cost the hot path, the crash report says what happened.
  launch -n 2 "${crash}_opt" rpc-before-init
  [ "$status" -ne 0 ] || fail "rpc_ff before init was not caught"
  if grep -q "runtime error:" "$work/err"; then
    echo "SKIP: UBSan stops this program (undefined behaviour before init) before it faults"
    exit 0
  fi
  expect_err "note: UPC\+\+ was not initialized when this happened"
  expect_err "debug codemode \(upcxx -g\)"
  ;;
debug-rpc-after-finalize)
  launch -n 2 "$crash" rpc-after-finalize 1
  [ "$status" -ne 0 ] || fail "rpc_ff after finalize was not caught"
  expect_err "upcxx::rpc_ff called while UPC\+\+ is not initialized"
  ;;
debug-wait-in-rpc)
  launch -n 2 "$crash" wait-in-rpc 1
  [ "$status" -ne 0 ] || fail "wait() inside an RPC body was not caught"
  expect_err "future::wait\(\) called inside the restricted context"
  ;;
debug-barrier-in-lpc)
  launch -n 2 "$crash" barrier-in-lpc 1
  [ "$status" -ne 0 ] || fail "barrier() inside an LPC was not caught"
  expect_err "upcxx::barrier\(\) called inside the restricted context"
  ;;
debug-dist-object-off-master)
  launch -n 2 "$crash" dist-object-off-master 1
  [ "$status" -ne 0 ] || fail "dist_object built off the master persona was not caught"
  expect_err "dist_object constructor \(collective\) must be called by the thread holding the master persona"
  ;;
debug-collective-off-master)
  launch -n 2 "$crash" collective-off-master 1
  [ "$status" -ne 0 ] || fail "a collective off the master persona was not caught"
  expect_err "upcxx::reduce_all \(collective\) must be called by the thread holding the master persona"
  ;;
debug-coll-root-mismatch)
  launch -n 2 "$crash" coll-root-mismatch
  [ "$status" -ne 0 ] || fail "a gather whose ranks name different roots was not caught"
  expect_err "crash\.cpp:[0-9]+: gannet::gather \(collective\): the team's ranks passed different roots \(from 0 to 1"
  ;;
debug-coll-count-mismatch)
  launch -n 3 "$crash" coll-count-mismatch
  [ "$status" -ne 0 ] || fail "a gather_all whose ranks pass different counts was not caught"
  expect_err "crash\.cpp:[0-9]+: gannet::gather_all \(collective\): (the team's ranks passed different counts \(from 1 to 3|[0-9]+ bytes arrived where the counts say [0-9]+: the ranks' counts differ)"
  ;;
debug-alltoallv-mismatch)
  launch -n 2 "$crash" alltoallv-mismatch
  [ "$status" -ne 0 ] || fail "an alltoallv whose send and receive counts disagree was not caught"
  expect_err "crash\.cpp:[0-9]+: gannet::alltoallv \(collective\): 4 bytes arrived where the counts say 8: rank 1's send count for this rank differs from this rank's receive count for it"
  ;;
debug-split-in-lpc)
  launch -n 2 "$crash" split-in-lpc 1
  [ "$status" -ne 0 ] || fail "team::split() inside an LPC was not caught"
  expect_err "upcxx::team::split\(\) called inside the restricted context"
  ;;
debug-atomic-op-not-in-set)
  launch -n 2 "$crash" atomic-op-not-in-set 1
  [ "$status" -ne 0 ] || fail "an atomic outside the domain's operation set was not caught"
  expect_err "crash.cpp:[0-9]+: atomic operation 4 \(upcxx::atomic_op\) is not in the atomic_domain's operation set"
  ;;
debug-notify-negative-tag)
  launch -n 2 "$crash" notify-negative-tag 1
  [ "$status" -ne 0 ] || fail "a negative notification tag was not refused"
  expect_err "gannet::rput_notify: tag -3 is negative"
  ;;
debug-notify-bad-source)
  launch -n 2 "$crash" notify-bad-source 1
  [ "$status" -ne 0 ] || fail "a notify_request source outside the team was not refused"
  expect_err "gannet::notify_request: source 2 is not a rank of the team \\[0, 2\\)"
  ;;
debug-notify-bad-rank)
  launch -n 2 "$crash" notify-bad-rank 1
  [ "$status" -ne 0 ] || fail "a notification to a rank outside the job was not refused"
  expect_err "gannet::notify: rank 7 is not a rank of the job"
  ;;
debug-task-spawn-bad-rank)
  launch -n 2 "$crash" task-spawn-bad-rank 1
  [ "$status" -ne 0 ] || fail "a task spawned to a rank outside the pool's team was not refused"
  expect_err "gannet::task_pool::spawn: rank 7 is not a rank of the pool's team \\[0, 2\\)"
  ;;
debug-task-spawn-negative-rank)
  launch -n 2 "$crash" task-spawn-negative-rank 1
  [ "$status" -ne 0 ] || fail "a task spawned to a negative rank was not refused"
  expect_err "gannet::task_pool::spawn: rank -1 is not a rank of the pool's team \\[0, 2\\)"
  ;;
debug-task-run-reentrant)
  launch -n 2 "$crash" task-run-reentrant 1
  [ "$status" -ne 0 ] || fail "run() called from inside a task of the same pool was not refused"
  expect_err "gannet::task_pool::run: called from inside a task"
  ;;
debug-empty-op-set)
  launch -n 2 "$crash" empty-op-set 1
  [ "$status" -ne 0 ] || fail "an atomic_domain with no operations was not refused"
  expect_err "upcxx::atomic_domain constructed with an empty operation set"
  ;;
debug-inactive-dist-object)
  launch -n 2 "$crash" inactive-dist-object 1
  [ "$status" -ne 0 ] || fail "fetch on an inactive dist_object was not caught"
  expect_err "crash.cpp:[0-9]+: upcxx::dist_object::fetch on an inactive dist_object"
  ;;
debug-inactive-atomic-domain)
  launch -n 2 "$crash" inactive-atomic-domain 1
  [ "$status" -ne 0 ] || fail "an atomic on an inactive atomic_domain was not caught"
  expect_err "crash.cpp:[0-9]+: atomic operation on an atomic_domain that is inactive"
  ;;
debug-dist-object-assign-active)
  launch -n 2 "$crash" dist-object-assign-active 1
  [ "$status" -ne 0 ] || fail "move assignment over an active dist_object was not caught"
  expect_err "upcxx::dist_object move assignment: the target is active"
  ;;
debug-team-assign-active)
  launch -n 2 "$crash" team-assign-active
  [ "$status" -ne 0 ] || fail "move assignment over an active team was not caught"
  expect_err "upcxx::team move assignment: the target team is active"
  ;;
debug-throw-in-rpc)
  launch -n 2 "$crash" throw-in-rpc 1
  [ "$status" -ne 0 ] || fail "an exception out of an RPC body was not caught"
  expect_err "an exception escaped an RPC body .* into the UPC\+\+ library \(what\(\): thrown by the RPC body\)"
  expect_err "rank 1: killed by SIGABRT"
  ;;
debug-throw-in-then)
  launch -n 2 "$crash" throw-in-then 1
  [ "$status" -ne 0 ] || fail "an exception out of a then() callback was not caught"
  expect_err "an exception escaped a future::then\(\) callback into the UPC\+\+ library \(what\(\): thrown by the then callback\)"
  ;;
debug-throw-in-lpc)
  launch -n 2 "$crash" throw-in-lpc 1
  [ "$status" -ne 0 ] || fail "an exception out of an LPC was not caught"
  expect_err "an exception \(not derived from std::exception\) escaped an LPC callback \(persona::lpc_ff\)"
  ;;
debug-discharge-in-rpc)
  launch -n 2 "$crash" discharge-in-rpc 1
  [ "$status" -ne 0 ] || fail "discharge() inside an RPC body was not caught"
  expect_err "upcxx::discharge\(\) called inside the restricted context"
  ;;
debug-collective-in-then)
  launch -n 2 "$crash" collective-in-then 1
  [ "$status" -ne 0 ] || fail "a collective started in a then() callback inside progress was not caught"
  expect_err "upcxx::reduce_all \(collective\) initiated inside the restricted context"
  ;;
debug-dist-object-in-rpc)
  launch -n 2 "$crash" dist-object-in-rpc 1
  [ "$status" -ne 0 ] || fail "a dist_object constructed inside an RPC body was not caught"
  expect_err "the upcxx::dist_object constructor or activate\(\) \(collective\) initiated inside the restricted context"
  ;;
debug-bad-rank)
  launch -n 2 "$crash" bad-rank 1
  [ "$status" -ne 0 ] || fail "bad rank not caught"
  expect_err "team::operator\[\]: rank 2 is out of range \[0, 2\)"
  expect_err "rank 1: killed by SIGABRT"
  ;;
debug-inattentive)
  GANNET_ATTENTIVENESS_SECONDS=1 launch -n 2 "$crash" inattentive 1
  expect_status 0
  expect_err "warning: rank 1 has left incoming messages \(RPCs\) unprocessed for 1 s"
  [ "$(grep -c "has left incoming messages" "$work/err")" -eq 1 ] || fail "reported more than once"
  ;;
*)
  echo "unknown case $case_name"; exit 2 ;;
esac
check_no_shm_left
echo "PASS [$case_name]"
