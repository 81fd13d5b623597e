// The control of the *_temporary snippets: the same calls on lvalues, const lvalues and
// rvalue views compile, so those snippets fail for the temporary alone. Then the rule for
// every operation whose request outlives its call, on each buffer argument: its nonblocking
// and persistent forms take an lvalue or a view, never a temporary that owns its elements;
// its blocking form still takes that temporary.
#include <mpi.hpp>

#include <array>
#include <functional>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

void calls() {
  std::vector<int> v(4, 1), sum(4);
  std::vector<int> const cv(4, 1);
  std::array<int, 4> a{};
  MPI_Comm const w = MPI_COMM_WORLD;
  std::vector<mpi::request> r;
  r.push_back(mpi::isend(v, 1, 0, w));
  r.push_back(mpi::irecv(v, 0, 0, w));
  r.push_back(mpi::send_init(v, 1, 0, w));
  r.push_back(mpi::iallreduce(v, sum, std::plus<>{}, w));
  r.push_back(mpi::ibcast(a, 0, w));
  r.push_back(mpi::isend(cv, 1, 0, w));
  r.push_back(mpi::isend(std::span<int const>(v), 1, 0, w));
  r.push_back(mpi::irecv(std::span<int>(v), 0, 0, w));
  r.push_back(mpi::send_init(std::span(v), 1, 0, w));
  r.push_back(mpi::iallreduce(std::span<int const>(v), std::span(sum), std::plus<>{}, w));
  r.push_back(mpi::ibcast(std::span(a), 0, w));
  r.push_back(mpi::isend(v | std::views::take(2), 1, 0, w));            // a view of an lvalue
  r.push_back(mpi::isend(mpi::mpi_span<int const>(cv.data(), 4), 1, 0, w));  // pointer and count
  r.push_back(mpi::iallreduce(mpi::in_place, sum, std::plus<>{}, w));
  mpi::wait_all(r);
  // A blocking call is done with its buffers when it returns.
  mpi::send(std::vector<int>(4, 1), 1, 0, w);
  mpi::allreduce(std::vector<int>(4, 1), sum, std::plus<>{}, w);
  mpi::bcast(std::array<int, 4>{}, 0, w);
  mpi::send(42, 1, 0, w);
}

// Varying buffers that own their storage, as a user type may.
struct owned_v {
  std::vector<int> data, counts, displs;
  int* mpi_ptr() { return data.data(); }
  int const* mpi_ptr() const { return data.data(); }
  std::vector<int> const& mpi_counts() const { return counts; }
  std::vector<int> const& mpi_displs() const { return displs; }
  MPI_Datatype mpi_type() const { return MPI_INT; }
};
struct owned_w {
  std::vector<int> data, counts, displs;
  std::vector<MPI_Datatype> types;
  int* mpi_ptr() { return data.data(); }
  int const* mpi_ptr() const { return data.data(); }
  std::vector<int> const& mpi_counts() const { return counts; }
  std::vector<int> const& mpi_displs() const { return displs; }
  std::vector<MPI_Datatype> const& mpi_datatypes() const { return types; }
};

// Arguments not under test.
std::vector<int>& buf();
owned_v& vbuf();
owned_w& wbuf();
std::vector<int> const& counts();
mpi::message& msg();
inline MPI_Comm const w = MPI_COMM_WORLD;

// Whether mpi::fn(args) compiles when the argument under test, written x(), is a B: an
// lvalue for B = T&, else an rvalue.
#define TAKES(B, fn, ...)                                                                   \
  [](auto t) {                                                                              \
    using Arg = typename decltype(t)::type;                                                 \
    return requires(Arg (&x)()) { mpi::fn(__VA_ARGS__); };                                  \
  }(std::type_identity<B>{})
// fn takes an lvalue of Owning and an rvalue View, not an rvalue Owning.
#define OUTLIVES(fn, Owning, View, ...)                                                      \
  static_assert(TAKES(Owning&, fn, __VA_ARGS__) && TAKES(View, fn, __VA_ARGS__) &&          \
                    !TAKES(Owning, fn, __VA_ARGS__),                                         \
                #fn " on " #Owning)
// The three forms of an operation: the blocking one takes the rvalue Owning.
#define FORMS(name, Owning, View, ...)                                                      \
  static_assert(TAKES(Owning, name, __VA_ARGS__), #name " on " #Owning);                    \
  OUTLIVES(i##name, Owning, View, __VA_ARGS__);                                              \
  OUTLIVES(name##_init, Owning, View, __VA_ARGS__)

using vec = std::vector<int>;
using span = std::span<int>;
using span_v = mpi::mpi_span_v<int>;
using span_w = mpi::mpi_span_w<int>;
using std::plus;

FORMS(send, vec, span, x(), 1, 0, w);
FORMS(bsend, vec, span, x(), 1, 0, w);
FORMS(ssend, vec, span, x(), 1, 0, w);
FORMS(rsend, vec, span, x(), 1, 0, w);
FORMS(recv, vec, span, x(), 0, 0, w);
OUTLIVES(isendrecv, vec, span, x(), 1, 0, buf(), 0, 0, w);
OUTLIVES(isendrecv, vec, span, buf(), 1, 0, x(), 0, 0, w);
OUTLIVES(isendrecv_replace, vec, span, x(), 1, 0, 0, 0, w);
OUTLIVES(imrecv, vec, span, x(), msg());
OUTLIVES(psend_init, vec, span, x(), 4, 1, 0, w);
OUTLIVES(precv_init, vec, span, x(), 4, 0, 0, w);

FORMS(bcast, vec, span, x(), 0, w);
FORMS(gather, vec, span, x(), buf(), 0, w);
FORMS(gather, vec, span, buf(), x(), 0, w);
FORMS(gatherv, vec, span, x(), vbuf(), 0, w);
FORMS(gatherv, owned_v, span_v, buf(), x(), 0, w);
FORMS(scatter, vec, span, x(), buf(), 0, w);
FORMS(scatter, vec, span, buf(), x(), 0, w);
FORMS(scatterv, owned_v, span_v, x(), buf(), 0, w);
FORMS(scatterv, vec, span, vbuf(), x(), 0, w);
FORMS(allgather, vec, span, x(), buf(), w);
FORMS(allgather, vec, span, buf(), x(), w);
FORMS(allgatherv, vec, span, x(), vbuf(), w);
FORMS(allgatherv, owned_v, span_v, buf(), x(), w);
FORMS(alltoall, vec, span, x(), buf(), w);
FORMS(alltoall, vec, span, buf(), x(), w);
FORMS(alltoallv, owned_v, span_v, x(), vbuf(), w);
FORMS(alltoallv, owned_v, span_v, vbuf(), x(), w);
FORMS(alltoallw, owned_w, span_w, x(), wbuf(), w);
FORMS(alltoallw, owned_w, span_w, wbuf(), x(), w);
FORMS(reduce, vec, span, x(), buf(), plus<>{}, 0, w);
FORMS(reduce, vec, span, buf(), x(), plus<>{}, 0, w);
FORMS(allreduce, vec, span, x(), buf(), plus<>{}, w);
FORMS(allreduce, vec, span, buf(), x(), plus<>{}, w);
FORMS(scan, vec, span, x(), buf(), plus<>{}, w);
FORMS(scan, vec, span, buf(), x(), plus<>{}, w);
FORMS(exscan, vec, span, x(), buf(), plus<>{}, w);
FORMS(exscan, vec, span, buf(), x(), plus<>{}, w);
FORMS(reduce_scatter_block, vec, span, x(), buf(), plus<>{}, w);
FORMS(reduce_scatter_block, vec, span, buf(), x(), plus<>{}, w);
FORMS(reduce_scatter, vec, span, x(), buf(), counts(), plus<>{}, w);
FORMS(reduce_scatter, vec, span, buf(), x(), counts(), plus<>{}, w);
FORMS(reduce_scatter, vec, span, buf(), buf(), x(), plus<>{}, w);  // MPI reads recvcounts too

FORMS(neighbor_allgather, vec, span, x(), buf(), w);
FORMS(neighbor_allgather, vec, span, buf(), x(), w);
FORMS(neighbor_allgatherv, vec, span, x(), vbuf(), w);
FORMS(neighbor_allgatherv, owned_v, span_v, buf(), x(), w);
FORMS(neighbor_alltoall, vec, span, x(), buf(), w);
FORMS(neighbor_alltoall, vec, span, buf(), x(), w);
FORMS(neighbor_alltoallv, owned_v, span_v, x(), vbuf(), w);
FORMS(neighbor_alltoallv, owned_v, span_v, vbuf(), x(), w);
FORMS(neighbor_alltoallw, owned_w, span_w, x(), wbuf(), w);
FORMS(neighbor_alltoallw, owned_w, span_w, wbuf(), x(), w);

// One-sided: MPI reads or writes every origin, result and compare buffer until a later
// flush, unlock, fence or complete, so every RMA call follows the rule, the ones without a
// request too, and so do window memory (create) and attached memory.
mpi::win_view& win();
inline mpi::target const tgt{1, 0};
#define WIN_TAKES(B, fn, ...)                                                               \
  [](auto t) {                                                                              \
    using Arg = typename decltype(t)::type;                                                 \
    return requires(Arg (&x)()) { win().fn(__VA_ARGS__); };                                 \
  }(std::type_identity<B>{})
#define WIN_OUTLIVES(fn, ...)                                                               \
  static_assert(WIN_TAKES(vec&, fn, __VA_ARGS__) && WIN_TAKES(span, fn, __VA_ARGS__) &&     \
                    !WIN_TAKES(vec, fn, __VA_ARGS__),                                       \
                #fn)
WIN_OUTLIVES(put, x(), tgt);
WIN_OUTLIVES(rput, x(), tgt);
WIN_OUTLIVES(get, x(), tgt);
WIN_OUTLIVES(rget, x(), tgt);
WIN_OUTLIVES(accumulate, x(), tgt, plus<>{});
WIN_OUTLIVES(raccumulate, x(), tgt, plus<>{});
WIN_OUTLIVES(get_accumulate, x(), buf(), tgt, plus<>{});
WIN_OUTLIVES(get_accumulate, buf(), x(), tgt, plus<>{});
WIN_OUTLIVES(rget_accumulate, x(), buf(), tgt, plus<>{});
WIN_OUTLIVES(rget_accumulate, buf(), x(), tgt, plus<>{});
WIN_OUTLIVES(fetch_and_op, x(), buf(), tgt, plus<>{});
WIN_OUTLIVES(fetch_and_op, buf(), x(), tgt, plus<>{});
WIN_OUTLIVES(compare_and_swap, x(), buf(), buf(), tgt);
WIN_OUTLIVES(compare_and_swap, buf(), x(), buf(), tgt);
WIN_OUTLIVES(compare_and_swap, buf(), buf(), x(), tgt);
WIN_OUTLIVES(attach, x());
#define CREATE_TAKES(B)                                                                     \
  [](auto t) {                                                                              \
    using Arg = typename decltype(t)::type;                                                 \
    return requires(Arg (&x)()) { mpi::win::create(x(), w); };                              \
  }(std::type_identity<B>{})
static_assert(CREATE_TAKES(vec&) && CREATE_TAKES(span) && !CREATE_TAKES(vec), "win::create");

void rma_calls(mpi::win_view wv) {
  std::vector<int> v(4, 1), res(4);
  int one = 1, old = 0;
  mpi::request r = wv.rput(v, {1, 0});
  r.wait();
  r = wv.rget(std::span(res), {1, 0});
  r.wait();
  wv.put(std::span<int const>(v), {1, 0, 4, MPI_INT});
  wv.fetch_and_op(one, old, {0, 0}, plus<>{});
}

// Parallel I/O: every nonblocking access and every split collective _begin follows the rule
// (MPI reads or writes the buffer until the request completes or the _end returns); the
// blocking accesses take a temporary.
mpi::file_view& file();
#define FILE_TAKES(B, fn, ...)                                                              \
  [](auto t) {                                                                              \
    using Arg = typename decltype(t)::type;                                                 \
    return requires(Arg (&x)()) { file().fn(__VA_ARGS__); };                                \
  }(std::type_identity<B>{})
#define FILE_OUTLIVES(fn, ...)                                                              \
  static_assert(FILE_TAKES(vec&, fn, __VA_ARGS__) && FILE_TAKES(span, fn, __VA_ARGS__) &&   \
                    !FILE_TAKES(vec, fn, __VA_ARGS__),                                      \
                #fn)
#define FILE_BLOCKING(fn, ...) static_assert(FILE_TAKES(vec, fn, __VA_ARGS__), #fn " on a temporary")
FILE_OUTLIVES(iread, x());
FILE_OUTLIVES(iwrite, x());
FILE_OUTLIVES(iread_at, 0, x());
FILE_OUTLIVES(iwrite_at, 0, x());
FILE_OUTLIVES(iread_shared, x());
FILE_OUTLIVES(iwrite_shared, x());
FILE_OUTLIVES(iread_all, x());
FILE_OUTLIVES(iwrite_all, x());
FILE_OUTLIVES(iread_at_all, 0, x());
FILE_OUTLIVES(iwrite_at_all, 0, x());
FILE_OUTLIVES(read_all_begin, x());
FILE_OUTLIVES(write_all_begin, x());
FILE_OUTLIVES(read_at_all_begin, 0, x());
FILE_OUTLIVES(write_at_all_begin, 0, x());
FILE_OUTLIVES(read_ordered_begin, x());
FILE_OUTLIVES(write_ordered_begin, x());
FILE_BLOCKING(read, x());
FILE_BLOCKING(write, x());
FILE_BLOCKING(read_at, 0, x());
FILE_BLOCKING(write_at, 0, x());
FILE_BLOCKING(read_shared, x());
FILE_BLOCKING(write_shared, x());
FILE_BLOCKING(read_all, x());
FILE_BLOCKING(write_all, x());
FILE_BLOCKING(read_at_all, 0, x());
FILE_BLOCKING(write_at_all, 0, x());
FILE_BLOCKING(read_ordered, x());
FILE_BLOCKING(write_ordered, x());
FILE_BLOCKING(write_all_end, x());

void io_calls(mpi::file_view fh) {
  std::vector<int> v(4, 1);
  mpi::request r = fh.iwrite_at(0, v);
  r.wait();
  r = fh.iread(std::span(v));
  r.wait();
  fh.write_all_begin(std::span<int const>(v));
  fh.write_all_end(v);
}

// bsend's buffer: an lvalue container, or a view of one; detached as std::byte or char.
void bsend_buffer_calls() {
  std::vector<std::byte> bytes(1024);
  std::vector<char> chars(1024);
  mpi::buffer_attach(bytes);
  std::span<std::byte> const detached = mpi::buffer_detach();
  mpi::buffer_attach(std::span<char>(chars));
  std::span<char> const as_chars = mpi::buffer_detach<char>();
  (void)detached, (void)as_chars;
}
