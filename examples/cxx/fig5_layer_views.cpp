// Paper Fig. 5 (2)-(5): views that attach MPI metadata, over the core's operations. The
// figure's lines are unchanged but for the namespaces (kamping::v2 and mpi::types -> anympi and
// anympi::types) and three things the figure leaves out: (4) receives into `rdata`, not into
// its own send buffer `data` (MPI forbids the two to overlap), and (5)'s send names its
// destination, tag and communicator. The includes, main, initializers and checks are added.
#include <anympi.hpp>

#include <cstdio>
#include <numeric>
#include <ranges>
#include <vector>

namespace views = anympi::views;

// ---- Fig. 5 (5), the type ----
struct MyStruct { int x; double y; };
template <>
struct anympi::types::mpi_type_traits<MyStruct>
: public anympi::types::struct_type<MyStruct> {};
// ---- end ----

static int fail(int me, char const* what) {
  std::fprintf(stderr, "fig5: %s wrong on rank %d\n", what, me);
  return 1;
}

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  auto comm = mpi::comm_world();
  int const me = comm.rank(), p = comm.size();
  int const dest = (me + 1) % p, src = (me + p - 1) % p, tag = 6;
  std::size_t const n = 2;

  {  // (2): four doubles, sent as MPI_DOUBLE explicitly
    std::vector<double> data{me + 0.5, 1.0, 2.0, 3.0}, got(4);
    mpi::request r = mpi::irecv(got, src, tag, comm);
    // ---- Fig. 5 (2) ----
    mpi::send(data | views::with_type(MPI_DOUBLE), dest, tag, comm);
    // ---- end ----
    r.wait();
    if (got != std::vector<double>{src + 0.5, 1.0, 2.0, 3.0}) return fail(me, "(2)");
  }
  {  // (3): the first n pairs of ints, as n elements of MPI_2INT
    MPI_Datatype my_type = MPI_2INT;
    std::vector<std::pair<int, int>> data{{me, 1}, {me, 2}, {me, 3}}, got(n);
    mpi::request r = mpi::irecv(got | views::with_type(my_type), src, tag, comm);
    // ---- Fig. 5 (3) ----
    mpi::send(data | std::views::take(n) | views::with_type(my_type),
    dest, tag, comm);
    // ---- end ----
    r.wait();
    if (got != std::vector<std::pair<int, int>>{{src, 1}, {src, 2}}) return fail(me, "(3)");
  }
  {  // (4): process i contributes i + 1 copies of i
    std::vector<int> data(me + 1, me), count(p), rdata(p * (p + 1) / 2);
    std::iota(count.begin(), count.end(), 1);
    // ---- Fig. 5 (4) ----
    mpi::allgatherv(data,
    rdata | views::with_counts(count) | views::auto_displs(), comm);
    // ---- end ----
    std::vector<int> expect;
    for (int i = 0; i < p; ++i) expect.insert(expect.end(), i + 1, i);
    if (rdata != expect) return fail(me, "(4)");
  }
  {  // (5): a struct's datatype from the pool, committed on first use, freed with the pool
    std::vector<MyStruct> got(2);
    anympi::type_pool recv_pool;
    mpi::request r = mpi::irecv(got | views::with_auto_pool(recv_pool), src, tag, comm);
    // ---- Fig. 5 (5), the use ----
    anympi::type_pool pool;
    std::vector<MyStruct> v = {{me, 0.25}, {-me, 4.0}};
    mpi::send(v | views::with_auto_pool(pool), dest, tag, comm);
    // ---- end ----
    r.wait();
    if (got[0].x != src || got[0].y != 0.25 || got[1].x != -src || got[1].y != 4.0 || pool.size() != 1)
      return fail(me, "(5)");
  }
  if (me == 0) std::printf("fig5 (2)-(5): with_type, std::views::take, with_counts | auto_displs, with_auto_pool\n");
  return 0;
}
