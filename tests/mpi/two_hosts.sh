#!/usr/bin/env bash
# One Gannet MPI job over two "machines" on this one: two network namespaces joined by a
# veth pair, one rank in each, talking over TCP.
#   two_hosts.sh [--gannet-run GANNET_RUN] [--shared-heap SIZE] [--timeout SECONDS] [--] PROGRAM [ARGS...]
# With --gannet-run the job is `GANNET_RUN --mpi -n 2 [--shared-heap SIZE] PROGRAM ARGS` (the
# MCA settings below reach mpirun through GANNET_MPIRUN_ARGS); without it, `mpirun -n 2 ...`
# directly ($GANNET_MPIRUN, else mpirun from PATH; the heap size as GANNET_SHARED_HEAP_SIZE).
#
# Each "host" has its own network namespace (10.213.0.1/24 and .2/24 on the veth, nothing
# else but lo: no route anywhere), its own hostname (UTS namespace), its own /dev/shm (a
# tmpfs) and /etc/hosts, and its own TMPDIR (Open MPI's session directory). mpirun runs on
# host a; Open MPI starts the daemon on host b through a launch agent (plm_rsh_agent) that
# enters b with `ip netns exec` and an emptied environment, as ssh would, so settings reach
# the remote rank only when forwarded with -x. A private /dev/shm per host means a rank
# that wrongly took the other for local could not map its heap: the job would fail.
#
# Before the job, a tiny job checks that Open MPI put the two ranks on different nodes
# (distinct hostnames and network namespaces, OMPI_COMM_WORLD_LOCAL_SIZE=1 each), so Gannet's
# MPI_Comm_split_type(SHARED) gives one rank per node. After it, no gannet.mpi-* name may be
# left in either host's /dev/shm, nor new in the machine's own.
#
# Exit status: the job's; 77 (CTest SKIP_RETURN_CODE) with a line starting "SKIP:" when
# namespaces cannot be made here (not root, no iproute2/unshare, EPERM in a container, not
# Open MPI); 1 when a check of this script fails. Everything it creates (namespaces, veth,
# mounts, temporary files, processes in the namespaces) is removed on every exit path.
set -u

me=two_hosts
skip() { echo "SKIP: $me: $*"; exit 77; }
fail() { echo "$me: FAIL: $*" >&2; exit 1; }
usage() {
  echo "usage: $0 [--gannet-run GANNET_RUN] [--shared-heap SIZE] [--timeout SECONDS] [--] PROGRAM [ARGS...]" >&2
  exit 2
}

gannet_run='' heap='' limit=120
while [ $# -gt 0 ]; do
  case $1 in
    --gannet-run) [ $# -ge 2 ] || usage; gannet_run=$2; shift 2 ;;
    --shared-heap) [ $# -ge 2 ] || usage; heap=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage; limit=$2; shift 2 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || usage

# ---- can this machine do it at all? ----
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces (uid $(id -u))"
for tool in ip unshare timeout hostname mount; do
  command -v "$tool" >/dev/null 2>&1 || skip "'$tool' not found (iproute2/util-linux/coreutils)"
done
mpirun=${GANNET_MPIRUN:-mpirun}
command -v "$mpirun" >/dev/null 2>&1 || skip "'$mpirun' not found"
case $("$mpirun" --version 2>&1 | head -n 1) in
  *"Open MPI"* | *OpenRTE*) ;;
  *) skip "'$mpirun' is not Open MPI (this script uses Open MPI's rsh launch agent)" ;;
esac
if [ -n "$gannet_run" ] && [ ! -x "$gannet_run" ]; then fail "--gannet-run $gannet_run: not executable"; fi

# The rest runs in a private mount namespace: the tmpfs mounts below, and the bind mounts
# that `ip netns add` makes under /run/netns, are seen by no one else and go with the script
# even if it is killed (SIGKILL leaves only the two empty /run/netns/gannet2h-* files).
if [ -z "${GANNET_TWO_HOSTS_INNER:-}" ]; then
  err=$(unshare --mount --propagation private true 2>&1) || skip "cannot make a mount namespace: $err"
  GANNET_TWO_HOSTS_INNER=1 exec unshare --mount --propagation private "$BASH" "$0" \
    ${gannet_run:+--gannet-run "$gannet_run"} ${heap:+--shared-heap "$heap"} --timeout "$limit" -- "$@"
  skip "cannot run unshare"
fi
unset GANNET_TWO_HOSTS_INNER

# ---- the two hosts ----
tag=$$.$RANDOM
ns_a=gannet2h-$tag-a ns_b=gannet2h-$tag-b
veth_a=g2h$$a veth_b=g2h$$b  # at most 15 characters; their own namespaces only
ip_a=10.213.0.1 ip_b=10.213.0.2 net=10.213.0.0/24
host_a=gannet2h-a host_b=gannet2h-b
work=
made_a='' made_b=''
job_pid=

shm_real() { ls -A /dev/shm 2>/dev/null | grep '^gannet\.mpi-' | sort; }

cleanup() {
  trap - EXIT INT TERM
  local ns pids
  for ns in $made_a $made_b; do
    # Whatever a hung or killed job left behind in our namespaces (we started all of it).
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
  done
  [ -n "$job_pid" ] && kill -9 "$job_pid" 2>/dev/null  # the timeout around mpirun
  for ns in $made_a $made_b; do ip netns delete "$ns" 2>/dev/null; done  # takes the veth with it
  if [ -n "$work" ]; then
    umount "$work/a/shm" "$work/b/shm" 2>/dev/null
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

shm_before=$(shm_real)
work=$(mktemp -d "${TMPDIR:-/tmp}/gannet-two-hosts.XXXXXX") || fail "mktemp failed"

err=$(ip netns add "$ns_a" 2>&1) || skip "cannot create a network namespace (ip netns add): $err"
made_a=$ns_a
err=$(ip netns add "$ns_b" 2>&1) || skip "cannot create a network namespace (ip netns add): $err"
made_b=$ns_b
err=$(ip link add "$veth_a" netns "$ns_a" type veth peer name "$veth_b" netns "$ns_b" 2>&1) ||
  skip "cannot create a veth pair: $err"
err=$( {
  ip -n "$ns_a" link set lo up && ip -n "$ns_b" link set lo up &&
    ip -n "$ns_a" addr add "$ip_a/24" dev "$veth_a" && ip -n "$ns_b" addr add "$ip_b/24" dev "$veth_b" &&
    ip -n "$ns_a" link set "$veth_a" up && ip -n "$ns_b" link set "$veth_b" up
} 2>&1) || skip "cannot configure the veth pair: $err"

for h in a b; do
  mkdir -p "$work/$h/shm" "$work/$h/tmp" || fail "mkdir failed"
  err=$(mount -t tmpfs -o mode=1777 gannet-two-hosts "$work/$h/shm" 2>&1) || skip "cannot mount a tmpfs: $err"
  printf '127.0.0.1 localhost\n%s %s\n%s %s\n' "$ip_a" "$host_a" "$ip_b" "$host_b" >"$work/$h/hosts"
done
printf '%s slots=1\n%s slots=1\n' "$ip_a" "$ip_b" >"$work/hostfile"

# host NAMESPACE HOSTNAME DIR COMMAND...: COMMAND as if on that machine.
cat >"$work/host" <<'EOF'
#!/bin/sh
ns=$1; shift
exec ip netns exec "$ns" unshare --uts --mount --propagation private "${0%/*}/enter" "$@"
EOF
cat >"$work/enter" <<'EOF'
#!/bin/sh
name=$1 dir=$2; shift 2
hostname "$name" && mount --bind "$dir/shm" /dev/shm && mount --bind "$dir/hosts" /etc/hosts || exit 125
TMPDIR=$dir/tmp
export TMPDIR
exec "$@"
EOF
# The launch agent, called by mpirun as `agent [options] HOST COMMAND WORDS...`; like ssh it
# hands the words to a shell on HOST, in a login-like environment.
cat >"$work/agent" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
host=\$1; shift
case \$host in
  $ip_b | $host_b) set -- "$ns_b" "$host_b" "$work/b" /bin/sh -c "\$*" ;;
  $ip_a | $host_a) set -- "$ns_a" "$host_a" "$work/a" /bin/sh -c "\$*" ;;
  *) echo "two_hosts agent: unknown host '\$host'" >&2; exit 255 ;;
esac
exec env -i PATH="\$PATH" HOME="\${HOME:-/}" SHELL=/bin/sh \${LD_LIBRARY_PATH:+LD_LIBRARY_PATH="\$LD_LIBRARY_PATH"} \\
  "$work/host" "\$@"
EOF
chmod +x "$work/host" "$work/enter" "$work/agent"

# Settings of ours and of the caller that the remote rank needs (its environment is empty).
mca=(--hostfile "$work/hostfile" --map-by node
     --mca plm_rsh_agent "$work/agent" --mca plm_rsh_no_tree_spawn 1
     --mca oob_tcp_if_include "$net" --mca btl self,tcp --mca btl_tcp_if_include "$net")
# One-sided MPI between nodes over TCP: Open MPI 4.1's osc/rdma needs an RDMA-capable BTL
# (openib, uct; not tcp) and Debian's openmpi-mca-params.conf disables osc/pt2pt and
# osc/ucx ("osc = ^ucx,pt2pt"), so without this MPI_Win_create fails with MPI_ERR_WIN, as it
# would on a TCP-only cluster. gannet-run --mpi allows it again itself (this test checks
# that it does); plain mpirun needs it here. The caller's OMPI_MCA_osc, if any, wins.
[ -n "${OMPI_MCA_osc:-}" ] || [ -n "$gannet_run" ] || mca+=(--mca osc pt2pt)
forward=()
for name in $(env | sed -n 's/^\(\(GANNET\|UPCXX\)_[A-Za-z0-9_]*\|[AMTL]SAN_OPTIONS\|UBSAN_OPTIONS\|UCX_[A-Za-z0-9_]*\)=.*/\1/p'); do
  case $name in GANNET_MPIRUN | GANNET_MPIRUN_ARGS) continue ;; esac
  # gannet-run forwards these itself.
  if [ -n "$gannet_run" ]; then
    case $name in GANNET_SHARED_HEAP_SIZE | UPCXX_SHARED_HEAP_SIZE | GANNET_BYPASS | GANNET_BARRIER | GANNET_MPI_NODE_RANKS) continue ;; esac
  fi
  forward+=(-x "$name")
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
on_a=("$work/host" "$ns_a" "$host_a" "$work/a")

# bounded SECONDS COMMAND...: COMMAND on host a, killed after SECONDS. In the background so
# that a signal to this script runs its trap (and cleanup) at once, not after the job.
bounded() {
  local seconds=$1 rc
  shift
  timeout -k 10 "$seconds" "${on_a[@]}" "$@" &
  job_pid=$!
  wait $job_pid
  rc=$?
  job_pid=
  return $rc
}

# ---- 1. are they really two nodes? ----
probe='echo "probe rank=$OMPI_COMM_WORLD_RANK host=$(hostname) net=$(readlink /proc/self/ns/net) local_size=$OMPI_COMM_WORLD_LOCAL_SIZE"'
bounded 30 "$mpirun" -n 2 "${mca[@]}" /bin/sh -c "$probe" >"$work/probe.out" 2>&1
rc=$?
out=$(cat "$work/probe.out")
echo "$out"
[ $rc = 0 ] || fail "the probe job failed (exit $rc)"
lines=$(echo "$out" | grep -c '^probe rank=')
[ "$lines" = 2 ] || fail "the probe job printed $lines lines, expected 2"
[ "$(echo "$out" | grep '^probe rank=' | grep -c 'local_size=1$')" = 2 ] ||
  fail "Open MPI put the two ranks on one node (OMPI_COMM_WORLD_LOCAL_SIZE is not 1 for both)"
[ "$(echo "$out" | grep -o ' host=[^ ]*' | sort -u | wc -l)" = 2 ] || fail "the ranks ran on one hostname"
[ "$(echo "$out" | grep -o ' net=[^ ]*' | sort -u | wc -l)" = 2 ] || fail "the ranks ran in one network namespace"

# ---- 2. the job ----
if [ -n "$gannet_run" ]; then
  export GANNET_MPIRUN_ARGS="${GANNET_MPIRUN_ARGS:-} ${mca[*]} ${forward[*]}"  # no word has a space
  export GANNET_MPIRUN=$mpirun
  job=("$gannet_run" --mpi -n 2 ${heap:+--shared-heap "$heap"} "$@")
else
  [ -n "$heap" ] && export GANNET_SHARED_HEAP_SIZE=$heap && forward+=(-x GANNET_SHARED_HEAP_SIZE)
  job=("$mpirun" -n 2 "${mca[@]}" "${forward[@]}" "$@")
fi
echo "$me: ${job[*]}  (GANNET_BYPASS=${GANNET_BYPASS-unset}${GANNET_MPIRUN_ARGS:+, GANNET_MPIRUN_ARGS=$GANNET_MPIRUN_ARGS})"
start=$(date +%s.%N)
bounded "$limit" "${job[@]}"
rc=$?
end=$(date +%s.%N)
echo "$me: exit $rc after $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }') s"
[ $rc = 124 ] && echo "$me: FAIL: the job did not finish within $limit s" >&2

# ---- 3. nothing left behind ----
status=$rc
for ns in $ns_a $ns_b; do
  tries=0
  while [ -n "$(ip netns pids "$ns" 2>/dev/null)" ] && [ $tries -lt 50 ]; do
    sleep 0.1
    tries=$((tries + 1))
  done
  pids=$(ip netns pids "$ns" 2>/dev/null)
  if [ -n "$pids" ]; then
    echo "$me: FAIL: processes left in $ns: $(ps -o pid=,args= -p "$(echo $pids | tr ' ' ,)" | tr '\n' ';')" >&2
    status=1
  fi
done
for h in a b; do
  left=$(ls -A "$work/$h/shm")
  [ -z "$left" ] && continue
  echo "$me: left in host $h's /dev/shm:" $left
  if echo "$left" | grep -q '^gannet\.mpi-'; then
    echo "$me: FAIL: Gannet heap names left in host $h's /dev/shm" >&2
    status=1
  fi
done
# The ranks see only their hosts' /dev/shm: a name new in the machine's own one that stays
# would mean the private /dev/shm did not take (other tests own theirs for microseconds).
tries=0
while new=$(comm -13 <(echo "$shm_before") <(shm_real)); [ -n "$new" ] && [ $tries -lt 20 ]; do
  sleep 0.1
  tries=$((tries + 1))
done
if [ -n "$new" ]; then
  echo "$me: FAIL: new in /dev/shm:" $new >&2
  status=1
fi
exit $status
