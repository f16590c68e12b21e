/*
 * netsim_bench: the microbenchmarks of netsim's calibration (`netsim
 * calibrate`, calibrate/README.md). Two ranks; rank 0 times, rank 0 writes
 * CSV rows in the form `netsim fit` reads.
 *
 *   mpirun -n 2 ./netsim_bench --kind pingpong --library mpich --out pp.csv
 *
 * Kinds (what `seconds` is; every number is the median over repetitions,
 * `min` and `max` their extremes):
 *   pingpong         blocking MPI_Send/MPI_Recv round trips between ranks 0
 *                    and 1; seconds = one-way time (half the round trip).
 *   hvpp-paper       HighVolumePingPong, Bienz et al. Algorithm 1.
 *   hvpp-posted      the same exchange with every receive posted before
 *                    the sender starts (a zero-byte sync says so).
 *   hvpp-unexpected  the same exchange with every message sent before the
 *                    receiver posts (a zero-byte sync says so).
 *                    For the three hvpp kinds, seconds = the whole exchange
 *                    (both directions, n messages each way) on rank 0, from
 *                    the return of MPI_Barrier to the return of its last
 *                    MPI_Waitall.
 *   msgrate          rank 0 streams windows of `window` MPI_Isends, rank 1
 *                    pre-posts `window` MPI_Irecvs and answers every window
 *                    with a zero-byte acknowledgement; seconds = time per
 *                    window (rank 0, n windows back to back, divided by n).
 *   probe            only the placement probe, repeated for --seconds:
 *                    prints `elapsed_s,probe_ns` lines (no CSV rows).
 * The exact operation sequences are in calibrate/README.md; netsim's
 * built-in workloads `ping-pong`, `hvpp` (mode) and `message-rate` run the
 * same sequences.
 *
 * Placement probe: before and after every unit (one size of ping-pong, one
 * (size, n, order) of hvpp, one (size, window) of msgrate) the two ranks
 * bounce a cache line through a shared page; the median round trip says
 * whether the host placed the two CPUs near or far. A unit whose two
 * probes disagree is measured again (--retries), then dropped; with
 * --want near|far a unit whose probe says the other state is skipped.
 *
 * Plain C11 + MPI-3 + POSIX; build: mpicc -O2 -o netsim_bench netsim_bench.c
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_LIST 512
#define SYNC_TAG_OFFSET 1 /* sync tag = tag_ub - SYNC_TAG_OFFSET */

/* ------------------------------------------------------------ options */

enum kind { PINGPONG, HVPP_PAPER, HVPP_POSTED, HVPP_UNEXPECTED, MSGRATE, PROBE };
static const char *kind_names[] = {"pingpong",       "hvpp-paper", "hvpp-posted",
                                   "hvpp-unexpected", "msgrate",    "probe"};

static struct {
    enum kind kind;
    const char *library;
    const char *out;
    const char *want; /* a state name, any or all */
    int quick;
    int chunk, chunks;
    int retries;
    double splits[2]; /* probe: state boundaries [ns], ascending */
    int nsplits;
    double busy_ns;  /* probe: above is busy (neither state) */
    double target_s; /* measuring time per unit */
    double seconds;  /* probe kind: duration */
    int pin;
    uint64_t sizes[MAX_LIST];
    int nsizes;
    uint64_t ns[MAX_LIST];
    int nns;
    uint64_t windows[MAX_LIST];
    int nwindows;
    int orders; /* bit 0: in, bit 1: rev */
} opt = {.library = "unknown",
         .want = "any",
         .chunk = 0,
         .chunks = 1,
         .retries = 3,
         .splits = {95.0, 250.0},
         .nsplits = 2,
         .busy_ns = 1000.0,
         .target_s = 0.05,
         .seconds = 10.0,
         .pin = 1,
         .orders = 3};

static int rank;
static int tag_ub;
static MPI_Comm W;

static void die(const char *fmt, const char *arg) {
    if (rank == 0) {
        fprintf(stderr, "netsim_bench: error: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static int parse_list(const char *s, uint64_t *out, const char *what) {
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || errno) die("bad number in %s list", what);
        if (*end == 'k' || *end == 'K') v <<= 10, end++;
        else if (*end == 'm' || *end == 'M') v <<= 20, end++;
        if (n == MAX_LIST) die("%s list too long", what);
        out[n++] = v;
        if (*end == ',') end++;
        else if (*end) die("bad separator in %s list (use commas)", what);
        p = end;
    }
    return n;
}

static void usage(void) {
    if (rank == 0)
        fprintf(stderr,
                "usage: mpirun -n 2 netsim_bench --kind KIND [options]\n"
                "  --kind pingpong|hvpp-paper|hvpp-posted|hvpp-unexpected|msgrate|probe\n"
                "  --library NAME     value of the library column (default unknown)\n"
                "  --out FILE         append CSV rows to FILE (header if empty); default stdout\n"
                "  --quick            the small grid and few repetitions (CI smoke)\n"
                "  --chunk I/N        measure only the I-th of N slices of the grid (0-based)\n"
                "  --want STATE       skip units whose probe says another state; any: every\n"
                "                     state but busy; all: no skipping, no re-measuring (CI)\n"
                "  --retries K        re-measure a unit whose probes disagree K times (3)\n"
                "  --split-ns A[,B]   probe state boundaries [ns]: near < A <= far, or\n"
                "                     near < A <= mid < B <= far (95,250)\n"
                "  --busy-ns X        probe round trip above X ns is busy (1000)\n"
                "  --target-ms T      measuring time per unit, ms (50; 5 with --quick)\n"
                "  --sizes LIST --ns LIST --windows LIST --orders in,rev  override the grid\n"
                "  --seconds S        duration of --kind probe (10)\n"
                "  --no-pin           leave CPU binding to the launcher\n");
}

static void parse_args(int argc, char **argv) {
    int have_kind = 0, target_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                                   \
    do {                                                                         \
        if (!v) die("option %s needs a value", a);                               \
        i++;                                                                     \
    } while (0)
        if (!strcmp(a, "--kind")) {
            NEED();
            int k;
            for (k = 0; k <= PROBE; k++)
                if (!strcmp(v, kind_names[k])) break;
            if (k > PROBE) die("unknown kind `%s`", v);
            opt.kind = k;
            have_kind = 1;
        } else if (!strcmp(a, "--library")) {
            NEED();
            opt.library = v;
        } else if (!strcmp(a, "--out")) {
            NEED();
            opt.out = v;
        } else if (!strcmp(a, "--quick")) {
            opt.quick = 1;
        } else if (!strcmp(a, "--chunk")) {
            NEED();
            if (sscanf(v, "%d/%d", &opt.chunk, &opt.chunks) != 2 || opt.chunks < 1 ||
                opt.chunk < 0 || opt.chunk >= opt.chunks)
                die("--chunk `%s` is not I/N with 0 <= I < N", v);
        } else if (!strcmp(a, "--want")) {
            NEED();
            if (strcmp(v, "near") && strcmp(v, "mid") && strcmp(v, "far") && strcmp(v, "any") &&
                strcmp(v, "all"))
                die("--want `%s` is not near, mid, far, any or all", v);
            opt.want = v;
        } else if (!strcmp(a, "--retries")) {
            NEED();
            opt.retries = atoi(v);
        } else if (!strcmp(a, "--split-ns")) {
            NEED();
            opt.nsplits = sscanf(v, "%lf,%lf", &opt.splits[0], &opt.splits[1]);
            if (opt.nsplits < 1 || opt.splits[0] <= 0 ||
                (opt.nsplits == 2 && opt.splits[1] <= opt.splits[0]))
                die("--split-ns `%s` is not A or A,B with 0 < A < B", v);
        } else if (!strcmp(a, "--busy-ns")) {
            NEED();
            opt.busy_ns = atof(v);
        } else if (!strcmp(a, "--target-ms")) {
            NEED();
            opt.target_s = atof(v) * 1e-3;
            target_given = 1;
            if (!(opt.target_s > 0)) die("--target-ms `%s` must be positive", v);
        } else if (!strcmp(a, "--seconds")) {
            NEED();
            opt.seconds = atof(v);
        } else if (!strcmp(a, "--sizes")) {
            NEED();
            opt.nsizes = parse_list(v, opt.sizes, "--sizes");
        } else if (!strcmp(a, "--ns")) {
            NEED();
            opt.nns = parse_list(v, opt.ns, "--ns");
            for (int k = 0; k < opt.nns; k++)
                if (opt.ns[k] == 0) die("%s: n must be at least 1", "--ns");
        } else if (!strcmp(a, "--windows")) {
            NEED();
            opt.nwindows = parse_list(v, opt.windows, "--windows");
            for (int k = 0; k < opt.nwindows; k++)
                if (opt.windows[k] == 0) die("%s: windows must be at least 1", "--windows");
        } else if (!strcmp(a, "--orders")) {
            NEED();
            opt.orders = (strstr(v, "in") ? 1 : 0) | (strstr(v, "rev") ? 2 : 0);
            if (!opt.orders) die("--orders `%s` names neither in nor rev", v);
        } else if (!strcmp(a, "--no-pin")) {
            opt.pin = 0;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            MPI_Finalize();
            exit(0);
        } else {
            usage();
            die("unknown option `%s`", a);
        }
#undef NEED
    }
    if (opt.quick && !target_given) opt.target_s = 0.005;
    if (!have_kind) {
        usage();
        die("%s", "--kind is required");
    }
}

/* ------------------------------------------------------------ the grids */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted, without duplicates. */
static int uniq(uint64_t *v, int n) {
    qsort(v, n, sizeof *v, cmp_u64);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

/* Ping-pong sizes: 1 B .. 16 MiB, four points per octave from 8 B, plus
 * both sides of the switch points real stacks are known to have (UCX
 * short/eager 92/93 B, glibc memcpy 2112 B, UCX eager/rendezvous 8248-8256
 * B, blocking-send rendezvous 256 KiB, Open MPI sm eager 4 KiB and its
 * max-send 32 KiB, cache sizes). */
static int pingpong_sizes(uint64_t *v) {
    if (opt.nsizes) {
        memcpy(v, opt.sizes, opt.nsizes * sizeof *v);
        return uniq(v, opt.nsizes);
    }
    int n = 0;
    if (opt.quick) {
        static const uint64_t q[] = {1, 8, 64, 512, 4096, 16384, 65536, 262144};
        for (unsigned i = 0; i < sizeof q / sizeof *q; i++) v[n++] = q[i];
        return n;
    }
    for (uint64_t p = 1; p <= (16u << 20); p <<= 1) {
        v[n++] = p;
        if (p >= 8 && p < (16u << 20))
            for (int q = 1; q < 4; q++) v[n++] = p + p * q / 4;
    }
    static const uint64_t fine[] = {
        88,     92,     93,     100,    124,    2048,   2100,   2111,   2112,   2113,
        2176,   4095,   4097,   4160,   8191,   8193,   8240,   8248,   8249,   8256,
        8257,   8320,   16383,  16385,  32767,  32769,  65535,  65537,  131071, 131073,
        262143, 262145, 266240, 524289};
    for (unsigned i = 0; i < sizeof fine / sizeof *fine; i++) v[n++] = fine[i];
    return uniq(v, n);
}

static int hvpp_sizes(uint64_t *v) {
    if (opt.nsizes) {
        memcpy(v, opt.sizes, opt.nsizes * sizeof *v);
        return uniq(v, opt.nsizes);
    }
    if (opt.quick) {
        v[0] = 8;
        return 1;
    }
    v[0] = 8, v[1] = 1024, v[2] = 16384;
    return 3;
}

/* n = 1, 2, 3, 4, 6, 8, 12, ... 6144, 8192. */
static int hvpp_ns(uint64_t *v) {
    if (opt.nns) {
        memcpy(v, opt.ns, opt.nns * sizeof *v);
        return uniq(v, opt.nns);
    }
    int n = 0;
    if (opt.quick) {
        static const uint64_t q[] = {1, 4, 16, 64};
        for (unsigned i = 0; i < sizeof q / sizeof *q; i++) v[n++] = q[i];
        return n;
    }
    for (uint64_t p = 1; p <= 8192; p <<= 1) {
        v[n++] = p;
        if (p >= 2 && p < 8192) v[n++] = p + p / 2;
    }
    return uniq(v, n);
}

static int msgrate_sizes(uint64_t *v) {
    if (opt.nsizes) {
        memcpy(v, opt.sizes, opt.nsizes * sizeof *v);
        return uniq(v, opt.nsizes);
    }
    if (opt.quick) {
        v[0] = 8, v[1] = 4096;
        return 2;
    }
    static const uint64_t s[] = {8, 64, 256, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
    memcpy(v, s, sizeof s);
    return sizeof s / sizeof *s;
}

static int msgrate_windows(uint64_t *v) {
    if (opt.nwindows) {
        memcpy(v, opt.windows, opt.nwindows * sizeof *v);
        return uniq(v, opt.nwindows);
    }
    if (opt.quick) {
        v[0] = 16;
        return 1;
    }
    v[0] = 8, v[1] = 64;
    return 2;
}

/* One measurement unit. */
struct unit {
    uint64_t size, n, window;
    int rev;
};

/* The units of the kind, in order; returns the count. */
static int units_of(struct unit *u, int cap) {
    uint64_t a[MAX_LIST], b[MAX_LIST];
    int k = 0;
    switch (opt.kind) {
    case PINGPONG: {
        int ns = pingpong_sizes(a);
        for (int i = 0; i < ns && k < cap; i++) u[k++] = (struct unit){a[i], 1, 0, 0};
        break;
    }
    case HVPP_PAPER:
    case HVPP_POSTED:
    case HVPP_UNEXPECTED: {
        int ns = hvpp_sizes(a), nn = hvpp_ns(b);
        for (int i = 0; i < ns; i++)
            for (int r = 0; r < 2; r++) {
                if (!(opt.orders & (1 << r))) continue;
                for (int j = 0; j < nn && k < cap; j++) u[k++] = (struct unit){a[i], b[j], 0, r};
            }
        break;
    }
    case MSGRATE: {
        int ns = msgrate_sizes(a), nw = msgrate_windows(b);
        uint64_t iters = opt.quick ? 4 : 20;
        for (int j = 0; j < nw; j++)
            for (int i = 0; i < ns && k < cap; i++) u[k++] = (struct unit){a[i], iters, b[j], 0};
        break;
    }
    case PROBE:
        break;
    }
    return k;
}

/* ------------------------------------------------------------ timing helpers */

static double now(void) { return MPI_Wtime(); }

/* CLOCK_MONOTONIC [s]: the clock of a row's t_start and t_end, on which
 * netsim samples the machine's load (the row's others_pct). */
static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Rank 0 decides, every rank gets it. */
static int bcast_int(int v) {
    MPI_Bcast(&v, 1, MPI_INT, 0, W);
    return v;
}

static int clampi(double x, int lo, int hi) {
    if (!(x >= lo)) return lo; /* NaN too */
    if (x > hi) return hi;
    return (int)x;
}

/* ------------------------------------------------------------ placement probe */

static volatile uint64_t *probe_line; /* NULL when the ranks share no memory */
static uint64_t probe_seq;

#define PROBE_BATCHES 15
#define PROBE_ROUNDS 200

/* Median cache-line round trip between the two ranks [ns]; every rank
 * calls it; rank 0's value counts. Negative if there is no shared page. */
static double probe(void) {
    if (!probe_line) return -1.0;
    double t[PROBE_BATCHES];
    MPI_Barrier(W);
    for (int b = 0; b < PROBE_BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < PROBE_ROUNDS; i++) {
            if (rank == 0) {
                __atomic_store_n(probe_line, ++probe_seq, __ATOMIC_RELEASE);
                ++probe_seq;
                while (__atomic_load_n(probe_line, __ATOMIC_ACQUIRE) != probe_seq)
                    ;
            } else {
                ++probe_seq;
                while (__atomic_load_n(probe_line, __ATOMIC_ACQUIRE) != probe_seq)
                    ;
                __atomic_store_n(probe_line, ++probe_seq, __ATOMIC_RELEASE);
            }
        }
        t[b] = (now() - t0) / PROBE_ROUNDS * 1e9;
    }
    double m = median(t, PROBE_BATCHES);
    MPI_Bcast(&m, 1, MPI_DOUBLE, 0, W);
    return m;
}

static const char *state_of(double ns) {
    if (ns < 0) return "-";
    if (ns >= opt.busy_ns) return "busy";
    if (ns < opt.splits[0]) return "near";
    if (opt.nsplits == 2 && ns < opt.splits[1]) return "mid";
    return "far";
}

/* A shared page between the two ranks if they are on one node. */
static void probe_setup(int same_node) {
    if (!same_node) return;
    char name[64];
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, W);
    snprintf(name, sizeof name, "/netsim-probe-%d", pid);
    int fd = -1;
    if (rank == 0) {
        fd = shm_open(name, O_CREAT | O_RDWR | O_EXCL, 0600);
        if (fd >= 0 && ftruncate(fd, 4096) != 0) fd = -1;
    }
    int ok = bcast_int(fd >= 0);
    if (!ok) {
        if (rank == 0) fprintf(stderr, "netsim_bench: no shared page for the probe: %s\n", strerror(errno));
        return;
    }
    if (rank == 1) fd = shm_open(name, O_RDWR, 0600);
    void *p = fd >= 0 ? mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    int mine = p != MAP_FAILED, all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, W);
    if (rank == 0) shm_unlink(name);
    if (fd >= 0) close(fd);
    if (!all) {
        if (rank == 0) fprintf(stderr, "netsim_bench: cannot map the probe page; no probe\n");
        return;
    }
    probe_line = (volatile uint64_t *)p;
    if (rank == 0) *probe_line = 0;
    MPI_Barrier(W);
}

/* ------------------------------------------------------------ the benchmarks */

static char *sbuf, *rbuf;
static MPI_Request *reqs;

static void sync_send(int peer) { MPI_Send(NULL, 0, MPI_BYTE, peer, tag_ub - SYNC_TAG_OFFSET, W); }
static void sync_recv(int peer) {
    MPI_Recv(NULL, 0, MPI_BYTE, peer, tag_ub - SYNC_TAG_OFFSET, W, MPI_STATUS_IGNORE);
}

/* Ping-pong of one size: returns the one-way times of `batches` batches of
 * k round trips each (rank 0; rank 1 returns zeros). */
static int pingpong(uint64_t s, int tag, double *out, int maxb) {
    int peer = 1 - rank;
    /* Warm up, and estimate the round trip on rank 0. */
    int warm = opt.quick ? 2 : 10;
    double t0 = 0;
    for (int i = 0; i < warm; i++) {
        if (i == warm / 2) t0 = now();
        if (rank == 0) {
            MPI_Send(sbuf, (int)s, MPI_BYTE, peer, tag, W);
            MPI_Recv(rbuf, (int)s, MPI_BYTE, peer, tag, W, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)s, MPI_BYTE, peer, tag, W, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)s, MPI_BYTE, peer, tag, W);
        }
    }
    double rt = (now() - t0) / (warm - warm / 2);
    /* Batches of k round trips of about 100 us, enough batches to fill the
     * unit's time, at least 11 (5 in --quick). */
    int k = bcast_int(clampi(100e-6 / rt, 1, 1000));
    int minb = opt.quick ? 5 : 11;
    int b = bcast_int(clampi(opt.target_s / (k * rt), minb, maxb));
    for (int j = 0; j < b; j++) {
        double t = now();
        for (int i = 0; i < k; i++) {
            if (rank == 0) {
                MPI_Send(sbuf, (int)s, MPI_BYTE, peer, tag, W);
                MPI_Recv(rbuf, (int)s, MPI_BYTE, peer, tag, W, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, (int)s, MPI_BYTE, peer, tag, W, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, (int)s, MPI_BYTE, peer, tag, W);
            }
        }
        out[j] = (now() - t) / k / 2.0;
    }
    return b;
}

static void isend_all(uint64_t s, uint64_t n, int peer, int base, MPI_Request *r) {
    for (uint64_t i = 0; i < n; i++)
        MPI_Isend(sbuf + i * s, (int)s, MPI_BYTE, peer, base + (int)i, W, &r[i]);
}

/* Receives in order (tag base + i at position i) or reversed (tag
 * base + n - 1 - i posted i-th); message i lands in buffer slot of its tag. */
static void irecv_all(uint64_t s, uint64_t n, int peer, int base, int rev, MPI_Request *r) {
    for (uint64_t i = 0; i < n; i++) {
        uint64_t t = rev ? n - 1 - i : i;
        MPI_Irecv(rbuf + t * s, (int)s, MPI_BYTE, peer, base + (int)t, W, &r[i]);
    }
}

/* One HighVolumePingPong exchange; returns rank 0's time. */
static double hvpp_once(enum kind k, uint64_t s, uint64_t n, int rev, int base) {
    int peer = 1 - rank;
    MPI_Request *r = reqs;
    MPI_Barrier(W);
    double t0 = now();
    switch (k) {
    case HVPP_PAPER:
        /* Algorithm 1: rank 0 sends n and waits, then receives n; rank 1
         * receives n, then sends n. */
        if (rank == 0) {
            isend_all(s, n, peer, base, r);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
            irecv_all(s, n, peer, base, rev, r);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
        } else {
            irecv_all(s, n, peer, base, rev, r);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
            isend_all(s, n, peer, base, r);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
        }
        break;
    case HVPP_POSTED:
        /* Each direction: the receiver posts all n receives, then sends
         * the zero-byte sync; the sender waits for it, then sends n. */
        if (rank == 0) {
            sync_recv(peer);
            isend_all(s, n, peer, base, r);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
            irecv_all(s, n, peer, base, rev, r);
            sync_send(peer);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
        } else {
            irecv_all(s, n, peer, base, rev, r);
            sync_send(peer);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
            sync_recv(peer);
            isend_all(s, n, peer, base, r);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
        }
        break;
    case HVPP_UNEXPECTED:
        /* Each direction: the sender starts all n sends, then sends the
         * zero-byte sync (it follows the n messages on the ordered
         * channel, so they have all arrived when it matches); the
         * receiver waits for the sync, then posts all n receives. */
        if (rank == 0) {
            isend_all(s, n, peer, base, r);
            sync_send(peer);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
            sync_recv(peer);
            irecv_all(s, n, peer, base, rev, r);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
        } else {
            sync_recv(peer);
            irecv_all(s, n, peer, base, rev, r);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
            isend_all(s, n, peer, base, r);
            sync_send(peer);
            MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
        }
        break;
    default:
        break;
    }
    return now() - t0;
}

/* Fresh tags per repetition: repetition j uses tags base_j + 0..n-1, with
 * base_j cycling below the sync tag. */
static int tag_base(uint64_t n, int j) {
    int cycles = (int)((uint64_t)(tag_ub - 2) / n);
    return (int)((uint64_t)(j % (cycles > 0 ? cycles : 1)) * n);
}

/* Fewer repetitions of long units: a long exchange averages over many
 * messages already, and reversed queues of thousands can take seconds. */
static int min_reps(double t) {
    if (opt.quick) return 3;
    return t < 0.01 ? 11 : t < 0.2 ? 5 : 3;
}

static int hvpp(enum kind k, uint64_t s, uint64_t n, int rev, double *out, int maxr) {
    int j = 0;
    double t = hvpp_once(k, s, n, rev, tag_base(n, j++));
    if (bcast_int(!opt.quick && t < 0.2)) t = hvpp_once(k, s, n, rev, tag_base(n, j++));
    int reps = bcast_int(clampi(opt.target_s / t, min_reps(t), maxr));
    for (int i = 0; i < reps; i++) out[i] = hvpp_once(k, s, n, rev, tag_base(n, j++));
    return reps;
}

/* Windows of message rate; returns rank 0's time per window. */
static double msgrate_once(uint64_t s, uint64_t w, uint64_t iters) {
    int peer = 1 - rank;
    MPI_Barrier(W);
    double t0 = now();
    for (uint64_t it = 0; it < iters; it++) {
        if (rank == 0) {
            isend_all(s, w, peer, 0, reqs);
            MPI_Waitall((int)w, reqs, MPI_STATUSES_IGNORE);
            sync_recv(peer); /* the window's acknowledgement */
        } else {
            irecv_all(s, w, peer, 0, 0, reqs);
            MPI_Waitall((int)w, reqs, MPI_STATUSES_IGNORE);
            sync_send(peer);
        }
    }
    return (now() - t0) / (double)iters;
}

static int msgrate(uint64_t s, uint64_t w, uint64_t iters, double *out, int maxr) {
    double t = msgrate_once(s, w, iters);
    if (!opt.quick) t = msgrate_once(s, w, iters);
    int reps = bcast_int(clampi(opt.target_s / (t * iters), min_reps(t * iters), maxr));
    for (int i = 0; i < reps; i++) out[i] = msgrate_once(s, w, iters);
    return reps;
}

/* ------------------------------------------------------------ placement of ranks */

static int cpu_package(int cpu) {
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    FILE *f = fopen(path, "r");
    int p = -1;
    if (f) {
        if (fscanf(f, "%d", &p) != 1) p = -1;
        fclose(f);
    }
    return p;
}

/* Pins the calling rank to one CPU if the launcher left it several: the
 * local rank's CPU among the allowed ones. Returns the CPU it runs on. */
static int pin_self(int local_rank) {
    cpu_set_t set;
    if (opt.pin && sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 1) {
        int seen = 0, want = local_rank % CPU_COUNT(&set);
        for (int c = 0; c < CPU_SETSIZE; c++) {
            if (!CPU_ISSET(c, &set)) continue;
            if (seen++ == want) {
                cpu_set_t one;
                CPU_ZERO(&one);
                CPU_SET(c, &one);
                sched_setaffinity(0, sizeof one, &one);
                break;
            }
        }
    }
    return sched_getcpu();
}

/* ------------------------------------------------------------ main */

static FILE *csv_open(void) {
    FILE *f = opt.out ? fopen(opt.out, "a") : stdout;
    if (!f) die("cannot open --out file `%s`", opt.out);
    if (ftell(f) == 0)
        fprintf(f, "library,kind,locality,size,n,order,window,seconds,min,max,reps,state,probe_ns,t_start,t_end\n");
    return f;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &W);
    int size;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    parse_args(argc, argv);
    if (size != 2) die("%s", "run with exactly 2 ranks (mpirun -n 2)");
    int *ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    tag_ub = flag ? *ub : 32767;

    /* Where the ranks run: same node (a shared-memory communicator of
     * both), same package. */
    MPI_Comm node;
    MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_size, local_rank;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_rank(node, &local_rank);
    int cpu = pin_self(local_rank);
    int info[2] = {cpu, cpu_package(cpu)}, all[4];
    MPI_Gather(info, 2, MPI_INT, all, 2, MPI_INT, 0, W);
    int same_node = bcast_int(node_size == 2);
    const char *locality =
        !same_node ? "other_node" : (all[1] >= 0 && all[1] == all[3] ? "same_socket" : "same_node");
    if (same_node && rank == 0 && all[0] == all[2])
        fprintf(stderr, "netsim_bench: warning: both ranks run on CPU %d; bind them to cores\n", all[0]);
    probe_setup(same_node);

    if (opt.kind == PROBE) {
        double start = now();
        while (now() - start < opt.seconds) {
            double p = probe();
            if (rank == 0) printf("%.3f,%.1f\n", now() - start, p);
            struct timespec ts = {0, 100000000};
            nanosleep(&ts, NULL);
        }
        MPI_Finalize();
        return 0;
    }

    static struct unit u[4096];
    int nu = units_of(u, 4096);
    int lo = (int)((int64_t)nu * opt.chunk / opt.chunks), hi = (int)((int64_t)nu * (opt.chunk + 1) / opt.chunks);

    /* Buffers for the largest unit of the slice. */
    uint64_t need = 1;
    uint64_t maxn = 1;
    for (int i = lo; i < hi; i++) {
        uint64_t m = u[i].size * (opt.kind == MSGRATE ? u[i].window : u[i].n);
        if (opt.kind == PINGPONG) m = u[i].size;
        if (m > need) need = m;
        uint64_t c = opt.kind == MSGRATE ? u[i].window : u[i].n;
        if (c > maxn) maxn = c;
        if (u[i].size > (uint64_t)INT32_MAX) die("%s", "sizes must be below 2 GiB");
    }
    if (need > (1ull << 30)) die("%s", "a unit needs more than 1 GiB of buffers; lower n or size");
    if (posix_memalign((void **)&sbuf, 4096, need) || posix_memalign((void **)&rbuf, 4096, need))
        die("%s", "out of memory");
    memset(sbuf, 1, need);
    memset(rbuf, 0, need);
    reqs = malloc(maxn * sizeof *reqs);

    FILE *f = rank == 0 ? csv_open() : NULL;
    enum { MAXR = 201 };
    double t[MAXR];
    int measured = 0, skipped_state = 0, skipped_mixed = 0;
    for (int i = lo; i < hi; i++) {
        enum { MIXED, DONE, UNWANTED } outcome = MIXED;
        for (int attempt = 0; attempt <= opt.retries && outcome == MIXED; attempt++) {
            double t_start = mono();
            double p0 = probe();
            const char *s0 = state_of(p0);
            int take_all = !strcmp(opt.want, "all");
            int wanted = take_all || (!strcmp(opt.want, "any") ? strcmp(s0, "busy") != 0 : !strcmp(s0, opt.want));
            if (probe_line && !bcast_int(wanted)) {
                outcome = UNWANTED;
                break;
            }
            int reps = 0;
            switch (opt.kind) {
            case PINGPONG:
                reps = pingpong(u[i].size, i, t, MAXR);
                break;
            case MSGRATE:
                reps = msgrate(u[i].size, u[i].window, u[i].n, t, MAXR);
                break;
            default:
                reps = hvpp(opt.kind, u[i].size, u[i].n, u[i].rev, t, MAXR);
                break;
            }
            double p1 = probe();
            double t_end = mono();
            if (!take_all && strcmp(state_of(p1), s0) != 0) continue; /* placement changed: again */
            if (rank == 0) {
                double mn = t[0], mx = t[0];
                for (int j = 0; j < reps; j++) {
                    if (t[j] < mn) mn = t[j];
                    if (t[j] > mx) mx = t[j];
                }
                double med = median(t, reps);
                const char *order = opt.kind == PINGPONG || opt.kind == MSGRATE ? "-" : u[i].rev ? "rev" : "in";
                fprintf(f, "%s,%s,%s,%llu,%llu,%s,%llu,%.6e,%.6e,%.6e,%d,%s,%.1f,%.6f,%.6f\n", opt.library,
                        kind_names[opt.kind], locality, (unsigned long long)u[i].size,
                        (unsigned long long)u[i].n, order, (unsigned long long)u[i].window, med, mn, mx,
                        reps, s0, p0 < 0 ? 0.0 : 0.5 * (p0 + p1), t_start, t_end);
                fflush(f);
            }
            outcome = DONE;
        }
        measured += outcome == DONE;
        skipped_state += outcome == UNWANTED;
        skipped_mixed += outcome == MIXED;
    }
    if (rank == 0) {
        printf("netsim_bench: kind=%s chunk=%d/%d units=%d measured=%d skipped_state=%d skipped_mixed=%d "
               "locality=%s cpus=%d,%d\n",
               kind_names[opt.kind], opt.chunk, opt.chunks, hi - lo, measured, skipped_state,
               skipped_mixed, locality, all[0], all[2]);
        if (f != stdout) fclose(f);
    }
    free(sbuf);
    free(rbuf);
    free(reqs);
    MPI_Comm_free(&node);
    MPI_Comm_free(&W);
    MPI_Finalize();
    return 0;
}
