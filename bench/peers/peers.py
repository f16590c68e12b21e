#!/usr/bin/env python3
"""netsim against its peers on the peers' own workloads.

SimGrid 3.32 (SMPI time-independent trace replay, CM02 network model) and
LogGOPSim (GOAL schedules) each get the workloads they are built for; netsim
replays the very same inputs. Per case the program prints both predictions
and their difference, the wall time and peak memory of each whole process
(`/usr/bin/time`), and the speed ratio. Simulators run alternately (peer,
netsim, netsim packet, then the reverse order on the next repetition) so
that a drift in the machine's speed hits both. A GOAL case also times
LogGOPSim's converter txt2bin, whose binary is all LogGOPSim reads: its
text row compares netsim from text with txt2bin plus LogGOPSim.
BookSim2 (`booksim`) runs the open-loop synthetic patterns on the 8-ary
n-cube against netsim's `kind = "synthetic"` with equal per-hop delays:
zero-load latency and saturation throughput per routing and pattern;
`booksim-tree` does the same on the 4-ary n-tree (BookSim's `fattree`).

  bench/peers/peers.py setup            # install SimGrid, build LogGOPSim
  bench/peers/peers.py run              # every default case
  bench/peers/peers.py run --only a2a-flat-512,allreduce-goal-65536
  bench/peers/peers.py run --big        # also the 1 M-rank GOAL cases
  bench/peers/peers.py list
  bench/peers/peers.py booksim          # BookSim2: clone, build, compare
  bench/peers/peers.py booksim-tree     # BookSim2 on the fat tree

Not part of CI: it installs packages, fetches LogGOPSim (and BookSim2) and runs for tens
of minutes. See README.md for the settings that make the physics equal.
Nothing here is copied from the peers: they are fetched and built at run
time into the cache folder.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOGGOPSIM_URL = "https://github.com/spcl/LogGOPSim"
# The commit the results in docs/PEERS.md were measured with.
LOGGOPSIM_COMMIT = "76451de16546c7ea39651c183cbc532f4a3457c0"
APT_PACKAGES = ["libsimgrid-dev", "gengetopt", "re2c", "libgraphviz-dev", "g++", "git", "time"]

# SMPI adds a 16-byte envelope to every message (a 0-byte send takes
# latency + 16 B / bandwidth on an idle platform): netsim's traces carry it.
SMPI_ENVELOPE = 16

# SimGrid settings that make its physics netsim's: max-min sharing of
# every link direction with no TCP correction (CM02), no reverse ACK
# traffic, no size-dependent factors, and every message sent eagerly and
# detached (netsim: eager for every size).
SIMGRID_CFG = [
    "--cfg=network/model:CM02",
    "--cfg=network/crosstraffic:0",
    "--cfg=smpi/bw-factor:0:1",
    "--cfg=smpi/lat-factor:0:1",
    "--cfg=smpi/async-small-thresh:1073741824",
    "--cfg=smpi/send-is-detached-thresh:1073741824",
    "--log=root.thres:warning",
    "--log=smpi_replay.thres:info",
    # The simulated time at the end, to the picosecond.
    "--log=smpi_replay.fmt:NETSIM_PEERS_END=%.12d%n",
]

# SMPI's defaults round: `surf/precision` 1e-9 s (smpirun sets it: times
# within 1 ns are merged) and `maxmin/precision` 1e-5. With many
# coinciding events (all-to-all on a torus) that moves SimGrid's answer by
# up to half a percent; `--simgrid-precise` tightens both (slower).
SIMGRID_PRECISE = ["--cfg=maxmin/precision:1e-12", "--cfg=surf/precision:1e-15"]

# LogGOPSim's parameters, in picoseconds (it reads integers; the GOAL
# `calc` amounts are in the same unit). g = 0 and eager for every size:
# netsim's ideal network has no per-NIC gap.
LGS = {"L": 2_500_000, "o": 1_500_000, "g": 0, "G": 10, "O": 0, "S": 1_000_000_000}


# ------------------------------------------------------------------ cases


class Case:
    def __init__(self, name, peer, about, big=False, **kw):
        self.name, self.peer, self.about = name, peer, about
        # "big": only with --big; "smoke": only by name (seconds in all,
        # to check a setup).
        self.big = big
        self.kw = kw


def sg(name, about, topo, pattern, big=False, modes=("flow", "packet")):
    return Case(name, "simgrid", about, big, topo=topo, pattern=pattern, modes=modes)


def goal(name, about, ptrn, procs, size, big=False):
    """A GOAL case: `ptrn` is a Schedgen pattern, or `pairwise_alltoall` /
    `recdoub_allreduce`, written here."""
    return Case(name, "loggopsim", about, big, ptrn=ptrn, procs=procs, size=size)


def smoke(case):
    case.big = "smoke"
    return case


FLAT = lambda n: ("flat", n)  # noqa: E731
TORUS = lambda *d: ("torus", d)  # noqa: E731

CASES = [
    sg("a2a-flat-512", "pairwise all-to-all 1 KiB, one switch, P = 512", FLAT(512), ("a2a", 1024)),
    sg("a2a-flat-1024", "pairwise all-to-all 1 KiB, one switch, P = 1024", FLAT(1024), ("a2a", 1024)),
    sg("a2a-torus-256", "pairwise all-to-all 1 KiB, 8x8x4 torus, P = 256", TORUS(8, 8, 4), ("a2a", 1024)),
    sg("a2a-torus-512", "pairwise all-to-all 1 KiB, 8x8x8 torus, P = 512", TORUS(8, 8, 8), ("a2a", 1024)),
    sg("stencil27-flat-512", "27-point halo, 10 iterations, one switch, P = 512", FLAT(512), ("halo27", 10)),
    sg("stencil27-torus-512", "27-point halo, 10 iterations, 8x8x8 torus", TORUS(8, 8, 8), ("halo27", 10)),
    sg("stencil27-torus-4096", "27-point halo, 10 iterations, 16x16x16 torus", TORUS(16, 16, 16),
       ("halo27", 10), big=True),
    sg("pairs64k-flat-4096", "random pairs 64 KiB, 10 rounds, one switch, P = 4096", FLAT(4096),
       ("pairs", 65536, 10)),
    sg("hvpp-10000", "HighVolumePingPong n = 10 000, 8 B, reversed receives", FLAT(2), ("hvpp", 10000)),
    goal("a2a-goal-1024", "pairwise all-to-all 8 B (step k+1 after step k's receive), P = 1024",
         "pairwise_alltoall", 1024, 8),
    goal("a2a-linear-goal-256", "linear all-to-all 8 B (Schedgen: every send and receive posted at once), P = 256",
         "linear_alltoall", 256, 8),
    goal("allreduce-goal-65536", "recursive-doubling allreduce 8 B (step k+1 after step k's receive), P = 65 536",
         "recdoub_allreduce", 65536, 8),
    goal("bcast-goal-1M", "binomial-tree broadcast 8 B (Schedgen), P = 1 048 576", "binomialtreebcast",
         1 << 20, 8, big=True),
    goal("allreduce-goal-1M", "recursive-doubling allreduce 8 B, P = 1 048 576",
         "recdoub_allreduce", 1 << 20, 8, big=True),
    smoke(sg("smoke-a2a-flat-16", "smoke test", FLAT(16), ("a2a", 1024))),
    smoke(sg("smoke-a2a-torus-64", "smoke test", TORUS(4, 4, 4), ("a2a", 1024))),
    smoke(sg("smoke-stencil27-torus-27", "smoke test", TORUS(3, 3, 3), ("halo27", 2))),
    smoke(sg("smoke-a2a-torus-27", "smoke test", TORUS(3, 3, 3), ("a2a", 1024))),
    smoke(sg("smoke-a2a-torus-16", "smoke test", TORUS(4, 2, 2), ("a2a", 1024))),
    smoke(sg("smoke-a2a-torus-8", "smoke test", TORUS(2, 2, 2), ("a2a", 1024))),
    smoke(sg("smoke-a2a-torus-36", "smoke test", TORUS(4, 3, 3), ("a2a", 1024))),
    smoke(sg("smoke-stencil27-torus-64", "smoke test", TORUS(4, 4, 4), ("halo27", 2))),
    smoke(sg("smoke-stencil27-flat-64", "smoke test", FLAT(64), ("halo27", 2))),
    smoke(sg("smoke-pairs64k-flat-64", "smoke test", FLAT(64), ("pairs", 65536, 4))),
    smoke(sg("smoke-hvpp-100", "smoke test", FLAT(2), ("hvpp", 100))),
    smoke(goal("smoke-a2a-goal-16", "smoke test", "linear_alltoall", 16, 8)),
    smoke(goal("smoke-allreduce-goal-64", "smoke test", "recdoub_allreduce", 64, 8)),
]

# Machines. Flat: InfiniBand QDR-like links (Bridges et al. Table 2:
# 3.787 GB/s, 1616 ns node to node = two cables of 808 ns). Torus: one
# host per router, every torus link 9.375 GB/s (Gemini x/z) and zero
# latency, so that every route has the same latency and netsim's MPI layer
# needs no host overhead to meet its calibration contract on any of them.
FLAT_BW, FLAT_LAT_PS = 3_787_000_000, 808_000
TORUS_BW, TORUS_LAT_PS = 9_375_000_000, 0
# netsim's cable from a host to its router, standing for SimGrid's torus
# host which is its own router: as fast as a Bandwidth can be, no latency.
NIC_BW = 1_000_000_000_000_000


# --------------------------------------------------------------- patterns


def pattern_ops(pattern, p, dims):
    """Per rank, a list of TI lines (without the rank prefix) with sizes
    as a format field `{s}` -> bytes."""
    kind = pattern[0]
    ops = [[] for _ in range(p)]
    if kind == "a2a":
        size = pattern[1]
        for r in range(p):
            for k in range(1, p):
                ops[r].append(("irecv", (r - k) % p, k, size))
                ops[r].append(("isend", (r + k) % p, k, size))
                ops[r].append(("waitall",))
    elif kind == "halo27":
        iters = pattern[1]
        x, y, z = dims
        offs = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1) if (a, b, c) != (0, 0, 0)]

        def size_of(o):
            n = sum(1 for v in o if v != 0)
            return {1: 4096, 2: 256, 3: 16}[n]

        def rank_of(cx, cy, cz):
            return (cx % x) + x * ((cy % y) + y * (cz % z))

        for r in range(p):
            cx, cy, cz = r % x, (r // x) % y, r // (x * y)
            for _ in range(iters):
                for t, o in enumerate(offs):
                    src = rank_of(cx - o[0], cy - o[1], cz - o[2])
                    ops[r].append(("irecv", src, t, size_of(o)))
                for t, o in enumerate(offs):
                    dst = rank_of(cx + o[0], cy + o[1], cz + o[2])
                    ops[r].append(("isend", dst, t, size_of(o)))
                ops[r].append(("waitall",))
    elif kind == "pairs":
        size, rounds = pattern[1], pattern[2]
        rng = random.Random(1)
        for rd in range(rounds):
            perm = list(range(p))
            rng.shuffle(perm)
            inv = [0] * p
            for a, b in enumerate(perm):
                inv[b] = a
            for r in range(p):
                if perm[r] != r:
                    ops[r].append(("irecv", inv[r], rd, size))
                    ops[r].append(("isend", perm[r], rd, size))
                ops[r].append(("waitall",))
    elif kind == "hvpp":
        n = pattern[1]
        for i in range(n):
            ops[0].append(("isend", 1, i, 8))
        ops[0].append(("waitall",))
        for i in reversed(range(n)):
            ops[1].append(("irecv", 0, i, 8))
        ops[1].append(("waitall",))
    else:
        raise ValueError(kind)
    return ops


def write_ti(folder, ops, extra):
    """Per-rank TI files and a list file (what `smpirun -replay` reads);
    every size plus `extra` bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for r, lines in enumerate(ops):
        name = f"rank{r}.txt"
        names.append(name)
        with open(folder / name, "w") as f:
            f.write(f"{r} init\n")
            for op in lines:
                if op[0] == "waitall":
                    f.write(f"{r} waitall\n")
                else:
                    f.write(f"{r} {op[0]} {op[1]} {op[2]} {op[3] + extra}\n")
            f.write(f"{r} finalize\n")
    # SimGrid opens the listed files from its working directory (the
    # case's folder); netsim tries the list's folder, then that.
    (folder / "list.txt").write_text("".join(f"{folder.name}/{n}\n" for n in names))


# --------------------------------------------------------------- machines


def simgrid_platform(folder, topo):
    kind, arg = topo
    if kind == "flat":
        n = arg
        extra = ""
        lat = FLAT_LAT_PS / 1e12
        bw = FLAT_BW
    else:
        n = arg[0] * arg[1] * arg[2]
        extra = f' topology="TORUS" topo_parameters="{arg[0]},{arg[1]},{arg[2]}"'
        lat = TORUS_LAT_PS / 1e12
        bw = TORUS_BW
    (folder / "platform.xml").write_text(
        "<?xml version='1.0'?>\n"
        '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
        '<platform version="4.1">\n'
        f'  <cluster id="c" prefix="h" suffix="" radical="0-{n - 1}" speed="1Gf" '
        f'bw="{bw}Bps" lat="{lat!r}s" sharing_policy="SPLITDUPLEX"{extra}/>\n'
        "</platform>\n"
    )
    (folder / "hostfile").write_text("".join(f"h{i}\n" for i in range(n)))
    return n


def ring_order(k):
    """Order in which to declare the cables (i, i+1 mod k) of one ring so
    that netsim's shortest-path routing (ties: the earliest-declared link
    at each switch) breaks direction ties as SimGrid's torus does: the
    positive direction, except from coordinate k/2, which goes negative
    (SimGrid TorusZone::get_local_route, decided on the source's
    coordinates). Odd rings have no ties."""
    if k % 2:
        return list(range(k))
    h = k // 2
    return list(range(h - 1, -1, -1)) + list(range(k - 1, h - 1, -1))


def netsim_machine(folder, topo):
    kind, arg = topo
    lines = ["machine peers\n"]
    if kind == "flat":
        n = arg
        lines.append("switch s\n")
        for i in range(n):
            lines.append(f"host h{i}\n")
        for i in range(n):
            lines.append(f"link h{i} s bw={FLAT_BW}B/s lat={FLAT_LAT_PS}ps\n")
    else:
        x, y, z = arg
        n = x * y * z
        for i in range(n):
            lines.append(f"router r{i}\n")
        for i in range(n):
            lines.append(f"host h{i}\n")
            lines.append(f"link h{i} r{i} bw={NIC_BW}B/s lat=0ps\n")
        # Dimension order x, y, z (x fastest in the host number, as
        # SimGrid's): every x cable before every y cable before every z
        # cable, so shortest paths take x first.
        dims = (x, y, z)
        stride = (1, x, x * y)
        for d in range(3):
            k = dims[d]
            others = [i for i in range(n) if (i // stride[d]) % k == 0]
            for base in others:
                for c in ring_order(k):
                    a = base + c * stride[d]
                    b = base + ((c + 1) % k) * stride[d]
                    lines.append(f"link r{a} r{b} bw={TORUS_BW}B/s lat={TORUS_LAT_PS}ps\n")
    (folder / "machine.txt").write_text("".join(lines))
    return n


def postal_toml(alpha_ps, rate_bps, rendezvous_alpha_ps):
    out = []
    for loc in ("other_node", "same_node", "same_socket"):
        out.append(f"[mpi.postal.{loc}]\n")
        for proto in ("short", "eager"):
            out.append(f'{proto} = {{ alpha = "{alpha_ps} ps", rate = "{rate_bps} B/s" }}\n')
        out.append(f'rendezvous = {{ alpha = "{rendezvous_alpha_ps} ps", rate = "{rate_bps} B/s" }}\n')
    return "".join(out)


# Host costs that SMPI does not charge by default: no matching cost, no
# copy, no per-process stream gap (the wire alone limits a stream), so the
# calibration contract leaves zero host overhead; and no pair window (SMPI
# sends detached without credits: with Blue Waters' window of 1 message,
# HVPP's 10 000 messages went one round trip at a time, 250x SimGrid).
MPI_EQUAL = (
    "[mpi]\n"
    'preset = "blue-waters"\n'
    "short_max = 0\n"
    "eager_max = 1000000000\n"
    'pair_window = "unlimited"\n'
    'gamma = "0 ps"\n'
    'match_base = "0 ps"\n'
    'unexpected_copy_rate = "unlimited"\n'
    'memory_bandwidth = "unlimited"\n'
    "\n[mpi.host.all]\n"
    'g = "0 ps"\n'
    'G = "0 ps/B"\n'
)


def netsim_scenario_ti(folder, topo, mode):
    kind, _ = topo
    if kind == "flat":
        alpha, rate = 2 * FLAT_LAT_PS, FLAT_BW
    else:
        alpha, rate = 0, TORUS_BW
    text = (
        '[machine]\nfile = "machine.txt"\n\n'
        f'[transport]\nmode = "{mode}"\n\n'
        + MPI_EQUAL
        + "\n"
        + postal_toml(alpha, rate, 1_000_000_000)
        + '\n[workload]\nkind = "trace"\npath = "ti-netsim/list.txt"\nformat = "ti"\n'
    )
    path = folder / f"netsim-{mode}.toml"
    path.write_text(text)
    return path


def netsim_scenario_goal(folder, goal_file, name="netsim.toml"):
    # LogGOPSim's model as netsim's [mpi.loggp] (examples/loggp-goal.toml):
    # no contention, no bandwidth limit, its parameters in picoseconds.
    text = (
        '[machine]\npreset = "ideal"\nlatency = "0 ns"\nbandwidth = "unlimited"\n\n'
        "[mpi.loggp]\n"
        f'L = "{LGS["L"]} ps"\no = "{LGS["o"]} ps"\ng = "{LGS["g"]} ps"\n'
        f'G = "{LGS["G"]} ps/B"\nO = "{LGS["O"]} ps/B"\nS = {LGS["S"]}\n'
        f'\n[workload]\nkind = "trace"\npath = "{goal_file}"\nformat = "goal"\ncalc_unit = "1 ps"\n'
    )
    path = folder / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------- setup


def cache_dir(args):
    if args.cache:
        return Path(args.cache)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "netsim-peers"


def run(cmd, **kw):
    print("+ " + " ".join(str(c) for c in cmd), file=sys.stderr)
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def setup(args):
    missing = [p for p in APT_PACKAGES if subprocess.run(
        ["dpkg", "-s", p], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0]
    if missing:
        run(["apt-get", "install", "-y", *missing])
    cache = cache_dir(args)
    src = cache / "LogGOPSim"
    if not src.exists():
        url = args.loggopsim_git or os.environ.get("LOGGOPSIM_GIT") or LOGGOPSIM_URL
        run(["git", "clone", "-q", url, src])
    run(["git", "-C", src, "checkout", "-q", LOGGOPSIM_COMMIT])
    out = cache / "bin"
    out.mkdir(parents=True, exist_ok=True)
    # The upstream CMake build (RelWithDebInfo: -O2 -g) also wants MPI,
    # Fortran and clang for tools not used here; build the three tools the
    # same way by hand.
    lgs, sgen = src / "src" / "LogGOPSim", src / "src" / "Schedgen"
    build = cache / "build"
    if build.exists():
        shutil.rmtree(build)
    shutil.copytree(lgs, build / "lgs")
    shutil.copytree(sgen, build / "sgen")
    b = build / "lgs"
    run(["gengetopt", "-F", "loggopsim_cmdline", "-i", "loggopsim_cmdline.ggo"], cwd=b)
    run(["gengetopt", "-F", "txt2bin_cmdline", "-i", "txt2bin_cmdline.ggo"], cwd=b)
    run(["re2c", "-o", "txt2bin.cpp", "txt2bin.re"], cwd=b)
    cflags = ["-std=c++11", "-O2", "-g", "-w"]
    run(["g++", *cflags, "-I/usr/include/graphviz", "LogGOPSim.cpp", "loggopsim_cmdline.c",
         "-o", out / "LogGOPSim", "-lcgraph"], cwd=b)
    run(["g++", *cflags, "txt2bin.cpp", "txt2bin_cmdline.c", "-o", out / "txt2bin"], cwd=b)
    s = build / "sgen"
    run(["gengetopt", "-F", "schedgen_cmdline", "-i", "schedgen_cmdline.ggo"], cwd=s)
    run(["g++", *cflags, "buffer_element.cpp", "schedgen.cpp", "process_trace.cpp",
         "schedgen_cmdline.c", "-o", out / "schedgen"], cwd=s)
    print(f"LogGOPSim, txt2bin, schedgen in {out}", file=sys.stderr)


# -------------------------------------------------------------------- runs


def timed(cmd, cwd, log, may_fail=False):
    """Runs cmd under /usr/bin/time; returns (stdout, wall [s], peak [MiB]).
    A non-zero exit raises unless `may_fail` (BookSim's exit status is
    -1 after a converged run and 0 after an unstable one: its output
    says which)."""
    tfile = cwd / ".time"
    full = ["/usr/bin/time", "-o", str(tfile), "-f", "%e %M"] + [str(c) for c in cmd]
    with open(log, "a") as lf:
        lf.write("+ " + " ".join(full) + "\n")
        p = subprocess.run(full, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lf.write(p.stdout)
    if p.returncode != 0 and not may_fail:
        raise RuntimeError(f"{cmd[0]} failed ({p.returncode}); see {log}")
    wall, kib = tfile.read_text().split()[-2:]
    return p.stdout, float(wall), int(kib) / 1024.0


def prepare(case, work, tools):
    """Writes the case's inputs; returns {simulator: (cmd, cwd, parse)}."""
    d = work / case.name
    stamp = d / ".ready"
    kw = case.kw
    sims = {}
    if case.peer == "simgrid":
        topo = kw["topo"]
        if not stamp.exists():
            if d.exists():
                shutil.rmtree(d)
            d.mkdir(parents=True)
            n = simgrid_platform(d, topo)
            netsim_machine(d, topo)
            dims = topo[1] if topo[0] == "torus" else cube_dims(n)
            ops = pattern_ops(kw["pattern"], n, dims)
            write_ti(d / "ti-simgrid", ops, 0)
            write_ti(d / "ti-netsim", ops, SMPI_ENVELOPE)
            stamp.touch()
        n = sum(1 for _ in open(d / "hostfile"))
        precise = SIMGRID_PRECISE if tools.get("simgrid_precise") else []
        sims["simgrid"] = (
            ["smpirun", "-np", n, "-platform", "platform.xml", "-hostfile", "hostfile",
             "-replay", "ti-simgrid/list.txt", *SIMGRID_CFG, *precise],
            d, parse_simgrid)
        for mode in kw["modes"]:
            sc = netsim_scenario_ti(d, topo, mode)
            sims[f"netsim-{mode}"] = ([tools["netsim"], "run", sc.name, "--json", "--no-wall", "--quiet"],
                                      d, parse_netsim)
    else:
        if not stamp.exists():
            if d.exists():
                shutil.rmtree(d)
            d.mkdir(parents=True)
            if kw["ptrn"] == "pairwise_alltoall":
                write_pairwise_alltoall_goal(d / "schedule.goal", kw["procs"], kw["size"])
            elif kw["ptrn"] == "recdoub_allreduce":
                write_recdoub_allreduce_goal(d / "schedule.goal", kw["procs"], kw["size"])
            else:
                run([tools["schedgen"], "-p", kw["ptrn"], "-s", kw["procs"], "-d", kw["size"],
                     "-o", d / "schedule.goal"], stdout=subprocess.DEVNULL)
            run([tools["txt2bin"], "-i", d / "schedule.goal", "-o", d / "schedule.bin"],
                stdout=subprocess.DEVNULL)
            stamp.touch()
        netsim_scenario_goal(d, "schedule.goal")
        # netsim's compiled form, as txt2bin's for LogGOPSim: written before
        # the timed runs (again each time: it is this netsim's format).
        run([tools["netsim"], "compile", d / "schedule.goal", d / "schedule.goalc"])
        netsim_scenario_goal(d, "schedule.goalc", "netsim-compiled.toml")
        sims["loggopsim"] = (
            [tools["LogGOPSim"], "-f", "schedule.bin", "-b"]
            + [x for k, v in LGS.items() for x in (f"-{k}", str(v))],
            d, parse_loggopsim)
        for n, sc in (("netsim-text", "netsim.toml"), ("netsim-compiled", "netsim-compiled.toml")):
            sims[n] = ([tools["netsim"], "run", sc, "--json", "--no-wall", "--quiet"], d, parse_netsim)
        # LogGOPSim reads only txt2bin's binary; from text, its run is
        # txt2bin then LogGOPSim (timed apart, added up for the text row).
        sims[TXT2BIN] = ([tools["txt2bin"], "-i", "schedule.goal", "-o", "schedule.timed.bin"],
                         d, lambda out: None)
    return sims


# The name of txt2bin's timed runs among a GOAL case's simulators.
TXT2BIN = "txt2bin"


def write_pairwise_alltoall_goal(path, p, size):
    """GOAL text of the pairwise-exchange all-to-all: in step k rank r
    sends to r + k and receives from r - k (tag k); step k + 1 starts when
    step k's receive is done, so at most one receive is posted at a time.
    (Schedgen's `linear_alltoall` posts all of them at once, and
    LogGOPSim's list matching then costs O(P) per message: P = 256 takes
    23 s on this machine, P = 1024 hours.)"""
    with open(path, "w") as f:
        f.write(f"num_ranks {p}\n\n")
        for r in range(p):
            f.write(f"rank {r} {{\n")
            for k in range(1, p):
                f.write(f"l{2 * k - 1}: send {size}b to {(r + k) % p} tag {k}\n")
                f.write(f"l{2 * k}: recv {size}b from {(r - k) % p} tag {k}\n")
                if k > 1:
                    f.write(f"l{2 * k - 1} requires l{2 * k - 2}\n")
                    f.write(f"l{2 * k} requires l{2 * k - 2}\n")
            f.write("}\n\n")


def write_recdoub_allreduce_goal(path, p, size):
    """GOAL text of the recursive-doubling allreduce of `size` bytes (P a
    power of two): in step k rank r exchanges with r XOR 2^k (tag k); step
    k + 1's send waits for step k's receive. Written here because
    Schedgen's `allreduce_recdoub` (reduce-scatter + allgather, tag 0 for
    every step) leaves receives unmatched in LogGOPSim from P = 256 on."""
    steps = p.bit_length() - 1
    with open(path, "w") as f:
        f.write(f"num_ranks {p}\n\n")
        for r in range(p):
            f.write(f"rank {r} {{\n")
            for k in range(steps):
                f.write(f"l{2 * k + 1}: send {size}b to {r ^ (1 << k)} tag {k}\n")
                f.write(f"l{2 * k + 2}: recv {size}b from {r ^ (1 << k)} tag {k}\n")
                if k > 0:
                    f.write(f"l{2 * k + 1} requires l{2 * k}\n")
            f.write("}\n\n")


def cube_dims(n):
    """The most cubic x, y, z with x * y * z = n (x fastest), as netsim's
    `grid_dims`: used to give flat machines a 3-D rank grid for halos."""
    best = None
    for x in range(1, n + 1):
        if n % x:
            continue
        for y in range(1, n // x + 1):
            if (n // x) % y:
                continue
            z = n // x // y
            key = (max(x, y, z) - min(x, y, z), -x)
            if best is None or key < best[0]:
                best = (key, (x, y, z))
    return best[1]


def parse_simgrid(out):
    for line in out.splitlines():
        if line.startswith("NETSIM_PEERS_END="):
            return round(float(line.split("=", 1)[1]) * 1e12)
    raise RuntimeError("no end time in SimGrid's output")


def parse_loggopsim(out):
    for line in out.splitlines():
        if line.startswith("Maximum finishing time"):
            return int(line.split(":")[1].split()[0])
    raise RuntimeError("no finishing time in LogGOPSim's output")


def parse_netsim(out):
    return json.loads(out)["makespan_ps"]


def load():
    try:
        return os.getloadavg()
    except OSError:
        return (float("nan"),) * 3


def run_cases(args):
    cache = cache_dir(args)
    tools = {t: cache / "bin" / t for t in ("LogGOPSim", "txt2bin", "schedgen")}
    tools["simgrid_precise"] = args.simgrid_precise
    tools["netsim"] = Path(args.netsim).resolve() if args.netsim else REPO / "target" / "release" / "netsim"
    if not args.netsim:
        run(["cargo", "build", "--release", "--quiet"], cwd=REPO)
    # Absolute: each simulator runs in its case folder, where a relative
    # --work would name another place.
    work = Path(args.work).resolve() if args.work else REPO / "target" / "peers"
    work.mkdir(parents=True, exist_ok=True)
    log = work / "peers.log"
    cases = [c for c in CASES if (args.only and c.name in args.only)
             or (not args.only and (c.big is False or (args.big and c.big is True)))]
    unknown = set(args.only or []) - {c.name for c in CASES}
    if unknown:
        sys.exit(f"unknown cases: {', '.join(sorted(unknown))} (peers.py list)")
    results = []
    l0 = load()
    print(f"# netsim vs peers, {time.strftime('%Y-%m-%d %H:%M')}, load average at start "
          f"{l0[0]:.2f} {l0[1]:.2f} {l0[2]:.2f}, {os.cpu_count()} CPUs, {args.reps} repetition(s)")
    print("| case | peer | peer prediction | netsim | difference | peer wall [s] | netsim wall [s] "
          "| peer peak [MiB] | netsim peak [MiB] | speed ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        sims = prepare(case, work, tools)
        names = list(sims)
        figs = {n: {"wall": [], "peak": [], "pred": None} for n in names}
        for rep in range(args.reps):
            order = names if rep % 2 == 0 else list(reversed(names))
            for n in order:
                cmd, cwd, parse = sims[n]
                out, wall, peak = timed(cmd, cwd, log)
                figs[n]["wall"].append(wall)
                figs[n]["peak"].append(peak)
                figs[n]["pred"] = parse(out)
        peer = names[0]
        rows = [(peer, n) for n in names[1:] if n != TXT2BIN]
        if TXT2BIN in figs:
            # From text against from text: txt2bin's wall added to
            # LogGOPSim's, the larger of their peaks.
            rows.append((peer + "+" + TXT2BIN, "netsim-text"))
        for pname, n in rows:
            pw = statistics.median(figs[peer]["wall"])
            ppeak = max(figs[peer]["peak"])
            if pname != peer:
                pw += statistics.median(figs[TXT2BIN]["wall"])
                ppeak = max(ppeak, max(figs[TXT2BIN]["peak"]))
            nw = statistics.median(figs[n]["wall"])
            pp, npred = figs[peer]["pred"], figs[n]["pred"]
            diff = (npred - pp) / pp if pp else float("nan")
            row = {
                "case": case.name, "about": case.about, "peer": pname, "netsim": n,
                "peer_ps": pp, "netsim_ps": npred, "difference": diff,
                "peer_wall_s": pw, "netsim_wall_s": nw,
                "peer_peak_mib": ppeak, "netsim_peak_mib": max(figs[n]["peak"]),
                "speed_ratio": pw / nw if nw > 0 else float("inf"),
            }
            results.append(row)
            print(f"| {case.name} | {pname} | {pp / 1e6:.6f} us | {n}: {npred / 1e6:.6f} us | {diff:+.2e} "
                  f"| {pw:.2f} | {nw:.2f} | {row['peer_peak_mib']:.0f} | {row['netsim_peak_mib']:.0f} "
                  f"| {row['speed_ratio']:.1f}x |", flush=True)
    l1 = load()
    print(f"\nload average at end {l1[0]:.2f} {l1[1]:.2f} {l1[2]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"load_start": l0, "load_end": l1, "rows": results}, indent=1))


# ------------------------------------------------------------ conformance

SIMGRID_URL = "https://github.com/simgrid/simgrid"
SIMGRID_TAG = "v3.32"

# Two-rank TI traces for the conformance table: a ping-pong (one message
# in flight at a time) and an exchange (one message each way at once,
# then 1e8 flops on rank 0).
CONFORMANCE_TRACES = {
    "pingpong": ("0 init\n0 send 1 0 1e6\n0 recv 1 1 1e6\n",
                 "1 init\n1 recv 0 0 1e6\n1 send 0 1 1e6\n"),
    "exchange": ("0 init\n0 irecv 1 0 1e6\n0 isend 1 0 1e6\n0 waitall\n0 compute 1e8\n",
                 "1 init\n1 irecv 0 0 1e6\n1 isend 0 0 1e6\n1 waitall\n"),
}


# The contention trace of the conformance table: up to this many ranks
# on a platform's first hosts, pairs drawn afresh each round exchanging
# one of four sizes each way at once, and some computation between
# rounds, so that flows of different routes share links.
CONTENTION_RANKS = 6
CONTENTION_ROUNDS = 6


def contention_trace(n, seed=1):
    """Per-rank TI text of the contention trace for `n` ranks (a fixed
    generator: the same files on every machine)."""
    rng = random.Random(seed)
    lines = [[f"{r} init"] for r in range(n)]
    for k in range(CONTENTION_ROUNDS):
        perm = list(range(n))
        rng.shuffle(perm)
        for i in range(0, n - 1, 2):
            a, b = perm[i], perm[i + 1]
            sa, sb = rng.choice([1e3, 5e4, 1e6, 3e6]), rng.choice([1e3, 5e4, 1e6, 3e6])
            lines[a] += [f"{a} irecv {b} {k} {sb:g}", f"{a} isend {b} {k} {sa:g}", f"{a} waitall"]
            lines[b] += [f"{b} irecv {a} {k} {sa:g}", f"{b} isend {a} {k} {sb:g}", f"{b} waitall"]
        for r in range(n):
            if rng.random() < 0.5:
                lines[r].append(f"{r} compute {rng.choice([1e6, 1e7, 5e7]):g}")
    return ["\n".join(ls + [f"{r} finalize"]) + "\n" for r, ls in enumerate(lines)]


def platform_hosts(path):
    """The hosts (and Vivaldi peers) of a platform file in document order
    (clusters and cabinets expanded as prefix + radical + suffix): netsim's
    node order."""
    import xml.etree.ElementTree as ET
    root = ET.fromstring(path.read_text().lstrip().encode())
    out = []
    for e in root.iter():
        if e.tag in ("host", "peer"):
            out.append(e.get("id"))
        elif e.tag in ("cluster", "cabinet"):
            for part in e.get("radical", "").split(","):
                lo, _, hi = part.strip().partition("-")
                out += [f"{e.get('prefix')}{i}{e.get('suffix')}" for i in range(int(lo), int(hi or lo) + 1)]
    return out


# The SimGrid settings of SIMGRID_CFG that choose the network model and
# its factors: a platform whose <config> sets one of these keeps its own.
NETWORK_MODEL_KEYS = ("network/model", "smpi/bw-factor", "smpi/lat-factor")


def config_keys(path):
    """The keys a platform file's <config> sets."""
    import xml.etree.ElementTree as ET
    root = ET.fromstring(path.read_text().lstrip().encode())
    return {p.get("id") for c in root.iter("config") for p in c.iter("prop")}


def simgrid_cfg_for(path):
    """SIMGRID_CFG for a platform file, less what the file's <config>
    sets (a `--cfg` on smpirun's command line overrides the file's
    <config>: SimGrid 3.32 `surfxml_sax_cb.cpp`, `ETag_surfxml_config`).
    A file that chooses its network model keeps that model's own factor
    tables where it gives none (SMPI's defaults), as a user's run of it
    would: the harness then passes neither `smpi/*-factor` flag."""
    keys = config_keys(path)
    drop = set(keys)
    if "network/model" in keys:
        drop |= set(NETWORK_MODEL_KEYS)
    return [c for c in SIMGRID_CFG
            if not (c.startswith("--cfg=") and c[6:].split(":", 1)[0] in drop)]


def conformance(args):
    """Every platform file of SimGrid's examples/platforms (tag
    SIMGRID_TAG) through netsim and, where netsim accepts it, SimGrid, on
    the two CONFORMANCE_TRACES from the first two hosts; prints a
    Markdown table (docs/PEERS.md)."""
    cache = cache_dir(args)
    src = cache / "simgrid"
    if not src.exists():
        url = args.simgrid_git or os.environ.get("SIMGRID_GIT") or SIMGRID_URL
        run(["git", "clone", "-q", "--depth", "1", "--branch", SIMGRID_TAG, "--filter=blob:none",
             "--sparse", url, src])
        run(["git", "-C", src, "sparse-checkout", "set", "examples/platforms"])
    netsim = Path(args.netsim).resolve() if args.netsim else REPO / "target" / "release" / "netsim"
    if not args.netsim:
        run(["cargo", "build", "--release", "--quiet"], cwd=REPO)
    work = (Path(args.work).resolve() if args.work else REPO / "target" / "peers") / "conformance"
    work.mkdir(parents=True, exist_ok=True)
    for name, (r0, r1) in CONFORMANCE_TRACES.items():
        (work / f"{name}0.txt").write_text(r0)
        (work / f"{name}1.txt").write_text(r1)
        (work / f"{name}.txt").write_text(f"{name}0.txt\n{name}1.txt\n")
    names = list(CONFORMANCE_TRACES)
    print("| file | netsim | " + " | ".join(f"{t}: SimGrid, netsim flow" for t in names)
          + f" | contention (up to {CONTENTION_RANKS} ranks): SimGrid, netsim flow |")
    print("|---|---|" + "---|" * (len(names) + 1))
    for plat in sorted((src / "examples" / "platforms").glob("*.xml")):
        cells = []
        verdict = "accepted"
        # A platform of one host takes both ranks, on both sides (SimGrid's
        # hostfile lists it twice below; netsim's --ppn 2).
        one_host = ["--ppn", "2"] if len(platform_hosts(plat)) == 1 else []
        for t in names:
            r = subprocess.run([netsim, "replay", f"{t}.txt", "--platform", plat, "--mode", "flow",
                                "--json", "--no-wall", "--quiet", *one_host], cwd=work, capture_output=True, text=True)
            if r.returncode != 0:
                msg = r.stderr.strip().splitlines()[-1].replace("netsim: error: ", "")
                verdict = "refused: " + msg.replace(str(plat.parent) + "/", "").replace("|", "/")
                break
            ns = json.loads(r.stdout)["makespan_ps"]
            hosts = platform_hosts(plat)
            (work / "hostfile").write_text(f"{hosts[0]}\n{hosts[min(1, len(hosts) - 1)]}\n")
            p = subprocess.run(["smpirun", "-np", "2", "-platform", plat, "-hostfile", "hostfile",
                                "-replay", f"{t}.txt", *simgrid_cfg_for(plat)], cwd=work, capture_output=True,
                               text=True)
            try:
                sg = parse_simgrid(p.stdout + p.stderr) if p.returncode == 0 else None
            except RuntimeError:
                sg = None
            if sg is None:
                cells.append(f"SimGrid failed, {ns / 1e12:.12f} s")
            else:
                cells.append(f"{sg / 1e12:.12f} s, {ns / 1e12:.12f} s ({(ns - sg) / sg:+.1e})")
        if verdict == "accepted":
            cells.append(contention_cell(netsim, work, plat))
        else:
            cells = [""] * (len(names) + 1)
        print(f"| {plat.name} | {verdict} | " + " | ".join(cells) + " |", flush=True)


def contention_cell(netsim, work, plat):
    """The contention trace on the first hosts of `plat` (one rank each)
    through both simulators: its table cell. SimGrid runs twice, with its
    default lazy max-min update and with `network/optim:Full`, which
    differ where one of them errs (docs/PEERS.md: the lazy update can
    leave a flow's rate stale after another joins its link; the full one
    can deliver a message of a route without links before its latency);
    the cell gives both and netsim's difference from each."""
    hosts = platform_hosts(plat)
    n = min(CONTENTION_RANKS, len(hosts))
    if n < 3:
        return "fewer than 3 hosts"
    texts = contention_trace(n)
    for r, t in enumerate(texts):
        (work / f"contention{r}.txt").write_text(t)
    (work / "contention.txt").write_text("".join(f"contention{r}.txt\n" for r in range(n)))
    (work / "hostfile").write_text("".join(f"{h}\n" for h in hosts[:n]))

    def simgrid(extra):
        p = subprocess.run(["smpirun", "-np", str(n), "-platform", plat, "-hostfile", "hostfile",
                            "-replay", "contention.txt", *simgrid_cfg_for(plat), *extra], cwd=work,
                           capture_output=True, text=True)
        try:
            return parse_simgrid(p.stdout + p.stderr) if p.returncode == 0 else None
        except RuntimeError:
            return None

    full, lazy = simgrid(["--cfg=network/optim:Full"]), simgrid([])
    r = subprocess.run([netsim, "replay", "contention.txt", "--platform", plat, "--mode", "flow",
                        "--json", "--no-wall", "--quiet"], cwd=work, capture_output=True, text=True)
    if r.returncode != 0:
        msg = r.stderr.strip().splitlines()[-1].replace("netsim: error: ", "")
        msg = msg.replace(str(plat.parent) + "/", "").replace("|", "/")
        return f"{n} ranks: netsim refused: {msg}; SimGrid " + (
            "failed too" if full is None else f"{full / 1e12:.12f} s")
    ns = json.loads(r.stdout)["makespan_ps"]
    if full is None or lazy is None:
        return f"{n} ranks: SimGrid failed, netsim {ns / 1e12:.12f} s"
    cell = f"{n} ranks: {lazy / 1e12:.12f} s"
    if abs(lazy - full) > 1e-6 * full:
        cell += f" (`network/optim:Full` {full / 1e12:.12f} s)"
    cell += f", {ns / 1e12:.12f} s ({(ns - lazy) / lazy:+.1e}"
    if abs(lazy - full) > 1e-6 * full:
        cell += f"; {(ns - full) / full:+.1e} from Full"
    return cell + ")"


# ------------------------------------------------------------ collectives

# SimGrid's `smpi/coll-selector` against the netsim selector that follows
# the same library (docs/PEERS.md, "Collectives").
COLL_SELECTORS = {"default": "smpi", "mpich": "mpich", "ompi": "openmpi"}
# The flat cluster of the collectives comparison: 32 hosts on one switch.
COLL_PLATFORM = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="flat" prefix="host-" suffix="" radical="0-31" speed="1Gf" bw="125MBps" lat="50us"/>
</platform>
"""


def coll_traces(work):
    """The TI traces of the comparison, as (name, ranks, list file):
    every shared micro trace (one file for all ranks) split into per-rank
    files, and `app-32ranks` (already per rank)."""
    root = shared_dir() / "traces" / "simgrid-ti"
    out = []
    for f in sorted((root / "micro").glob("actions_*.txt")):
        per = {}
        for line in f.read_text().splitlines():
            if line.strip():
                per.setdefault(int(line.split()[0]), []).append(line)
        d = work / f.stem
        d.mkdir(parents=True, exist_ok=True)
        for r, lines in per.items():
            (d / f"rank{r}.txt").write_text("\n".join(lines) + "\n")
        (d / "list.txt").write_text("".join(f"rank{r}.txt\n" for r in sorted(per)))
        out.append((f.stem, len(per), d / "list.txt"))
    app = root / "app-32ranks"
    n = len(list(app.glob("ti_trace*.txt")))
    d = work / "app-32ranks"
    d.mkdir(parents=True, exist_ok=True)
    (d / "list.txt").write_text("".join(f"{app / f'ti_trace{r}.txt'}\n" for r in range(n)))
    out.append(("app-32ranks", n, d / "list.txt"))
    return out


# Generated traces: every collective SimGrid's TI replay knows, at
# message sizes (elements of MPI_DOUBLE, `init 1`) and communicator sizes
# on both sides of the selectors' switch points (Open MPI's tables switch
# between 1 KiB and 1 MiB and by communicator rows; SimGrid's default at
# power-of-two sizes), with zero flops so that only communication and
# the simulator's own reduction charge remain.
COLL_GEN_KINDS = ["barrier", "bcast", "reduce", "allreduce", "alltoall", "alltoallv", "gather", "scatter",
                  "gatherv", "scatterv", "allgather", "allgatherv", "reducescatter", "scan", "exscan"]
COLL_GEN_PROCS = [4, 7, 32]
COLL_GEN_COUNTS = [1, 128, 8192, 131072]  # x 8 B: 8 B, 1 KiB, 64 KiB, 1 MiB


def coll_action(kind, r, n, c):
    """Rank r's TI action for collective `kind` on n ranks, c elements per
    rank (the v-collectives: 1, 2 or 3 times c by rank and peer)."""
    v = [c * (1 + (r + j) % 3) for j in range(n)]  # r to j, as j to r
    mine = [c * (1 + j % 3) for j in range(n)]  # rank j's block
    js = lambda xs: " ".join(map(str, xs))  # noqa: E731
    return {
        "barrier": "barrier",
        "bcast": f"bcast {c} 0",
        "reduce": f"reduce {c} 0 0",
        "allreduce": f"allreduce {c} 0",
        "alltoall": f"alltoall {c} {c}",
        "alltoallv": f"alltoallv {sum(v)} {js(v)} {sum(v)} {js(v)}",
        "gather": f"gather {c} {c} 0",
        "scatter": f"scatter {c} {c} 0",
        "gatherv": f"gatherv {mine[r]} {js(mine)} 0",
        "scatterv": f"scatterv {js(mine)} {mine[r]} 0",
        "allgather": f"allgather {c} {c}",
        "allgatherv": f"allgatherv {mine[r]} {js(mine)}",
        "reducescatter": f"reducescatter {js(mine)} 0",
        "scan": f"scan {c} 0",
        "exscan": f"exscan {c} 0",
    }[kind]


def coll_generated(work):
    """The generated traces, as coll_traces gives them: one collective call
    per trace, per kind, communicator size and size."""
    out = []
    for kind in COLL_GEN_KINDS:
        for n in COLL_GEN_PROCS:
            for c in [0] if kind == "barrier" else COLL_GEN_COUNTS:
                name = f"gen-{kind}-p{n}" + ("" if kind == "barrier" else f"-{8 * c}B")
                d = work / "generated" / name
                d.mkdir(parents=True, exist_ok=True)
                for r in range(n):
                    (d / f"rank{r}.txt").write_text(
                        f"{r} init 1\n{r} {coll_action(kind, r, n, c)}\n{r} finalize\n")
                (d / "list.txt").write_text("".join(f"rank{r}.txt\n" for r in range(n)))
                out.append((name, n, d / "list.txt"))
    return out


def shared_dir():
    """The shared data folder by the project's rule (scenarios/src/shared.rs):
    $NETSIM_SHARED, else the first `D/shared` holding `traces` for D the
    checkout or one of its parents."""
    env = os.environ.get("NETSIM_SHARED")
    if env:
        return Path(env)
    for d in [REPO, *REPO.parents]:
        if (d / "shared" / "traces").is_dir():
            return d / "shared"
    sys.exit("no shared data: set NETSIM_SHARED")


def coll_algorithms(report):
    """`kind: algorithm` per collective kind of a netsim JSON report."""
    seen = {}
    for row in report.get("collectives", []):
        seen.setdefault(row["kind"], []).append(row["algorithm"])
    return "; ".join(f"{k}: {', '.join(dict.fromkeys(v))}" for k, v in seen.items()) or "none"


def collectives(args):
    """Every trace of coll_traces under SimGrid with each selector of
    COLL_SELECTORS (or --selectors) and under netsim with the matching
    `--collectives`, on COLL_PLATFORM with SIMGRID_CFG + SIMGRID_PRECISE;
    prints one Markdown table per selector pair."""
    netsim = Path(args.netsim).resolve() if args.netsim else REPO / "target" / "release" / "netsim"
    if not args.netsim:
        run(["cargo", "build", "--release", "--quiet"], cwd=REPO)
    work = (Path(args.work).resolve() if args.work else REPO / "target" / "peers") / "collectives"
    work.mkdir(parents=True, exist_ok=True)
    plat = work / "platform.xml"
    plat.write_text(COLL_PLATFORM)
    (work / "hostfile").write_text("".join(f"host-{i}\n" for i in range(32)))
    traces = ([] if args.generated_only else coll_traces(work)) + coll_generated(work)
    if args.only:
        traces = [x for x in traces if any(o in x[0] for o in args.only)]
    selectors = args.selectors or list(COLL_SELECTORS)
    results = []
    for sel in selectors:
        ours = COLL_SELECTORS[sel]
        print(f"\n### SimGrid `smpi/coll-selector:{sel}` against netsim `--collectives {ours}`\n")
        print("| trace | ranks | SimGrid [s] | netsim [s] | difference | algorithms (netsim) |")
        print("|---|---|---|---|---|---|")
        for name, n, lst in traces:
            cfg = [] if sel == "default" else [f"--cfg=smpi/coll-selector:{sel}"]
            p = subprocess.run(["smpirun", "-np", str(n), "-platform", plat, "-hostfile", work / "hostfile",
                                "-replay", lst, *SIMGRID_CFG, *SIMGRID_PRECISE, *cfg,
                                *[f"--cfg={c}" for c in args.simgrid_cfg]],
                               cwd=lst.parent, capture_output=True, text=True)
            sg = parse_simgrid(p.stdout + p.stderr) if p.returncode == 0 else None
            r = subprocess.run([netsim, "replay", lst, "--platform", plat, "--mode", "flow", "--json",
                                "--no-wall", "--quiet", "--collectives", ours],
                               cwd=lst.parent, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"netsim failed on {name}: {r.stderr.strip()}")
            rep = json.loads(r.stdout)
            ns = rep["makespan_ps"]
            algs = coll_algorithms(rep)
            diff = (ns - sg) / sg if sg else float("nan")
            sgs = f"{sg / 1e12:.9f}" if sg is not None else "failed"
            print(f"| {name} | {n} | {sgs} | {ns / 1e12:.9f} | {diff * 100:+.2f} % | {algs} |", flush=True)
            results.append({"selector": sel, "netsim_selector": ours, "trace": name, "ranks": n,
                            "simgrid_ps": sg, "netsim_ps": ns, "difference": diff, "algorithms": algs})
        coll_matrix(sel, ours, [r for r in results if r["selector"] == sel])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


# The bound issue 33 sets per SimGrid selector (fraction).
COLL_BOUND = {"default": 0.01, "ompi": 0.05}


def coll_matrix(sel, ours, rows):
    """The generated traces of one selector as a matrix: a row per
    collective and communicator size, a column per size; a difference
    over COLL_BOUND in bold, SimGrid's failures as `failed`."""
    gen = {r["trace"]: r for r in rows if r["trace"].startswith("gen-")}
    if not gen:
        return
    bound = COLL_BOUND.get(sel, 0.05)
    sizes = [f"{8 * c}B" for c in COLL_GEN_COUNTS]
    print(f"\n#### Generated traces, `{sel}` against `{ours}`: netsim - SimGrid, relative (bold: over {bound:.0%})\n")
    print("| collective | ranks | " + " | ".join(sizes) + " | algorithms (netsim) |")
    print("|---|---|" + "---|" * len(sizes) + "---|")
    for kind in COLL_GEN_KINDS:
        for n in COLL_GEN_PROCS:
            names = [f"gen-{kind}-p{n}"] if kind == "barrier" else [f"gen-{kind}-p{n}-{s}" for s in sizes]
            cells, algs = [], []
            for nm in names:
                r = gen.get(nm)
                if r is None:
                    cells.append("")
                    continue
                algs.append(r["algorithms"].split(": ", 1)[-1])
                if r["simgrid_ps"] is None:
                    cells.append("failed")
                else:
                    d = f"{r['difference'] * 100:+.2f} %"
                    cells.append(f"**{d}**" if abs(r["difference"]) > bound else d)
            if kind == "barrier":
                cells += [""] * (len(sizes) - 1)
            if any(cells):
                print(f"| {kind} | {n} | " + " | ".join(cells) + f" | {' / '.join(dict.fromkeys(algs))} |", flush=True)


# ---------------------------------------------------------------- BookSim2

BOOKSIM_URL = "https://github.com/booksim/booksim2"
# The commit the results in docs/PEERS.md were measured with.
BOOKSIM_COMMIT = "28f43299f1706a3160ffac721ca461d74eb6e618"

# netsim's routing name -> BookSim's torus routing function (BookSim
# appends "_torus"). Both have no other torus routing in common: BookSim's
# ROMM, O1TURN (xy_yx) and UGAL exist for the mesh, flattened butterfly or
# dragonfly only.
BS_ROUTINGS = {"dor": "dim_order", "valiant": "valiant", "min-adaptive": "min_adapt"}
# The routings run by default. Valiant runs only with --routings valiant:
# BookSim's `valiant_torus` fails its assertion `ring_part == 1`
# (routefunc.cpp) on the first packet that goes on in a dimension
# (dor_next_torus sets the ring partition only on a turn, and
# valiant_torus leaves it uninitialised).
BS_DEFAULT_ROUTINGS = ["dor", "min-adaptive"]
# netsim's pattern name -> BookSim's `traffic`.
BS_PATTERNS = {"uniform": "uniform", "transpose": "transpose", "bit-complement": "bitcomp",
               "tornado": "tornado"}

# BookSim's input-queued router at its defaults, one-flit packets: a
# packet's head takes routing_delay + vc_alloc_delay + sw_alloc_delay +
# st_final_delay = 4 cycles through every router and 2 cycles on a torus
# channel (networks/kncube.cpp, `_BuildNet`: latency 2 with
# use_noc_latency, the wrap-around's length), 1 on the injection and
# ejection channels: 7 + 6 H cycles for H channel hops at zero load
# (measured: 19 for neighbour, H = 2; 43 for tornado, H = 6). netsim's
# cut-through packet model charges 2 nic_latency + H hop_latency +
# P / b at zero load (topology/src/packet.rs), so with one cycle = 1 ns
# = one 64-byte packet on every 64 GB/s link (injection and ejection
# too: BookSim's channels all carry one flit per cycle) the two are equal
# with hop_latency = 6 ns, nic_latency = 3 ns.
BS_CYCLE_PS = 1000
BS_PACKET_B = 64
BS_HOP_CYCLES = 6
BS_NIC_CYCLES = 3
# BookSim's buffers: 4 VCs (valiant_torus and min_adapt_torus need them;
# dim_order_torus splits them between its two dateline classes) of
# `vc_buf_size` flits per input port; `BS_BUFFERS` are the sizes run (8 is
# BookSim's default; 64 stands in for netsim's unbounded queues).
BS_VCS = 4
BS_BUFFERS = (8, 64)
# Sampling: BookSim's defaults (3 warm-up samples of `sample_period` =
# 1000 cycles, then samples until latency and throughput change by less
# than 5 %, at most 10 in all); netsim 2000 warm-up and 4000 measured
# cycles.
BS_SAMPLE = 1000
# The saturation search (as netsim's `load = "saturation"`,
# scenarios/src/synthetic.rs `saturation`): load 1 (the injection
# channel's rate), then 8 bisection steps; a load is sustained when the
# run converges and accepts within 1 % of the offered load.
BS_SAT_STEPS = 8
# Zero-load latency: both at 1 % of capacity, 20 000 measured cycles.
BS_ZERO_LOAD = 0.01


def booksim_binary(args, cache):
    """Clones BookSim2 (pinned commit) into the cache and builds it with its
    own Makefile (needs flex, bison, g++); returns the binary."""
    src = cache / "booksim2"
    binary = src / "src" / "booksim"
    if not (src / ".git").exists():
        url = args.booksim_git or os.environ.get("BOOKSIM_GIT") or BOOKSIM_URL
        run(["git", "clone", "-q", url, src])
    head = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if head != BOOKSIM_COMMIT:
        run(["git", "-C", src, "checkout", "-q", BOOKSIM_COMMIT])
    if not binary.exists():
        for tool in ("flex", "bison", "g++", "make"):
            if shutil.which(tool) is None:
                sys.exit(f"BookSim2 needs {tool} (apt-get install flex bison g++ make)")
        run(["make", "-C", src / "src"], stdout=subprocess.DEVNULL)
    return binary


def booksim_config(path, k, n, routing, pattern, load, buf, extra=(), sample=BS_SAMPLE):
    """A BookSim config; `extra` are `key=value` settings appended (they
    override the ones above)."""
    path.write_text(
        f"topology = torus;\nk = {k};\nn = {n};\n"
        f"routing_function = {BS_ROUTINGS[routing]};\n"
        f"num_vcs = {BS_VCS};\nvc_buf_size = {buf};\n"
        f"traffic = {BS_PATTERNS[pattern]};\n"
        f"injection_rate = {load!r};\ninjection_rate_uses_flits = 1;\npacket_size = 1;\n"
        f"sample_period = {sample};\nwarmup_periods = 3;\nmax_samples = 10;\nseed = 1;\n"
        + "".join(f"{e.partition('=')[0].strip()} = {e.partition('=')[2].strip()};\n" for e in extra))


def parse_booksim(out):
    """(converged, accepted flits per node per cycle, mean packet latency
    [cycles]) from BookSim's overall statistics."""
    if "Simulation unstable" in out or "Overall Traffic Statistics" not in out:
        return False, None, None
    tail = out.split("Overall Traffic Statistics", 1)[1]
    val = {}
    for line in tail.splitlines():
        for key in ("Packet latency average", "Accepted flit rate average"):
            if line.startswith(key + " ="):
                val[key] = float(line.split("=")[1].split()[0])
    return True, val["Accepted flit rate average"], val["Packet latency average"]


def netsim_synthetic_toml(path, k, n, routing, pattern, load, measure=4000):
    """netsim's scenario equal to booksim_config's (module constants above)."""
    dims = [k] * n + [1] * (3 - n)
    bw = f"{BS_PACKET_B * 1000 // BS_CYCLE_PS} GB/s"
    path.write_text(
        "seed = 1\n\n[machine]\npreset = \"blue-waters\"\n"
        f"dims = {dims}\nnodes_per_router = 1\n"
        f'link_bandwidth = "{bw}"\ninjection = "{bw}"\nejection = "{bw}"\n'
        f'hop_latency = "{BS_HOP_CYCLES * BS_CYCLE_PS} ps"\nnic_latency = "{BS_NIC_CYCLES * BS_CYCLE_PS} ps"\n'
        'tie = "parity"\n\n'
        f'[transport]\nmode = "packet"\npacket_size = "{BS_PACKET_B} B"\nrouting = "{routing}"\n\n'
        f'[workload]\nkind = "synthetic"\npattern = "{pattern}"\n'
        f"load = {json.dumps(load)}\n"
        f"warmup_cycles = 2000\nmeasure_cycles = {measure}\n")


def booksim_saturation(binary, d, log, k, n, routing, pattern, buf, extra, writer=None):
    """BookSim's saturation by netsim's search; returns (saturation,
    summed wall [s], runs). `writer` writes the config (default
    booksim_config, the torus)."""
    writer = writer or booksim_config
    wall = 0.0
    runs = 0

    def sustained(load):
        nonlocal wall, runs
        cfg = d / f"booksim-{routing}-{pattern}-buf{buf}.cfg"
        writer(cfg, k, n, routing, pattern, load, buf, extra)
        out, w, _ = timed([binary, cfg.name], d, log, may_fail=True)
        wall += w
        runs += 1
        ok, acc, _ = parse_booksim(out)
        return ok and acc >= 0.99 * load

    if sustained(1.0):
        return 1.0, wall, runs
    lo, hi = 0.0, 1.0
    for _ in range(BS_SAT_STEPS):
        mid = (lo + hi) / 2
        if sustained(mid):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2, wall, runs


def ideal_throughput(k, n, routing, pattern):
    """Dally & Towles's ideal throughput (fraction of capacity) on a k-ary
    n-cube with k = 8 as docs/SCENARIOS.md derives it ("Ideal
    throughput"), ties split evenly; None where not derived there."""
    if routing == "valiant":
        return (k ** n) / (2 * (k ** n - 1)) if pattern == "uniform" else 0.5
    table = {"uniform": 1.0, "tornado": 1 / 3, "bit-complement": 0.5}
    if pattern == "transpose":
        return 0.25 if routing == "dor" else None
    return table[pattern]


def bs_cases(cubes, routings, patterns):
    """(k, n, routing, pattern) of every case; transpose needs an even
    number of address bits (BookSim and netsim both refuse it otherwise)."""
    for k, n in cubes:
        bits = (k ** n).bit_length() - 1
        for routing in routings:
            for pattern in patterns:
                if pattern != "transpose" or bits % 2 == 0:
                    yield k, n, routing, pattern


def booksim(args):
    """The routings (BS_DEFAULT_ROUTINGS) and patterns (BS_PATTERNS) on the
    8-ary n-cubes of --cubes under BookSim2 and netsim with equal per-hop
    delays: zero-load latency and saturation throughput, with the wall
    time of each; with --curve also the mean latency at given loads.
    Prints Markdown tables (docs/PEERS.md)."""
    routings = args.routings or BS_DEFAULT_ROUTINGS
    patterns = args.patterns or list(BS_PATTERNS)
    unknown = set(routings) - set(BS_ROUTINGS) | set(patterns) - set(BS_PATTERNS)
    if unknown:
        sys.exit(f"booksim: unknown routing or pattern: {', '.join(sorted(unknown))}")
    cache = cache_dir(args)
    binary = booksim_binary(args, cache)
    netsim = Path(args.netsim).resolve() if args.netsim else REPO / "target" / "release" / "netsim"
    if not args.netsim:
        run(["cargo", "build", "--release", "--quiet", "-p", "netsim"], cwd=REPO)
    work = (Path(args.work).resolve() if args.work else REPO / "target" / "peers") / "booksim"
    work.mkdir(parents=True, exist_ok=True)
    log = work / "peers.log"
    cubes = [(8, n) for n in (args.cubes or ([2, 3] if args.big else [2]))]
    buffers = args.booksim_buffers or BS_BUFFERS
    extra = args.booksim_set or []
    l0 = load()
    print(f"# BookSim2 {BOOKSIM_COMMIT[:8]} vs netsim, {time.strftime('%Y-%m-%d %H:%M')}, load average at "
          f"start {l0[0]:.2f} {l0[1]:.2f} {l0[2]:.2f}; 1 cycle = {BS_CYCLE_PS} ps, BookSim {BS_VCS} VCs"
          + (f", BookSim also {' '.join(extra)}" if extra else ""))
    bufs = " | ".join(f"BookSim sat. (buf {b})" for b in buffers)
    walls = " | ".join(f"BookSim wall [s] (buf {b})" for b in buffers)
    print(f"| torus | routing | pattern | zero-load BookSim [cycles] | zero-load netsim [cycles] | ideal | "
          f"{bufs} | netsim sat. (unbounded) | {walls} | netsim wall [s] |")
    print("|---|---|---|---|---|---|" + "---|" * (2 * len(buffers) + 2))
    results = []
    for k, n, routing, pattern in bs_cases(cubes, routings, patterns):
        d = work / f"{k}-ary-{n}-cube"
        d.mkdir(parents=True, exist_ok=True)
        row = {"k": k, "n": n, "routing": routing, "pattern": pattern}
        # Zero-load latency.
        cfg = d / f"booksim-{routing}-{pattern}-zero.cfg"
        booksim_config(cfg, k, n, routing, pattern, BS_ZERO_LOAD, buffers[0], extra, sample=5000)
        out, bz_wall, _ = timed([binary, cfg.name], d, log, may_fail=True)
        ok, _, lat = parse_booksim(out)
        if not ok:
            sys.exit(f"BookSim did not converge (or failed) at load {BS_ZERO_LOAD}: see {log}")
        row["booksim_zero_load_cycles"] = lat
        sc = d / f"netsim-{routing}-{pattern}-zero.toml"
        netsim_synthetic_toml(sc, k, n, routing, pattern, BS_ZERO_LOAD, measure=20000)
        out, nz_wall, _ = timed([netsim, "run", sc.name, "--json", "--no-wall", "--quiet"], d, log)
        row["netsim_zero_load_cycles"] = json.loads(out)["synthetic"]["latency_ps"]["mean"] / BS_CYCLE_PS
        row["booksim_zero_load_wall_s"], row["netsim_zero_load_wall_s"] = bz_wall, nz_wall
        # Saturation.
        for buf in buffers:
            sat, w, runs = booksim_saturation(binary, d, log, k, n, routing, pattern, buf, extra)
            row[f"booksim_saturation_buf{buf}"] = sat
            row[f"booksim_wall_s_buf{buf}"] = w
            row[f"booksim_runs_buf{buf}"] = runs
        sc = d / f"netsim-{routing}-{pattern}-sat.toml"
        netsim_synthetic_toml(sc, k, n, routing, pattern, "saturation")
        out, ns_wall, _ = timed([netsim, "run", sc.name, "--json", "--no-wall", "--quiet"], d, log)
        row["netsim_saturation"] = json.loads(out)["synthetic"]["saturation"]
        row["netsim_wall_s"] = ns_wall
        row["ideal"] = ideal_throughput(k, n, routing, pattern)
        results.append(row)
        ideal = f"{row['ideal']:.3f}" if row["ideal"] is not None else "-"
        sats = " | ".join(f"{row[f'booksim_saturation_buf{b}']:.3f}" for b in buffers)
        bws = " | ".join(f"{row[f'booksim_wall_s_buf{b}']:.2f} ({row[f'booksim_runs_buf{b}']} runs)"
                         for b in buffers)
        print(f"| {k}-ary {n}-cube | {routing} | {pattern} | {row['booksim_zero_load_cycles']:.2f} "
              f"| {row['netsim_zero_load_cycles']:.2f} | {ideal} | {sats} | {row['netsim_saturation']:.3f} "
              f"| {bws} | {ns_wall:.2f} |", flush=True)
    curve = []
    if args.curve:
        print("\n| torus | routing | pattern | load | BookSim latency [cycles] | netsim latency [cycles] "
              "| difference |")
        print("|---|---|---|---|---|---|---|")
        for k, n, routing, pattern in bs_cases(cubes, routings, patterns):
            d = work / f"{k}-ary-{n}-cube"
            d.mkdir(parents=True, exist_ok=True)
            for lam in args.curve:
                cfg = d / f"booksim-{routing}-{pattern}-curve.cfg"
                booksim_config(cfg, k, n, routing, pattern, lam, buffers[0], extra)
                out, _, _ = timed([binary, cfg.name], d, log, may_fail=True)
                ok, _, bl = parse_booksim(out)
                sc = d / f"netsim-{routing}-{pattern}-curve.toml"
                netsim_synthetic_toml(sc, k, n, routing, pattern, lam)
                out, _, _ = timed([netsim, "run", sc.name, "--json", "--no-wall", "--quiet"], d, log)
                nl = json.loads(out)["synthetic"]["latency_ps"]["mean"] / BS_CYCLE_PS
                bls = f"{bl:.2f}" if ok else "unstable"
                diff = f"{(nl - bl) / bl * 100:+.1f} %" if ok else "-"
                curve.append({"k": k, "n": n, "routing": routing, "pattern": pattern, "load": lam,
                              "booksim_cycles": bl if ok else None, "netsim_cycles": nl})
                print(f"| {k}-ary {n}-cube | {routing} | {pattern} | {lam} | {bls} | {nl:.2f} | {diff} |",
                      flush=True)
    l1 = load()
    print(f"\nload average at end {l1[0]:.2f} {l1[1]:.2f} {l1[2]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"load_start": l0, "load_end": l1, "rows": results, "curve": curve},
                                              indent=1))


# ------------------------------------------------- BookSim2 on a fat tree

# BookSim's `fattree` is the k-ary n-tree netsim's `preset = "fat-tree"`
# builds (networks/fattree.cpp: n levels of k^(n-1) routers, host h on
# leaf h / k), every channel of latency 1 cycle. Its one oblivious
# routing, `nca_fattree` (routefunc.cpp, `fattree_nca`), goes up to the
# nearest common ancestor by a random up-port drawn per packet and down
# by the destination's digits: netsim's `nca`, run beside its three
# per-pair routings.
BST_ROUTINGS = ["nca", "dmodk", "ecmp", "random"]
BST_PATTERNS = {"uniform": "uniform", "transpose": "transpose", "bit-complement": "bitcomp",
                "bit-reverse": "bitrev"}
# Zero-load: a packet through R routers takes 1 (injection) + 4 R (the
# router pipeline, as on the torus) + (R - 1) channels + 1 (ejection) + 1
# (its one flit) = 5 R + 2 cycles in BookSim (measured 17 for R = 3);
# netsim charges 2 nic_latency + (R - 1) hop_latency + P / b, equal with
# hop_latency = 5 cycles and nic_latency = 3.
BST_HOP_CYCLES = 5
BST_NIC_CYCLES = 3


def booksim_tree_config(path, k, n, routing, pattern, load, buf, extra=(), sample=BS_SAMPLE):
    """BookSim's fat-tree config (`routing` is netsim's; BookSim runs nca)."""
    path.write_text(
        f"topology = fattree;\nk = {k};\nn = {n};\nrouting_function = nca;\n"
        f"num_vcs = {BS_VCS};\nvc_buf_size = {buf};\n"
        f"traffic = {BST_PATTERNS[pattern]};\n"
        f"injection_rate = {load!r};\ninjection_rate_uses_flits = 1;\npacket_size = 1;\n"
        f"sample_period = {sample};\nwarmup_periods = 3;\nmax_samples = 10;\nseed = 1;\n"
        + "".join(f"{e.partition('=')[0].strip()} = {e.partition('=')[2].strip()};\n" for e in extra))


def netsim_tree_toml(path, k, n, routing, pattern, load, measure=4000):
    """netsim's scenario equal to booksim_tree_config's."""
    bw = f"{BS_PACKET_B * 1000 // BS_CYCLE_PS} GB/s"
    path.write_text(
        "seed = 1\n\n[machine]\npreset = \"fat-tree\"\n"
        f"arity = {k}\nlevels = {n}\n"
        f'link_bandwidth = "{bw}"\ninjection = "{bw}"\nejection = "{bw}"\n'
        f'hop_latency = "{BST_HOP_CYCLES * BS_CYCLE_PS} ps"\nnic_latency = "{BST_NIC_CYCLES * BS_CYCLE_PS} ps"\n\n'
        f'[transport]\nmode = "packet"\npacket_size = "{BS_PACKET_B} B"\nrouting = "{routing}"\n\n'
        f'[workload]\nkind = "synthetic"\npattern = "{pattern}"\n'
        f"load = {json.dumps(load)}\n"
        f"warmup_cycles = 2000\nmeasure_cycles = {measure}\n")


def booksim_tree(args):
    """The 4-ary n-trees of --trees (default 2 and 3 levels) under BookSim2
    (nca) and netsim (BST_ROUTINGS): zero-load latency and saturation
    throughput, with the wall time of each. Prints a Markdown table
    (docs/PEERS.md)."""
    patterns = args.patterns or list(BST_PATTERNS)
    routings = args.routings or BST_ROUTINGS
    unknown = set(routings) - set(BST_ROUTINGS) | set(patterns) - set(BST_PATTERNS)
    if unknown:
        sys.exit(f"booksim-tree: unknown routing or pattern: {', '.join(sorted(unknown))}")
    cache = cache_dir(args)
    binary = booksim_binary(args, cache)
    netsim = Path(args.netsim).resolve() if args.netsim else REPO / "target" / "release" / "netsim"
    if not args.netsim:
        run(["cargo", "build", "--release", "--quiet", "-p", "netsim"], cwd=REPO)
    work = (Path(args.work).resolve() if args.work else REPO / "target" / "peers") / "booksim-tree"
    work.mkdir(parents=True, exist_ok=True)
    log = work / "peers.log"
    buffers = args.booksim_buffers or BS_BUFFERS
    extra = args.booksim_set or []
    l0 = load()
    print(f"# BookSim2 {BOOKSIM_COMMIT[:8]} (fattree, nca) vs netsim (fat-tree), {time.strftime('%Y-%m-%d %H:%M')}, "
          f"load average at start {l0[0]:.2f} {l0[1]:.2f} {l0[2]:.2f}; 1 cycle = {BS_CYCLE_PS} ps, BookSim {BS_VCS} VCs"
          + (f", BookSim also {' '.join(extra)}" if extra else ""))
    bufs = " | ".join(f"BookSim nca sat. (buf {b})" for b in buffers)
    nets = " | ".join(f"netsim {r} sat." for r in routings)
    print(f"| tree | pattern | zero-load BookSim [cycles] | zero-load netsim [cycles] | {bufs} | {nets} "
          f"| BookSim wall [s] | netsim wall [s] |")
    print("|---|---|---|---|" + "---|" * (len(buffers) + len(routings) + 2))
    results = []
    for n in args.trees or [2, 3]:
        k = 4
        d = work / f"{k}-ary-{n}-tree"
        d.mkdir(parents=True, exist_ok=True)
        for pattern in patterns:
            bits = (k ** n).bit_length() - 1
            if pattern == "transpose" and bits % 2:
                continue
            row = {"k": k, "n": n, "pattern": pattern}
            cfg = d / f"booksim-{pattern}-zero.cfg"
            booksim_tree_config(cfg, k, n, "nca", pattern, BS_ZERO_LOAD, buffers[0], extra, sample=5000)
            out, bw, _ = timed([binary, cfg.name], d, log, may_fail=True)
            ok, _, lat = parse_booksim(out)
            if not ok:
                sys.exit(f"BookSim did not converge (or failed) at load {BS_ZERO_LOAD}: see {log}")
            row["booksim_zero_load_cycles"] = lat
            sc = d / f"netsim-{pattern}-zero.toml"
            netsim_tree_toml(sc, k, n, routings[0], pattern, BS_ZERO_LOAD, measure=20000)
            out, nw, _ = timed([netsim, "run", sc.name, "--json", "--no-wall", "--quiet"], d, log)
            row["netsim_zero_load_cycles"] = json.loads(out)["synthetic"]["latency_ps"]["mean"] / BS_CYCLE_PS
            for buf in buffers:
                sat, w, runs = booksim_saturation(binary, d, log, k, n, "nca", pattern, buf, extra,
                                                  writer=booksim_tree_config)
                row[f"booksim_saturation_buf{buf}"] = sat
                bw += w
            for r in routings:
                sc = d / f"netsim-{r}-{pattern}-sat.toml"
                netsim_tree_toml(sc, k, n, r, pattern, "saturation")
                out, w, _ = timed([netsim, "run", sc.name, "--json", "--no-wall", "--quiet"], d, log)
                row[f"netsim_saturation_{r}"] = json.loads(out)["synthetic"]["saturation"]
                nw += w
            row["booksim_wall_s"], row["netsim_wall_s"] = bw, nw
            results.append(row)
            sats = " | ".join(f"{row[f'booksim_saturation_buf{b}']:.3f}" for b in buffers)
            ns = " | ".join(f"{row[f'netsim_saturation_{r}']:.3f}" for r in routings)
            print(f"| {k}-ary {n}-tree | {pattern} | {row['booksim_zero_load_cycles']:.2f} "
                  f"| {row['netsim_zero_load_cycles']:.2f} | {sats} | {ns} | {bw:.2f} | {nw:.2f} |", flush=True)
    l1 = load()
    print(f"\nload average at end {l1[0]:.2f} {l1[1]:.2f} {l1[2]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"load_start": l0, "load_end": l1, "rows": results}, indent=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", default="run",
                    choices=["setup", "run", "list", "conformance", "collectives", "booksim", "booksim-tree"])
    ap.add_argument("--only", type=lambda s: s.split(","), help="comma-separated case names")
    ap.add_argument("--big", action="store_true", help="also the cases marked big (1 M ranks, 16x16x16)")
    ap.add_argument("--reps", type=int, default=1, help="repetitions per simulator (median wall)")
    ap.add_argument("--netsim", help="netsim binary (default: cargo build --release, target/release/netsim)")
    ap.add_argument("--cache", help="where LogGOPSim is fetched and built (default ~/.cache/netsim-peers)")
    ap.add_argument("--work", help="where inputs are generated (default target/peers)")
    ap.add_argument("--loggopsim-git", help=f"clone LogGOPSim from here (default {LOGGOPSIM_URL}, or $LOGGOPSIM_GIT)")
    ap.add_argument("--simgrid-git", help=f"clone SimGrid's examples from here (default {SIMGRID_URL}, or $SIMGRID_GIT)")
    ap.add_argument("--json", help="also write the rows as JSON to this file")
    ap.add_argument("--simgrid-precise", action="store_true",
                    help="run SimGrid with maxmin/precision 1e-12 and surf/precision 1e-15 (see README)")
    ap.add_argument("--selectors", type=lambda s: s.split(","),
                    help=f"collectives: SimGrid selectors to compare (default {','.join(COLL_SELECTORS)})")
    ap.add_argument("--generated-only", action="store_true",
                    help="collectives: only the generated traces, not the shared ones")
    ap.add_argument("--simgrid-cfg", action="append", default=[],
                    help="collectives: one more SimGrid --cfg setting, e.g. network/optim:Full (repeatable)")
    ap.add_argument("--booksim-git", help=f"clone BookSim2 from here (default {BOOKSIM_URL}, or $BOOKSIM_GIT)")
    ap.add_argument("--routings", type=lambda s: s.split(","),
                    help=f"booksim: routings to run, of {','.join(BS_ROUTINGS)} "
                         f"(default {','.join(BS_DEFAULT_ROUTINGS)})")
    ap.add_argument("--patterns", type=lambda s: s.split(","),
                    help=f"booksim: patterns to run (default {','.join(BS_PATTERNS)})")
    ap.add_argument("--cubes", type=lambda s: [int(x) for x in s.split(",")],
                    help="booksim: dimensions n of the 8-ary n-cubes to run (default 2; --big: 2,3)")
    ap.add_argument("--trees", type=lambda s: [int(x) for x in s.split(",")],
                    help="booksim-tree: levels n of the 4-ary n-trees to run (default 2,3)")
    ap.add_argument("--curve", type=lambda s: [float(x) for x in s.split(",")],
                    help="booksim: also the mean latency of both at these loads (BookSim at the first buffer size)")
    ap.add_argument("--booksim-buffers", type=lambda s: [int(x) for x in s.split(",")],
                    help=f"booksim: BookSim vc_buf_size values, flits (default {','.join(map(str, BS_BUFFERS))})")
    ap.add_argument("--booksim-set", action="append",
                    help="booksim: an extra BookSim setting key=value (repeatable), e.g. internal_speedup=2.0")
    args = ap.parse_args()
    if args.command == "list":
        for c in CASES:
            tag = {True: "(big) ", "smoke": "(smoke) "}.get(c.big, "")
            print(f"{c.name:<26} {c.peer:<9} {tag}{c.about}")
        return
    if args.command == "setup":
        setup(args)
        return
    if args.command == "conformance":
        conformance(args)
        return
    if args.command == "collectives":
        collectives(args)
        return
    if args.command == "booksim":
        booksim(args)
        return
    if args.command == "booksim-tree":
        booksim_tree(args)
        return
    run_cases(args)


if __name__ == "__main__":
    main()
