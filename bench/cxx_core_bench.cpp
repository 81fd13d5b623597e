// The cost of the mpi:: core and of the anympi:: layer: each loop twice, as the C call and as the
// mpi:: call that does the same ("<what>.c", "<what>.cxx"), or as the mpi:: core code and the
// anympi:: call that does the same ("<what>.core", "<what>.layer"), built natively against each
// MPI (bench/run pairs them). Instructions per call are each layer's whole cost (callgrind is
// deterministic); times are reported but noisy.
//
//   cxx_core_bench time [scale]    per-call times
//   cxx_core_bench count [scale]   the same loops, one collected pass each, for callgrind
//
// Every loop works on MPI_PROC_NULL or MPI_COMM_SELF, so the MPI's own part is short and the
// C++ share shows.
#include <anympi.hpp>
#include <mpi.hpp>

#include <numeric>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "measure.h"

namespace {

// What every loop works on. The C loops pass the vector's size as a C++ program calling the C
// API writes it, converted in the call, as mpi:: reads it in each call. Each pair of loops is a function of its own, as a user's call would
// be in a function of ordinary size: in one huge function g++ keeps temporaries in memory that
// it otherwise holds in registers, for the C calls and the mpi:: calls alike.
struct state {
  long n;
  std::vector<int> v = std::vector<int>(4, 1);
  int x = 1, y = 0;
  mpi::comm_view world = mpi::comm_world(), self = mpi::comm_self();
  // A communicator of the user's: the core asks MPI its size once, and the view remembers it.
  mpi::comm self_dup = mpi::comm_self().dup();
  // An alltoallv whose receive side is known only after the counts are exchanged.
  std::vector<int> counts = std::vector<int>{4}, displs = std::vector<int>{0}, rcounts = std::vector<int>(1),
                   rdispls = std::vector<int>(1);
  std::vector<int> out;
};

[[gnu::noinline]] void send_vector(state& s) {
  MEASURE("send_vector.c", s.n, { MPI_Send(s.v.data(), static_cast<int>(s.v.size()), MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD); });
  MEASURE("send_vector.cxx", s.n, { mpi::send(s.v, mpi::proc_null, 0, s.world); });
}

[[gnu::noinline]] void recv_vector(state& s) {
  MPI_Status st;
  MEASURE("recv_vector.c", s.n, {
    MPI_Recv(s.v.data(), static_cast<int>(s.v.size()), MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    sink = st.MPI_SOURCE;
  });
  MEASURE("recv_vector.cxx", s.n, { sink = mpi::recv(s.v, mpi::proc_null, 0, s.world).source(); });
}

[[gnu::noinline]] void isend_wait(state& s) {
  MPI_Request r;
  MEASURE("isend_wait.c", s.n, {
    MPI_Isend(s.v.data(), static_cast<int>(s.v.size()), MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  });
  MEASURE("isend_wait.cxx", s.n, { mpi::isend(s.v, mpi::proc_null, 0, s.world).wait(mpi::status_ignore); });
}

[[gnu::noinline]] void allreduce_int(state& s) {
  MEASURE("allreduce_int.c", s.n, {
    MPI_Allreduce(&s.x, &s.y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    sink = s.y;
  });
  MEASURE("allreduce_int.cxx", s.n, {
    mpi::allreduce(s.x, s.y, std::plus<>{}, s.self);
    sink = s.y;
  });
}

// Whole-message collectives: the core divides the buffer's count by the peer count, which it
// knows of MPI_COMM_SELF and, for a user's communicator, asks MPI once per comm_view (the view
// passed to allgather_on, which the loop's calls take by reference).
[[gnu::noinline]] void allgather_on(state& s, mpi::comm_view comm, char const* c_name, char const* cxx_name) {
  MEASURE(c_name, s.n, {
    MPI_Allgather(&s.x, 1, MPI_INT, &s.y, 1, MPI_INT, comm.native());
    sink = s.y;
  });
  MEASURE(cxx_name, s.n, {
    mpi::allgather(s.x, s.y, comm);
    sink = s.y;
  });
}
void allgather_int(state& s) { allgather_on(s, s.self, "allgather_int.c", "allgather_int.cxx"); }
void allgather_int_dup(state& s) { allgather_on(s, s.self_dup, "allgather_int_dup.c", "allgather_int_dup.cxx"); }

[[gnu::noinline]] void gather_int(state& s) {
  MEASURE("gather_int.c", s.n, {
    MPI_Gather(&s.x, 1, MPI_INT, &s.y, 1, MPI_INT, 0, MPI_COMM_SELF);
    sink = s.y;
  });
  MEASURE("gather_int.cxx", s.n, {
    mpi::gather(s.x, s.y, 0, s.self);
    sink = s.y;
  });
}

// ---------------------------------------------------------------- the anympi:: layer over the core
// The source of an anympi:: receive's status (its result is a buffer and a status).
template <class Received>
int source_of(Received&& r) {
  auto&& [buffer, st] = r;
  return st.source();
}

[[gnu::noinline]] void layer_send(state& s) {
  MEASURE("send_vector.core", s.n, { mpi::send(s.v, mpi::proc_null, 0, s.world); });
  MEASURE("send_vector.layer", s.n, { anympi::send(s.v, mpi::proc_null, 0, s.world); });
}

// A buffer that carries its size: no count to infer.
[[gnu::noinline]] void layer_recv_known(state& s) {
  MEASURE("recv_known.core", s.n, { sink = mpi::recv(s.v, mpi::proc_null, 0, s.world).source(); });
  MEASURE("recv_known.layer", s.n, { sink = source_of(anympi::recv(s.v, mpi::proc_null, 0, s.world)); });
}

// A buffer sized to what arrives: the count is probed (from MPI_PROC_NULL: at once, 0).
[[gnu::noinline]] void layer_recv_resize(state& s) {
  MEASURE("recv_resize.core", s.n, {
    mpi::status const st = mpi::probe(mpi::proc_null, 0, s.world);
    s.out.resize(static_cast<std::size_t>(st.count(MPI_INT)));
    sink = mpi::recv(s.out, mpi::proc_null, 0, s.world).source();
  });
  MEASURE("recv_resize.layer", s.n, {
    sink = source_of(anympi::recv(s.out | anympi::views::resize, mpi::proc_null, 0, s.world));
  });
}

// The receive counts exchanged, the displacements summed, the buffer resized, then the data.
[[gnu::noinline]] void layer_alltoallv(state& s) {
  MEASURE("alltoallv_counts.core", s.n, {
    mpi::alltoall(s.counts, s.rcounts, s.self);
    std::exclusive_scan(s.rcounts.begin(), s.rcounts.end(), s.rdispls.begin(), 0);
    s.out.resize(static_cast<std::size_t>(s.rdispls.back() + s.rcounts.back()));
    mpi::alltoallv(mpi::mpi_span_v(s.v, s.counts, s.displs), mpi::mpi_span_v(s.out, s.rcounts, s.rdispls), s.self);
    sink = s.out[0];
  });
  MEASURE("alltoallv_counts.layer", s.n, {
    anympi::alltoallv(s.v | anympi::views::with_counts(s.counts),
                      s.out | anympi::views::auto_counts | anympi::views::auto_displs | anympi::views::resize_v, s.self);
    sink = s.out[0];
  });
}

}  // namespace

int main(int argc, char** argv) {
  char const* mode = argc > 1 ? argv[1] : "time";
  double scale = argc > 2 ? std::atof(argv[2]) : 1.0;
  if (!(scale > 0)) scale = 1.0;
  check(MPI_Init(&argc, &argv), "MPI_Init");
  if (std::strcmp(mode, "count") == 0) counting = 1;
  else if (std::strcmp(mode, "time") != 0) {
    std::fprintf(stderr, "cxx_core_bench: unknown mode '%s' (time | count)\n", mode);
    MPI_Finalize();
    return 2;
  }
  {
    state s{counting ? 1000 : iterations(1000000, scale)};
    for (auto loop : {send_vector, recv_vector, isend_wait, allreduce_int, allgather_int, allgather_int_dup, gather_int,
                      layer_send, layer_recv_known, layer_recv_resize, layer_alltoallv})
      loop(s);
  }  // frees the duplicate before MPI_Finalize
  std::fflush(stdout);
  MPI_Finalize();
  return 0;
}
