#!/usr/bin/env bash
# The measurement campaign behind calibrate/data/: netsim's microbenchmarks
# on the Debian MPI libraries of this machine, two ranks on one node, with
# the placement probe and the quiet-machine check (calibrate/README.md).
#
#   calibrate/campaign.sh                 # all three libraries
#   calibrate/campaign.sh mpich           # one of mpich, openmpi-ob1, openmpi-ucx
#   MINUTES=10 calibrate/campaign.sh      # measuring budget per library (default 30)
#   WAIT=600 calibrate/campaign.sh        # longest wait for a quiet machine, minutes (240)
#   NETSIM=path/to/netsim calibrate/campaign.sh   # skip the cargo build
#
# Needs: apt-get install mpich libmpich-dev openmpi-bin libopenmpi-dev.
# Writes calibrate/data/<library>/{<library>.csv,calibrate.log,environment.txt}
# and the fitted scenarios next to them.
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
work=$(mktemp -d)
lib=
# Keep what was measured even if the campaign is stopped.
save() {
  [ -n "$lib" ] && [ -d "$work/$lib" ] || return 0
  mkdir -p "calibrate/data/$lib"
  cp "$work/environment.txt" "calibrate/data/$lib/" 2>/dev/null || true
  cp "$work/$lib/$lib.csv" "$work/$lib/calibrate.log" "$work/$lib"/*.toml "calibrate/data/$lib/" 2>/dev/null || true
}
trap 'save; rm -rf "$work"' EXIT

environment() {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "kernel: $(uname -r)"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p') x $(nproc) ($(lscpu | sed -n 's/^Hypervisor vendor: *//p') guest)"
  echo "debian: $(cat /etc/debian_version)"
  echo "gcc: $(gcc -dumpfullversion)"
  dpkg-query -W -f='package: ${Package} ${Version}\n' mpich libmpich12 openmpi-bin libopenmpi3 libucx0 2>/dev/null || true
  echo "command: $*"
}

for lib in "${libs[@]}"; do
  case $lib in
    mpich) args=(--mpicc mpicc.mpich --mpirun mpirun.mpich) ;;
    openmpi-ob1) args=(--mpicc mpicc.openmpi --mpirun mpirun.openmpi
                       --mpirun-args "--mca pml ob1 --mca btl self,vader") ;;
    # pml ucx disqualifies itself without InfiniBand unless told to use
    # any transport (here UCX's shared memory: posix, sysv, cma).
    openmpi-ucx) args=(--mpicc mpicc.openmpi --mpirun mpirun.openmpi
                       --mpirun-args "--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any") ;;
    *) echo "campaign.sh: unknown library $lib (mpich, openmpi-ob1, openmpi-ucx)" >&2; exit 2 ;;
  esac
  cmd=("$netsim" calibrate --library "$lib" --out "$work/$lib" --minutes "$minutes" --max-wait "$wait" "${args[@]}")
  environment "${cmd[@]}" > "$work/environment.txt"
  "${cmd[@]}" > "$work/$lib.fit.txt" || true
  save
done
lib=
