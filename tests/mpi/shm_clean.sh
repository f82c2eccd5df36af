#!/usr/bin/env bash
# Runs a job (the arguments) and fails if it leaves anything new in /dev/shm: Gannet's heaps
# and control regions, or Open MPI's own segments. CTest runs it alone (RUN_SERIAL), so
# whatever appears meanwhile is the job's. Prints the job's output for CTest's expressions;
# exits with the job's status, or 99 with "/dev/shm leak" on a leak.
set -u
before=$(ls -A /dev/shm 2>/dev/null | sort)
"$@" 2>&1
status=$?
after=$(ls -A /dev/shm 2>/dev/null | sort)
new=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep -v '^$' || true)
if [ -n "$new" ]; then
  echo "/dev/shm leak: the job left $(echo "$new" | tr '\n' ' ')"
  exit 99
fi
echo "shm_clean: nothing left in /dev/shm (job status $status)"
exit "$status"
