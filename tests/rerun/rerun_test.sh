#!/usr/bin/env bash
# rerun_if_known_fault runs a test again only for the named fault's signature: a leak, another
# report, a failed check, another fault's signature or an unknown fault name must fail on the
# first run, a passing rerun must pass, and a third fault fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rerun=$here/rerun_if_known_fault
count=$(mktemp)
trap 'rm -f "$count"' EXIT
failures=0 cases=0
tracer='echo "Tracer caught signal 11: addr=0x6978"; echo "==7==LeakSanitizer has encountered a fatal error."'
hang='echo "spawn: QUIRK_OPENMPI_SPAWN_HANG: a spawn did not return in time"'

# expect <fault> <name> <status> <runs> <script>: the script runs with $1 = a file counting its runs.
expect() {
  : > "$count"
  "$rerun" "$1" bash -c "echo run >> \"\$1\"; $5" _ "$count" > /dev/null 2>&1
  local status=$? runs
  runs=$(wc -l < "$count")
  cases=$((cases + 1))
  if [ "$status" -ne "$3" ] || [ "$runs" -ne "$4" ]; then
    echo "FAILED: $1 $2: status $status after $runs runs, expected $3 after $4"
    failures=$((failures + 1))
  fi
}
second='[ $(wc -l < "$1") -eq 2 ] && exit 0;'
third='[ $(wc -l < "$1") -eq 3 ] && exit 0;'
for fault in lsan-tracer openmpi-spawn-hang; do
  expect $fault pass 0 1 'exit 0'
  expect $fault plain_failure 1 1 'exit 1'
done
expect lsan-tracer tracer_then_pass 0 2 "$second $tracer; exit 23"
expect lsan-tracer tracer_twice_then_pass 0 3 "$third $tracer; exit 23"
expect lsan-tracer tracer_thrice 23 3 "$tracer; exit 23"
expect lsan-tracer leak_report 23 1 "echo '==7==ERROR: LeakSanitizer: detected memory leaks'; $tracer; exit 23"
expect lsan-tracer ubsan_report 23 1 "echo 'x.c:1:2: runtime error: signed integer overflow'; $tracer; exit 23"
expect lsan-tracer failed_check 23 1 "echo 'x.c:3: [rank 0] FAILED: value'; $tracer; exit 23"
expect lsan-tracer other_fatal 23 1 "echo '==7==LeakSanitizer has encountered a fatal error.'; exit 23"
expect lsan-tracer spawn_hang 75 1 "$hang; exit 75"
expect openmpi-spawn-hang hang_then_pass 0 2 "$second $hang; exit 75"
expect openmpi-spawn-hang hang_twice_then_pass 0 3 "$third $hang; exit 75"
expect openmpi-spawn-hang hang_thrice 75 3 "$hang; exit 75"
expect openmpi-spawn-hang failed_check 75 1 "echo 'spawn.c:3: [rank 0] FAILED: value'; $hang; exit 75"
expect openmpi-spawn-hang tracer 23 1 "$tracer; exit 23"
expect no-such-fault not_run 2 0 "exit 0"
[ "$failures" -eq 0 ] && echo "rerun_if_known_fault: $cases cases pass"
exit $((failures != 0))
