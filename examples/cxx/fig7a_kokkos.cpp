// Paper Fig. 1 (3) and Fig. 7 (a): Kokkos views as buffers, of the core's send and of the
// layer's recv (resized to the message). The figures' lines are unchanged but for the
// namespace (kamping::v2 -> anympi) and Fig. 7 (a)'s Views, which get the label Kokkos 3.4
// requires ("sv", "rv"); the includes, main, Kokkos's initialization, n/dest/src/tag, the
// matching receive and send, and the checks are added around them.
#include <anympi.hpp>
#include <anympi/kokkos.hpp>

#include <cstdio>

namespace views = anympi::views;

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  auto comm = mpi::comm_world();
  int const me = comm.rank(), p = comm.size();
  int const dest = (me + 1) % p, src = (me + p - 1) % p, tag = 3;
  int const n = 5 + me;  // each process sends a different size

  {
    Kokkos::View<double*> got("got", 5 + src);
    auto into = got | views::kokkos;  // a nonblocking call takes no temporary buffer
    mpi::request r = mpi::irecv(into, src, tag, comm);
    // ---- Fig. 1 (3) ----
    Kokkos::View<double*> kv("data", n);
    // ---- end ----
    Kokkos::parallel_for(n, KOKKOS_LAMBDA(int i) { kv(i) = me + 0.5 * i; });
    // ---- Fig. 1 (3) ----
    mpi::send(kv | views::kokkos, dest, tag, comm);
    // ---- end ----
    r.wait();
    for (int i = 0; i < 5 + src; ++i)
      if (got(i) != src + 0.5 * i) {
        std::fprintf(stderr, "fig1 (3): wrong data on rank %d\n", me);
        return 1;
      }
  }
  {
    // ---- Fig. 7 (a) ----
    Kokkos::View<int*> sv("sv", n);
    // ---- end ----
    Kokkos::parallel_for(n, KOKKOS_LAMBDA(int i) { sv(i) = 100 * me + i; });
    auto from = sv | views::kokkos;
    mpi::request s = mpi::isend(from, dest, tag, comm);
    // ---- Fig. 7 (a) ----
    Kokkos::View<int*> rv("rv", 0);
    anympi::recv(
    rv | views::kokkos | views::resize,
    src, tag, comm);
    // ---- end ----
    s.wait();
    if (rv.extent(0) != static_cast<std::size_t>(5 + src)) {
      std::fprintf(stderr, "fig7 (a): the View has %zu elements, not %d\n", rv.extent(0), 5 + src);
      return 1;
    }
    for (int i = 0; i < 5 + src; ++i)
      if (rv(i) != 100 * src + i) {
        std::fprintf(stderr, "fig7 (a): wrong data on rank %d\n", me);
        return 1;
      }
  }
  if (me == 0) std::printf("fig1 (3), fig7 (a): Kokkos views through mpi::send and anympi::recv, resized\n");
  return 0;
}
