/* The measuring loop shared by bench/abi_bench.c (C) and bench/cxx_core_bench.cpp (C++), so that
 * bench/run reads both alike: one line "bench=<name> iters=<n> ns=<nanoseconds per iteration>"
 * per loop and, under callgrind (--collect-atstart=no), one dump per loop named "<name>" that
 * holds that loop's instructions only. Include it once, after <mpi.h>. */
#ifndef ANYMPI_BENCH_MEASURE_H
#define ANYMPI_BENCH_MEASURE_H

#include <stdio.h>
#include <time.h>
#include <valgrind/callgrind.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int check(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "bench: %s failed with %d\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return rc;
}

/* The loops are the measured code. A volatile sink keeps the compiler from dropping calls
 * whose results look unused; the loop itself costs the same in every variant. */
static volatile int sink;

enum { REPEATS = 5 };
static int counting; /* count mode: one pass per loop, collected by callgrind */

/* Runs body(iters) REPEATS times and reports the fastest pass. When counting, the second of two
 * passes is collected alone (the first warms up whatever the library does lazily). */
#define MEASURE(name, iters, body)                                              \
  do {                                                                          \
    double best = 1e300;                                                        \
    for (int rep = 0; rep < (counting ? 2 : REPEATS); ++rep) {                  \
      int collect = counting && rep == 1;                                       \
      if (collect) {                                                            \
        CALLGRIND_ZERO_STATS;                                                   \
        CALLGRIND_TOGGLE_COLLECT;                                               \
      }                                                                         \
      double t0 = now_ns();                                                     \
      for (long i = 0; i < (iters); ++i) { body; }                              \
      double t1 = now_ns();                                                     \
      if (collect) {                                                            \
        CALLGRIND_TOGGLE_COLLECT;                                               \
        CALLGRIND_DUMP_STATS_AT(name);                                          \
      }                                                                         \
      if (t1 - t0 < best) best = t1 - t0;                                       \
    }                                                                           \
    printf("bench=%s iters=%ld ns=%.3f\n", name, (long)(iters), best / (iters)); \
  } while (0)

/* Iteration counts are base * scale; scale < 1 (the smoke test) still runs every loop. */
static long iterations(long base, double scale) {
  long n = (long)(base * scale);
  return n < 10 ? 10 : n;
}

#endif
