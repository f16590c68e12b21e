#!/usr/bin/env bash
# The measurement campaign behind calibrate/data/: netsim's microbenchmarks
# on the Debian MPI libraries of this machine, two ranks on one node, with
# the placement probe and the quiet-machine check (calibrate/README.md).
#
#   calibrate/campaign.sh                 # all three libraries
#   calibrate/campaign.sh mpich           # one of mpich, openmpi-ob1, openmpi-ucx
#   MINUTES=10 calibrate/campaign.sh      # measuring budget per library and pass (default 30)
#   WAIT=600 calibrate/campaign.sh        # longest wait for a quiet machine, minutes (240)
#   NETSIM=path/to/netsim calibrate/campaign.sh   # skip the cargo build
#
# Needs: apt-get install mpich libmpich-dev openmpi-bin libopenmpi-dev.
# Two passes, so that a machine that is rarely quiet still gives every
# library one full grid: first every library until each chunk of its grid
# has rows in one placement state (--states any), then each library again,
# measuring the states its chunks lack (--resume). Rows go straight to
# calibrate/data/<library>/<library>.csv (a stopped campaign keeps them
# and resumes); calibrate.log, environment.txt and the fitted scenarios
# <library>-<state>.toml sit next to them.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${MINUTES:-30}
wait=${WAIT:-240}
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(mpich openmpi-ob1 openmpi-ucx)

netsim=${NETSIM:-}
if [ -z "$netsim" ]; then
  cargo build --release --quiet
  netsim=target/release/netsim
fi

environment() {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "kernel: $(uname -r)"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p') x $(nproc) ($(lscpu | sed -n 's/^Hypervisor vendor: *//p') guest)"
  echo "debian: $(cat /etc/debian_version)"
  echo "gcc: $(gcc -dumpfullversion)"
  dpkg-query -W -f='package: ${Package} ${Version}\n' mpich libmpich12 openmpi-bin libopenmpi3 libucx0 2>/dev/null || true
  echo "netsim: $(git rev-parse --short HEAD 2>/dev/null || echo unknown), benchmark sha256 $(sha256sum calibrate/bench/netsim_bench.c | cut -c1-16)"
  echo "command: $*"
  echo
}

args_of() {
  case $1 in
    mpich) args=(--mpicc mpicc.mpich --mpirun mpirun.mpich) ;;
    openmpi-ob1) args=(--mpicc mpicc.openmpi --mpirun mpirun.openmpi
                       --mpirun-args "--mca pml ob1 --mca btl self,vader") ;;
    # pml ucx disqualifies itself without InfiniBand unless told to use
    # any transport (here UCX's shared memory: posix, sysv, cma).
    openmpi-ucx) args=(--mpicc mpicc.openmpi --mpirun mpirun.openmpi
                       --mpirun-args "--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any") ;;
    *) echo "campaign.sh: unknown library $1 (mpich, openmpi-ob1, openmpi-ucx)" >&2; exit 2 ;;
  esac
}

run() { # library, extra options...
  local lib=$1; shift
  args_of "$lib"
  local out=calibrate/data/$lib
  mkdir -p "$out"
  local resume=()
  [ -s "$out/$lib.csv" ] && resume=(--resume)
  local cmd=("$netsim" calibrate --library "$lib" --out "$out" --minutes "$minutes"
             --max-wait "$wait" "${resume[@]}" "$@" "${args[@]}")
  environment "${cmd[@]}" >> "$out/environment.txt"
  "${cmd[@]}" > /dev/null || echo "campaign.sh: $lib: netsim calibrate failed (see $out/calibrate.log)" >&2
}

for lib in "${libs[@]}"; do run "$lib" --states any; done
for lib in "${libs[@]}"; do run "$lib"; done
