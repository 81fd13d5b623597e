#!/usr/bin/env bash
# rerun_if_lsan_tracer_faults reruns a test only for LeakSanitizer's own tracer fault: a
# leak, another report or a failed check must fail on the first run, and a passing rerun
# must pass.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rerun=$here/rerun_if_lsan_tracer_faults
count=$(mktemp)
trap 'rm -f "$count"' EXIT
failures=0
tracer='echo "Tracer caught signal 11: addr=0x6978"; echo "==7==LeakSanitizer has encountered a fatal error."'

# expect <name> <status> <runs> <script>: the script runs with $1 = a file counting its runs.
expect() {
  : > "$count"
  "$rerun" bash -c "echo run >> \"\$1\"; $4" _ "$count" > /dev/null 2>&1
  local status=$? runs
  runs=$(wc -l < "$count")
  if [ "$status" -ne "$2" ] || [ "$runs" -ne "$3" ]; then
    echo "FAILED: $1: status $status after $runs runs, expected $2 after $3"
    failures=$((failures + 1))
  fi
}
expect pass 0 1 'exit 0'
expect plain_failure 1 1 'exit 1'
expect tracer_then_pass 0 2 "[ \$(wc -l < \"\$1\") -eq 2 ] && exit 0; $tracer; exit 23"
expect tracer_twice_then_pass 0 3 "[ \$(wc -l < \"\$1\") -eq 3 ] && exit 0; $tracer; exit 23"
expect tracer_thrice 23 3 "$tracer; exit 23"
expect leak_report 23 1 "echo '==7==ERROR: LeakSanitizer: detected memory leaks'; $tracer; exit 23"
expect ubsan_report 23 1 "echo 'x.c:1:2: runtime error: signed integer overflow'; $tracer; exit 23"
expect failed_check 23 1 "echo 'x.c:3: [rank 0] FAILED: value'; $tracer; exit 23"
expect other_fatal 23 1 "echo '==7==LeakSanitizer has encountered a fatal error.'; exit 23"
[ "$failures" -eq 0 ] && echo "rerun_if_lsan_tracer_faults: 9 cases pass"
exit $((failures != 0))
