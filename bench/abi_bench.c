/* The cost of the standard ABI: one source, built over anympi (the standard <mpi.h>, linked to
 * libmpi_abi.so.1) and natively against each MPI's own <mpi.h>, measured side by side by
 * bench/run.
 *
 *   abi_bench time [scale]       per-call times of the handle-only and PROC_NULL calls
 *   abi_bench count [scale]      the same loops, for callgrind: only the loops are collected
 *   abi_bench pingpong [scale]   2 ranks, round trips of 0 B .. 1 MiB
 *   abi_bench stream [scale]     2 ranks, windows of 64 messages of 1 B .. 1 MiB (rate, bandwidth)
 *
 * Prints one line per measurement: "bench=<name> iters=<n> ns=<nanoseconds per iteration>".
 * Under callgrind (run with --collect-atstart=no) every loop is collected alone and dumped as
 * "<name>", so bench/run can divide its instruction count by the iteration count.
 * Only standard MPI is used, nothing of either implementation's extensions. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure.h"

/* What the loop and one call to an external function cost by themselves: subtract it from an
 * instruction count to get the function's own cost. Not inlined, like a call into a library. */
__attribute__((noinline)) static int baseline_call(MPI_Comm comm, int *out) {
  __asm__ volatile("" ::: "memory");
  (void)comm;
  *out = 0;
  return 0;
}

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((const int *)in)[i];
}

static void handle_calls(double scale) {
  long n = counting ? 1000 : iterations(2000000, scale);
  int rank = -1, size = -1;
  MPI_Comm dup;
  MPI_Datatype user_type;
  check(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
  check(MPI_Type_contiguous(4, MPI_INT, &user_type), "MPI_Type_contiguous");
  check(MPI_Type_commit(&user_type), "MPI_Type_commit");

  MEASURE("baseline_call", n, { baseline_call(MPI_COMM_WORLD, &rank); sink = rank; });
  MEASURE("comm_rank_world", n, { MPI_Comm_rank(MPI_COMM_WORLD, &rank); sink = rank; });
  MEASURE("comm_rank_dup", n, { MPI_Comm_rank(dup, &rank); sink = rank; });
  MEASURE("comm_size_world", n, { MPI_Comm_size(MPI_COMM_WORLD, &size); sink = size; });
  MEASURE("type_size_int", n, { MPI_Type_size(MPI_INT, &size); sink = size; });
  MEASURE("type_size_user", n, { MPI_Type_size(user_type, &size); sink = size; });

  long m = counting ? 1000 : iterations(500000, scale);
  int sendbuf = 1, recvbuf = 0;
  MPI_Request req[2];
  MPI_Status st[2];
  MEASURE("isend_irecv_waitall_proc_null", m, {
    MPI_Isend(&sendbuf, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&recvbuf, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, st);
    sink = st[1].MPI_SOURCE;
  });
  MEASURE("recv_proc_null_status", m, {
    MPI_Recv(&recvbuf, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &st[0]);
    sink = st[0].MPI_SOURCE;
  });
  MEASURE("isend_irecv_waitall_proc_null_status_ignore", m, {
    MPI_Isend(&sendbuf, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&recvbuf, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  });

  /* reductions: a predefined op (the fast path of the op conversion), a nonblocking one
   * completed by MPI_Wait (the request conversions, nothing held), and a user op (its call
   * goes through anympi's closure) */
  int in4[4] = {1, 2, 3, 4}, inout4[4] = {0, 0, 0, 0};
  MEASURE("reduce_local_sum", n, { MPI_Reduce_local(in4, inout4, 4, MPI_INT, MPI_SUM); sink = inout4[0]; });
  MEASURE("allreduce_self_sum", n, { MPI_Allreduce(in4, inout4, 4, MPI_INT, MPI_SUM, MPI_COMM_SELF); sink = inout4[0]; });
  MPI_Request r;
  MEASURE("iallreduce_self_wait", m, {
    MPI_Iallreduce(&sendbuf, &recvbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    sink = recvbuf;
  });
  MPI_Op user_op;
  MPI_Op_create(add_ints, 1, &user_op);
  MEASURE("reduce_local_user_op", n, { MPI_Reduce_local(in4, inout4, 4, MPI_INT, user_op); sink = inout4[0]; });
  /* a user op through a collective: on one process MPI calls no op, so this is the op's and the
   * call's conversions; the closure's call is the loop above */
  MEASURE("allreduce_self_user_op", n, {
    MPI_Allreduce(in4, inout4, 4, MPI_INT, user_op, MPI_COMM_SELF);
    sink = inout4[0];
  });
  MPI_Op_free(&user_op);

  /* a derived-datatype message: every other int of 8 sent to self and received the same way */
  MPI_Datatype strided;
  check(MPI_Type_vector(4, 1, 2, MPI_INT, &strided), "MPI_Type_vector");
  check(MPI_Type_commit(&strided), "MPI_Type_commit");
  int vsend[8] = {1, 2, 3, 4, 5, 6, 7, 8}, vrecv[8] = {0};
  MEASURE("isend_recv_vector_self", m, {
    MPI_Isend(vsend, 1, strided, 0, 4, MPI_COMM_SELF, &r);
    MPI_Recv(vrecv, 1, strided, 0, 4, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    sink = vrecv[6];
  });
  MPI_Type_free(&strided);

  /* the message path: a window of 64 sends to self and 64 receives completed by one
   * MPI_Waitall (OSU's message-rate shape, without the network); per window */
  enum { WINDOW = 64 };
  long w = counting ? 50 : iterations(20000, scale);
  char wsend[WINDOW][8], wrecv[WINDOW][8];
  MPI_Request wreq[2 * WINDOW];
  memset(wsend, 1, sizeof wsend);
  MEASURE("window_64_self_8B", w, {
    for (int k = 0; k < WINDOW; ++k)
      MPI_Irecv(wrecv[k], 8, MPI_BYTE, 0, 3, MPI_COMM_SELF, &wreq[WINDOW + k]);
    for (int k = 0; k < WINDOW; ++k)
      MPI_Isend(wsend[k], 8, MPI_BYTE, 0, 3, MPI_COMM_SELF, &wreq[k]);
    MPI_Waitall(2 * WINDOW, wreq, MPI_STATUSES_IGNORE);
    sink = wrecv[WINDOW - 1][0];
  });

  /* completion calls alone: MPI_Waitall over 1024 completed requests with statuses (the
   * receives from MPI_PROC_NULL complete at once), and MPI_Test on a receive nobody matches */
  enum { MANY = 1024 };
  static MPI_Request many[MANY];
  static MPI_Status many_st[MANY];
  static int many_buf[MANY];
  long a = counting ? 20 : iterations(2000, scale);
  MEASURE("irecv_1024_waitall_statuses", a, {
    for (int k = 0; k < MANY; ++k)
      MPI_Irecv(&many_buf[k], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &many[k]);
    MPI_Waitall(MANY, many, many_st);
    sink = many_st[MANY - 1].MPI_TAG;
  });
  MPI_Request pending;
  int flag = 0;
  MPI_Status pst;
  check(MPI_Irecv(&recvbuf, 1, MPI_INT, 0, 99, MPI_COMM_SELF, &pending), "MPI_Irecv");
  MEASURE("test_pending", n, { MPI_Test(&pending, &flag, &pst); sink = flag; });
  check(MPI_Cancel(&pending), "MPI_Cancel");
  check(MPI_Wait(&pending, MPI_STATUS_IGNORE), "MPI_Wait");

  /* arrays of handles in and out: a nonblocking alltoallw on MPI_COMM_SELF, and decoding a
   * derived type */
  int one = 1, zero = 0, wout = 0;
  MPI_Datatype int_type = MPI_INT;
  MEASURE("ialltoallw_self_wait", m, {
    MPI_Ialltoallw(&sendbuf, &one, &zero, &int_type, &wout, &one, &zero, &int_type, MPI_COMM_SELF, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    sink = wout;
  });
  MPI_Datatype vec;
  check(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec), "MPI_Type_vector");
  int ni, na, nd, comb, ints[3];
  MPI_Aint addrs[1];
  MPI_Datatype types[1];
  MEASURE("type_get_contents", n, {
    MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb);
    MPI_Type_get_contents(vec, ni, na, nd, ints, addrs, types);
    sink = ints[2] + comb;
  });
  MPI_Type_free(&vec);

  MPI_Type_free(&user_type);
  MPI_Comm_free(&dup);
}

/* Two ranks, message sizes 0 B .. 1 MiB. Each size runs a calibration pass, then passes of
 * about `target` ns (fewer with scale < 1), the best one reported; rank 0 decides the count. */
enum { SIZES = 9, WINDOW_2 = 64 };
static const int sizes[SIZES] = {0, 1, 8, 64, 512, 4096, 32768, 262144, 1048576};

static int peer_setup(const char *mode) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "abi_bench %s: needs exactly 2 ranks, got %d\n", mode, size);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
  return rank;
}

/* Iterations for a pass of about target_ns, from one measured pass of n0. */
static long calibrated(double ns_of_n0, long n0, double scale) {
  double target_ns = 2e7 * scale;
  long n = ns_of_n0 > 0 ? (long)(target_ns * n0 / ns_of_n0) : n0;
  if (n < 10) n = 10;
  if (n > 200000) n = 200000;
  MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return n;
}

/* Round trips of `bytes` between rank 0 and rank 1; ns per round trip. */
static double round_trips(char *buf, int bytes, long n, int rank) {
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  double t0 = now_ns();
  for (long i = 0; i < n; ++i) {
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
  }
  return (now_ns() - t0) / n;
}

static void pingpong(double scale) {
  int rank = peer_setup("pingpong");
  char *buf = malloc(sizes[SIZES - 1]);
  if (!buf) MPI_Abort(MPI_COMM_WORLD, 6);
  for (int k = 0; k < SIZES; ++k) {
    memset(buf, rank, sizes[SIZES - 1]);
    long n = calibrated(round_trips(buf, sizes[k], 50, rank) * 50, 50, scale);
    double best = 1e300;
    for (int rep = 0; rep < REPEATS; ++rep) {
      double t = round_trips(buf, sizes[k], n, rank);
      if (t < best) best = t;
    }
    if (sizes[k] > 0 && buf[0] != 0) { /* rank 0's bytes went there and back */
      fprintf(stderr, "abi_bench pingpong: rank %d got byte %d back\n", rank, buf[0]);
      MPI_Abort(MPI_COMM_WORLD, 5);
    }
    if (rank == 0) printf("bench=pingpong_%dB iters=%ld ns=%.3f\n", sizes[k], n, best);
  }
  free(buf);
}

/* OSU-style streaming: rank 0 sends windows of 64 messages of `bytes` (MPI_Isend + MPI_Waitall),
 * rank 1 receives them the same way and answers each window with one empty message; ns per
 * window, so message rate = 64 / time and bandwidth = 64 * bytes / time. */
static double windows(char *buf, int bytes, long n, int rank) {
  MPI_Request req[WINDOW_2];
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  double t0 = now_ns();
  for (long i = 0; i < n; ++i) {
    for (int k = 0; k < WINDOW_2; ++k) {
      if (rank == 0) MPI_Isend(buf, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[k]);
      else MPI_Irecv(buf, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[k]);
    }
    MPI_Waitall(WINDOW_2, req, MPI_STATUSES_IGNORE);
    if (rank == 0) MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
  }
  return (now_ns() - t0) / n;
}

static void stream(double scale) {
  int rank = peer_setup("stream");
  char *buf = malloc(sizes[SIZES - 1]);
  if (!buf) MPI_Abort(MPI_COMM_WORLD, 6);
  memset(buf, 1, sizes[SIZES - 1]);
  for (int k = 1; k < SIZES; ++k) {
    long n = calibrated(windows(buf, sizes[k], 5, rank) * 5, 5, scale);
    double best = 1e300;
    for (int rep = 0; rep < REPEATS; ++rep) {
      double t = windows(buf, sizes[k], n, rank);
      if (t < best) best = t;
    }
    if (rank == 0) printf("bench=stream_%dB iters=%ld ns=%.3f\n", sizes[k], n, best);
  }
  free(buf);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "time";
  double scale = argc > 2 ? atof(argv[2]) : 1.0;
  if (!(scale > 0)) scale = 1.0;
  check(MPI_Init(&argc, &argv), "MPI_Init");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    char *nl = strchr(version, '\n');
    if (nl) *nl = '\0';
    printf("library=%s\n", version);
  }
  if (strcmp(mode, "time") == 0) {
    handle_calls(scale);
  } else if (strcmp(mode, "count") == 0) {
    counting = 1;
    handle_calls(scale);
  } else if (strcmp(mode, "pingpong") == 0) {
    pingpong(scale);
  } else if (strcmp(mode, "stream") == 0) {
    stream(scale);
  } else {
    if (rank == 0) fprintf(stderr, "abi_bench: unknown mode '%s' (time | count | pingpong | stream)\n", mode);
    MPI_Finalize();
    return 2;
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
