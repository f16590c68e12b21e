#!/bin/sh
# A load like a compile's: one process busy for BUSY seconds, then idle
# for IDLE seconds, forever (default 3 and 3: busy half of the time).
#
#   bench/load/bursty.sh [BUSY_S [IDLE_S]] &
#   ...                        # e.g. netsim calibrate beside it
#   kill $!                    # stops it (SIGTERM or SIGINT), busy or idle
#
# It prints its pid on stderr. One busy process is one CPU's worth of
# load: on a 2-CPU machine, others_pct is about 50 % during a burst.
busy=${1:-3}
idle=${2:-3}
echo "bursty.sh: pid $$, busy $busy s / idle $idle s; stop with: kill $$" >&2
# The sleeps run in the background so that a signal ends the script at
# once (a shell runs its trap only after the foreground command).
spin=
nap=
trap 'kill $spin $nap 2>/dev/null; exit 0' INT TERM
while :; do
  sh -c 'while :; do :; done' &
  spin=$!
  sleep "$busy" &
  nap=$!
  wait "$nap"
  kill "$spin"
  wait "$spin" 2>/dev/null
  spin=
  sleep "$idle" &
  nap=$!
  wait "$nap"
done
