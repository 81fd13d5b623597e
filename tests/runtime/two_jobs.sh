#!/bin/sh
# Two jobs of one program meet through a port: `PROGRAM serve FILE` (2 processes) accepts,
# `PROGRAM join FILE` (1 process) connects -- tests/runtime/connect.c.
#   two_jobs.sh MPIEXEC PROGRAM [launcher flags...]
# Open MPI 4.1 connects separate jobs only through its name server, ompi-server, started here
# for the two jobs (without it: "Underlying runtime environment does not support
# accept/connect functionality").
set -u
mpiexec=$1
program=$2
shift 2
dir=$(mktemp -d)
ompi-server --no-daemonize -r "$dir/uri" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
i=0
while [ ! -s "$dir/uri" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$dir/uri" ] || { echo "two_jobs.sh: ompi-server did not start" >&2; exit 1; }
"$mpiexec" --ompi-server "file:$dir/uri" "$@" -n 2 "$program" serve "$dir/port" &
first=$!
"$mpiexec" --ompi-server "file:$dir/uri" "$@" -n 1 "$program" join "$dir/port"
joined=$?
wait $first
served=$?
echo "two_jobs.sh: serving job exit $served, joining job exit $joined"
[ $served -eq 0 ] && [ $joined -eq 0 ]
