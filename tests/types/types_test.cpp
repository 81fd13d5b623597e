// Datatype understanding over a native MPI (compiled once per MPI: the same source must
// hold over MPICH's integer handles and Open MPI's pointer handles).
//
// Most type maps are checked twice: against maps computed by hand here, and against what
// the MPI itself packs (MPI_Pack gathers the values in type map order, so the packed
// stream must equal the bytes the decoded map points at). The second check needs no
// hand-computed numbers and catches a decoder that agrees with a wrong hand computation.
#include <mpi.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <anympi/types.hpp>

namespace at = anympi::types;

namespace {

// Owns a type built in a test.
struct owned {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  owned() = default;
  explicit owned(MPI_Datatype x) : t(x) {}
  owned(const owned&) = delete;
  ~owned() {
    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  }
  operator MPI_Datatype() const { return t; }
};

#define MPI_OK(call) ASSERT_EQ((call), MPI_SUCCESS) << #call

std::vector<std::int64_t> disps(const at::type_map& m) {
  std::vector<std::int64_t> v;
  for (const auto& e : m.entries) v.push_back(e.disp);
  return v;
}
std::vector<std::string> names(const at::type_map& m) {
  std::vector<std::string> v;
  for (const auto& e : m.entries) v.push_back(m.type_of(e).name);
  return v;
}
std::vector<std::int64_t> offsets(const at::layout& l) {
  std::vector<std::int64_t> v;
  for (std::int64_t k = 0; k < l.count; ++k)
    for (const auto& e : l.map.entries) v.push_back(e.disp + k * l.map.b.extent);
  return v;
}
std::vector<std::int64_t> times(std::vector<std::int64_t> v, std::int64_t f) {
  for (auto& x : v) x *= f;
  return v;
}

// The MPI's own packing must gather exactly the bytes the decoded map selects, in order.
void expect_matches_pack(MPI_Datatype t, int count) {
  MPI_Datatype c = MPI_DATATYPE_NULL;
  MPI_OK(MPI_Type_dup(t, &c));
  MPI_OK(MPI_Type_commit(&c));
  const at::layout l = at::describe(t, count);
  if (l.value_bytes == 0) {
    MPI_Type_free(&c);
    return;
  }
  const std::int64_t lo = l.span.lo, hi = l.span.hi;
  std::vector<unsigned char> memory(static_cast<std::size_t>(hi - lo));
  for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<unsigned char>((i * 2654435761u) >> 11);
  const unsigned char* base = memory.data() - lo;
  int packsize = 0;
  MPI_OK(MPI_Pack_size(count, c, MPI_COMM_SELF, &packsize));
  std::vector<unsigned char> packed(static_cast<std::size_t>(packsize));
  int position = 0;
  MPI_OK(MPI_Pack(base, count, c, packed.data(), packsize, &position, MPI_COMM_SELF));
  ASSERT_EQ(position, l.value_bytes);
  std::vector<unsigned char> expected;
  for (std::int64_t k = 0; k < count; ++k)
    for (const auto& e : l.map.entries) {
      const std::int64_t off = e.disp + k * l.map.b.extent;
      for (std::int64_t b = 0; b < l.map.type_of(e).size; ++b) expected.push_back(base[off + b]);
    }
  packed.resize(static_cast<std::size_t>(position));
  EXPECT_EQ(expected, packed);
  MPI_Type_free(&c);
}

at::compatibility verdict_of(const char* send, const char* recv) {
  auto s = at::build(send);
  auto r = at::build(recv);
  return at::check(s.count, s.type.get(), r.count, r.type.get());
}

MPI_Datatype mpi6(MPI_Aint extent) {
  int bl[2] = {1, 1};
  MPI_Aint d[2] = {0, 16};
  MPI_Datatype ty[2] = {MPI_DOUBLE, MPI_DOUBLE};
  MPI_Datatype s, r;
  MPI_Type_create_struct(2, bl, d, ty, &s);
  MPI_Type_create_resized(s, 0, extent, &r);
  MPI_Type_free(&s);
  return r;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Acceptance: the MPI-6 case.

TEST(Mpi6, FiguresOfThreeInstances) {
  owned t(mpi6(32));
  const at::layout l = at::describe(t.t, 3);
  EXPECT_EQ(at::to_string(l.sig), "6 \u00d7 MPI_DOUBLE");
  EXPECT_EQ(l.elements, 6);
  EXPECT_EQ(l.value_bytes, 48);
  EXPECT_EQ(l.span.lo, 0);
  EXPECT_EQ(l.span.hi, 88);  // offsets 0-87
  EXPECT_EQ(l.span.size(), 88);
  EXPECT_EQ(l.gap_bytes, 40);
  EXPECT_EQ(l.count_extent, 96);
  EXPECT_EQ(offsets(l), (std::vector<std::int64_t>{0, 16, 32, 48, 64, 80}));
  EXPECT_EQ(l.gaps, (std::vector<at::byte_range>{{8, 16}, {24, 32}, {40, 48}, {56, 64}, {72, 80}}));
  EXPECT_EQ(l.map.b.extent, 32);
  EXPECT_EQ(l.map.b.true_extent, 24);
  expect_matches_pack(t, 3);
}

TEST(Mpi6, CompatibleWithSixContiguousDoubles) {
  owned t(mpi6(32));
  const auto c = at::check(3, t.t, 6, MPI_DOUBLE);
  EXPECT_EQ(c.result, at::verdict::compatible) << c.explanation;
  EXPECT_EQ(c.send_bytes, 48);
  EXPECT_EQ(c.recv_bytes, 48);
}

TEST(Mpi6, ExtentTwentyFourMovesTheOffsetsNotTheSignature) {
  owned t32(mpi6(32)), t24(mpi6(24));
  const at::layout l = at::describe(t24.t, 3);
  EXPECT_EQ(offsets(l), (std::vector<std::int64_t>{0, 16, 24, 40, 48, 64}));
  EXPECT_EQ(l.sig, at::describe(t32.t, 3).sig);
  EXPECT_EQ(at::to_string(l.sig), "6 \u00d7 MPI_DOUBLE");
  EXPECT_EQ(l.count_extent, 72);
  EXPECT_EQ(l.span.size(), 72);
  expect_matches_pack(t24, 3);
}

TEST(Mpi6, ExpressionBuildsTheSameType) {
  auto b = at::build("resized(struct(double@0, double@16), lb=0, extent=32) * 3");
  EXPECT_EQ(b.count, 3);
  owned direct(mpi6(32));
  const at::layout a = at::describe(b.type.get(), b.count), d = at::describe(direct.t, 3);
  EXPECT_EQ(offsets(a), offsets(d));
  EXPECT_EQ(a.sig, d.sig);
  EXPECT_EQ(at::to_string(at::to_expr(at::decode(b.type.get()))),
            "resized(struct(MPI_DOUBLE@0, MPI_DOUBLE@16), lb=0, extent=32)");
}

// ---------------------------------------------------------------------------------------
// Every combiner, against hand-computed maps and against MPI_Pack.

TEST(Combiner, Named) {
  const auto n = at::decode(MPI_INT);
  EXPECT_EQ(n.kind, at::constructor::basic);
  EXPECT_EQ(n.name, "MPI_INT");
  const auto m = at::decode_map(MPI_INT);
  EXPECT_EQ(names(m), (std::vector<std::string>{"MPI_INT"}));
  EXPECT_EQ(disps(m), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(m.b.size, static_cast<std::int64_t>(sizeof(int)));
}

TEST(Combiner, Dup) {
  MPI_Datatype t;
  MPI_OK(MPI_Type_dup(MPI_DOUBLE, &t));
  owned o(t);
  const auto n = at::decode(t);
  EXPECT_EQ(n.kind, at::constructor::dup);
  ASSERT_EQ(n.children.size(), 1u);
  EXPECT_EQ(n.children[0].name, "MPI_DOUBLE");
  EXPECT_EQ(names(at::decode_map(t)), (std::vector<std::string>{"MPI_DOUBLE"}));
  // Decoding must not have freed MPI_DOUBLE nor the dup: both still work.
  expect_matches_pack(t, 2);
  expect_matches_pack(MPI_DOUBLE, 2);
}

TEST(Combiner, Contiguous) {
  MPI_Datatype t;
  MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
  owned o(t);
  const auto n = at::decode(t);
  EXPECT_EQ(n.kind, at::constructor::contiguous);
  EXPECT_EQ(n.ints, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(disps(at::decode_map(t)), (std::vector<std::int64_t>{0, 4, 8}));
  expect_matches_pack(t, 2);
}

TEST(Combiner, Vector) {
  MPI_Datatype t;
  MPI_OK(MPI_Type_vector(2, 2, 3, MPI_INT, &t));
  owned o(t);
  EXPECT_EQ(at::decode(t).ints, (std::vector<std::int64_t>{2, 2, 3}));
  EXPECT_EQ(disps(at::decode_map(t)), (std::vector<std::int64_t>{0, 4, 12, 16}));
  const auto l = at::describe(t, 2);
  EXPECT_EQ(l.map.b.extent, 20);
  EXPECT_EQ(offsets(l), (std::vector<std::int64_t>{0, 4, 12, 16, 20, 24, 32, 36}));
  expect_matches_pack(t, 2);
}

TEST(Combiner, VectorWithNegativeStride) {
  MPI_Datatype t;
  MPI_OK(MPI_Type_vector(3, 1, -2, MPI_SHORT, &t));
  owned o(t);
  const auto m = at::decode_map(t);
  EXPECT_EQ(disps(m), (std::vector<std::int64_t>{0, -4, -8}));
  EXPECT_EQ(m.b.lb, -8);
  const auto l = at::describe(t, 1);
  EXPECT_FALSE(l.monotonic);
  EXPECT_EQ(l.first_decrease, 1u);
  EXPECT_EQ(l.span.lo, -8);
  EXPECT_EQ(l.span.hi, 2);
  EXPECT_EQ(l.gap_bytes, 4);
  expect_matches_pack(t, 1);
}

TEST(Combiner, Hvector) {
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_hvector(2, 2, 20, MPI_INT, &t));
  owned o(t);
  const auto n = at::decode(t);
  EXPECT_EQ(n.kind, at::constructor::hvector);
  EXPECT_EQ(n.ints, (std::vector<std::int64_t>{2, 2, 20}));
  EXPECT_EQ(disps(at::decode_map(t)), (std::vector<std::int64_t>{0, 4, 20, 24}));
  expect_matches_pack(t, 3);
}

TEST(Combiner, IndexedNonMonotonic) {
  int bl[2] = {2, 1}, d[2] = {3, 0};
  MPI_Datatype t;
  MPI_OK(MPI_Type_indexed(2, bl, d, MPI_INT, &t));
  owned o(t);
  const auto n = at::decode(t);
  EXPECT_EQ(n.kind, at::constructor::indexed);
  EXPECT_EQ(n.lists, (std::vector<std::vector<std::int64_t>>{{2, 1}, {3, 0}}));
  EXPECT_EQ(disps(at::decode_map(t)), (std::vector<std::int64_t>{12, 16, 0}));
  const auto l = at::describe(t, 2);
  EXPECT_FALSE(l.monotonic);
  EXPECT_EQ(l.map.b.lb, 0);
  EXPECT_EQ(l.map.b.extent, 20);
  EXPECT_EQ(offsets(l), (std::vector<std::int64_t>{12, 16, 0, 32, 36, 20}));
  EXPECT_EQ(l.gap_bytes, 16);  // bytes 4-11 and 24-31
  expect_matches_pack(t, 2);
}

TEST(Combiner, HindexedNegativeDisplacement) {
  int bl[2] = {1, 2};
  MPI_Aint d[2] = {10, -8};
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_hindexed(2, bl, d, MPI_DOUBLE, &t));
  owned o(t);
  const auto m = at::decode_map(t);
  EXPECT_EQ(disps(m), (std::vector<std::int64_t>{10, -8, 0}));
  EXPECT_EQ(m.b.true_lb, -8);
  EXPECT_EQ(m.b.true_extent, 26);
  const auto l = at::describe(t, 1);
  EXPECT_EQ(l.span.lo, -8);
  EXPECT_EQ(l.span.hi, 18);
  EXPECT_EQ(l.gap_bytes, 2);
  expect_matches_pack(t, 1);
}

TEST(Combiner, IndexedBlock) {
  int d[2] = {4, 0};
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_indexed_block(2, 2, d, MPI_SHORT, &t));
  owned o(t);
  const auto n = at::decode(t);
  EXPECT_EQ(n.kind, at::constructor::indexed_block);
  EXPECT_EQ(disps(at::decode_map(t)), (std::vector<std::int64_t>{8, 10, 0, 2}));
  expect_matches_pack(t, 2);
}

TEST(Combiner, HindexedBlock) {
  MPI_Aint d[3] = {5, 1, 9};
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_hindexed_block(3, 1, d, MPI_CHAR, &t));
  owned o(t);
  const auto n = at::decode(t);
  EXPECT_EQ(n.kind, at::constructor::hindexed_block);
  EXPECT_EQ(disps(at::decode_map(t)), (std::vector<std::int64_t>{5, 1, 9}));
  expect_matches_pack(t, 2);
}

TEST(Combiner, StructMixedWithNegativeField) {
  int bl[3] = {1, 2, 1};
  MPI_Aint d[3] = {0, 8, -4};
  MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_struct(3, bl, d, ty, &t));
  owned o(t);
  const auto m = at::decode_map(t);
  EXPECT_EQ(names(m), (std::vector<std::string>{"MPI_INT", "MPI_DOUBLE", "MPI_DOUBLE", "MPI_CHAR"}));
  EXPECT_EQ(disps(m), (std::vector<std::int64_t>{0, 8, 16, -4}));
  EXPECT_EQ(at::to_string(at::signature_of(m)), "MPI_INT, 2 \u00d7 MPI_DOUBLE, MPI_CHAR");
  expect_matches_pack(t, 2);
}

TEST(Combiner, SubarrayC) {
  int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t));
  owned o(t);
  const auto n = at::decode(t);
  EXPECT_EQ(n.kind, at::constructor::subarray);
  EXPECT_EQ(n.order, at::array_order::c);
  // rows 1-2, columns 2-4 of a 4x5 row-major array
  EXPECT_EQ(disps(at::decode_map(t)), times({7, 8, 9, 12, 13, 14}, 4));
  EXPECT_EQ(n.b.lb, 0);
  EXPECT_EQ(n.b.extent, 80);
  expect_matches_pack(t, 2);
}

TEST(Combiner, SubarrayFortran) {
  int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
  owned o(t);
  EXPECT_EQ(at::decode(t).order, at::array_order::fortran);
  // element (i, j) at i + 4 j, i fastest
  EXPECT_EQ(disps(at::decode_map(t)), times({9, 10, 13, 14, 17, 18}, 4));
  expect_matches_pack(t, 1);
}

TEST(Combiner, DarrayBlockBlock) {
  int gs[2] = {4, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
      darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 2};
  MPI_Datatype t;
  // rank 1 of a row-major 2x2 grid is at (0, 1): rows 0-1, columns 3-5
  MPI_OK(MPI_Type_create_darray(4, 1, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
  owned o(t);
  const auto n = at::decode(t);
  EXPECT_EQ(n.kind, at::constructor::darray);
  EXPECT_EQ(n.lists[2], (std::vector<std::int64_t>{at::default_darg, at::default_darg}));
  EXPECT_EQ(disps(at::decode_map(t)), times({3, 4, 5, 9, 10, 11}, 4));
  EXPECT_EQ(n.b.lb, 0);
  EXPECT_EQ(n.b.extent, 96);
  expect_matches_pack(t, 1);
}

TEST(Combiner, DarrayCyclic) {
  int gs[1] = {10}, dist[1] = {MPI_DISTRIBUTE_CYCLIC}, darg[1] = {2}, ps[1] = {2};
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_darray(2, 1, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_DOUBLE, &t));
  owned o(t);
  EXPECT_EQ(disps(at::decode_map(t)), times({2, 3, 6, 7}, 8));
  EXPECT_EQ(at::decode(t).b.extent, 80);
  expect_matches_pack(t, 1);
}

TEST(Combiner, DarrayCyclicBlockFortran) {
  int gs[2] = {5, 7}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}, darg[2] = {1, MPI_DISTRIBUTE_DFLT_DARG},
      ps[2] = {2, 3};
  MPI_Datatype t;
  // rank 4 of a row-major 2x3 grid is at (1, 1): rows 1 and 3 (cyclic), columns 3-5 (blocks of 3)
  MPI_OK(MPI_Type_create_darray(6, 4, 2, gs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &t));
  owned o(t);
  EXPECT_EQ(disps(at::decode_map(t)), times({16, 18, 21, 23, 26, 28}, 4));
  expect_matches_pack(t, 1);
}

#if MPI_VERSION >= 4
// A type a _c constructor made answers only the _c envelope and contents, its counts as large
// counts (MPICH 4.0 natively, anympi over either MPI): it decodes to the same tree and map as
// the type the int constructor makes of the same arguments, and the MPI packs what it selects.
void expect_same_decoding(MPI_Datatype by_int, MPI_Datatype by_c, const char* what) {
  owned a(by_int), b(by_c);
  EXPECT_EQ(at::to_string(at::to_expr(at::decode(b))), at::to_string(at::to_expr(at::decode(a)))) << what;
  EXPECT_EQ(disps(at::decode_map(b)), disps(at::decode_map(a))) << what;
  EXPECT_EQ(names(at::decode_map(b)), names(at::decode_map(a))) << what;
  expect_matches_pack(b, 2);
}

TEST(Combiner, LargeCountConstructorsDecodeAsTheIntOnes) {
  MPI_Datatype a, b;
  MPI_OK(MPI_Type_contiguous(3, MPI_INT, &a));
  MPI_OK(MPI_Type_contiguous_c(3, MPI_INT, &b));
  expect_same_decoding(a, b, "contiguous");
  MPI_OK(MPI_Type_vector(3, 2, -4, MPI_SHORT, &a));
  MPI_OK(MPI_Type_vector_c(3, 2, -4, MPI_SHORT, &b));
  expect_same_decoding(a, b, "vector");
  MPI_OK(MPI_Type_create_hvector(2, 3, 20, MPI_INT, &a));
  MPI_OK(MPI_Type_create_hvector_c(2, 3, 20, MPI_INT, &b));
  expect_same_decoding(a, b, "hvector");
  int ibl[3] = {2, 1, 3}, idisp[3] = {4, 0, 9};
  MPI_Aint adisp[3] = {16, 0, 36};
  MPI_Count cbl[3] = {2, 1, 3}, cdisp[3] = {4, 0, 9}, cadisp[3] = {16, 0, 36};
  MPI_OK(MPI_Type_indexed(3, ibl, idisp, MPI_INT, &a));
  MPI_OK(MPI_Type_indexed_c(3, cbl, cdisp, MPI_INT, &b));
  expect_same_decoding(a, b, "indexed");
  MPI_OK(MPI_Type_create_hindexed(3, ibl, adisp, MPI_INT, &a));
  MPI_OK(MPI_Type_create_hindexed_c(3, cbl, cadisp, MPI_INT, &b));
  expect_same_decoding(a, b, "hindexed");
  MPI_OK(MPI_Type_create_indexed_block(3, 2, idisp, MPI_INT, &a));
  MPI_OK(MPI_Type_create_indexed_block_c(3, 2, cdisp, MPI_INT, &b));
  expect_same_decoding(a, b, "indexed_block");
  MPI_OK(MPI_Type_create_hindexed_block(3, 2, adisp, MPI_INT, &a));
  MPI_OK(MPI_Type_create_hindexed_block_c(3, 2, cadisp, MPI_INT, &b));
  expect_same_decoding(a, b, "hindexed_block");
  MPI_Datatype inner;  // a derived member made by a _c constructor too
  MPI_OK(MPI_Type_contiguous_c(2, MPI_SHORT, &inner));
  owned keep_inner(inner);
  MPI_Datatype members[3] = {MPI_INT, inner, MPI_DOUBLE};
  MPI_OK(MPI_Type_create_struct(3, ibl, adisp, members, &a));
  MPI_OK(MPI_Type_create_struct_c(3, cbl, cadisp, members, &b));
  expect_same_decoding(a, b, "struct");
  MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 12, &a));
  MPI_OK(MPI_Type_create_resized_c(MPI_INT, -4, 12, &b));
  expect_same_decoding(a, b, "resized");
  int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Count csizes[2] = {4, 5}, csub[2] = {2, 3}, cstarts[2] = {1, 2};
  MPI_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &a));
  MPI_OK(MPI_Type_create_subarray_c(2, csizes, csub, cstarts, MPI_ORDER_FORTRAN, MPI_INT, &b));
  expect_same_decoding(a, b, "subarray");
  int gs[2] = {4, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
      darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
  MPI_Count cgs[2] = {4, 6};
  MPI_OK(MPI_Type_create_darray(4, 1, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &a));
  MPI_OK(MPI_Type_create_darray_c(4, 1, 2, cgs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &b));
  expect_same_decoding(a, b, "darray");
}
#endif

TEST(Combiner, ResizedBoundsLikeLbUb) {
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
  owned o(t);
  const auto n = at::decode(t);
  EXPECT_EQ(n.kind, at::constructor::resized);
  EXPECT_EQ(n.ints, (std::vector<std::int64_t>{-4, 16}));
  const auto l = at::describe(t, 2);
  EXPECT_EQ(l.map.b.lb, -4);
  EXPECT_EQ(l.map.b.ub(), 12);
  EXPECT_EQ(l.map.b.true_lb, 0);
  EXPECT_EQ(l.map.b.true_extent, 4);
  EXPECT_EQ(offsets(l), (std::vector<std::int64_t>{0, 16}));
  EXPECT_EQ(l.span.size(), 20);
  EXPECT_EQ(l.count_extent, 32);
  expect_matches_pack(t, 2);
}

// MPI-1's MPI_UB before the end of the data and a second marker overriding the first, as
// MPI_Type_create_resized expresses them: the bounds, not the data, set the repetition.
TEST(Combiner, ResizedInsideTheDataAndTwice) {
  auto b = at::build("resized(struct(int@0, int@8), lb=4, extent=4)");
  const auto l = at::describe(b.type.get(), 3);
  EXPECT_EQ(l.map.b.lb, 4);
  EXPECT_EQ(l.map.b.ub(), 8);
  EXPECT_EQ(l.map.b.true_lb, 0);
  EXPECT_EQ(l.map.b.true_extent, 12);
  // instance k at 4 k: 0, 8 | 4, 12 | 8, 16 -- instances interleave and bytes 8-11 are chosen twice
  EXPECT_EQ(offsets(l), (std::vector<std::int64_t>{0, 8, 4, 12, 8, 16}));
  EXPECT_EQ(l.value_bytes, 24);
  EXPECT_EQ(l.span.lo, 0);
  EXPECT_EQ(l.span.size(), 20);
  EXPECT_EQ(l.gap_bytes, 0);
  EXPECT_EQ(l.overlap_bytes, 4);
  EXPECT_EQ(l.count_extent, 12);
  EXPECT_EQ(at::to_string(l.sig), "6 \u00d7 MPI_INT");
  expect_matches_pack(b.type.get(), 3);

  auto twice = at::build("resized(resized(int, lb=-4, extent=16), lb=0, extent=8)");
  const auto n = at::decode(twice.type.get());
  EXPECT_EQ(n.kind, at::constructor::resized);
  EXPECT_EQ(n.children.at(0).kind, at::constructor::resized);
  EXPECT_EQ(n.children.at(0).ints, (std::vector<std::int64_t>{-4, 16}));
  const auto l2 = at::describe(twice.type.get(), 2);
  EXPECT_EQ(l2.map.b.lb, 0);
  EXPECT_EQ(l2.map.b.extent, 8);
  EXPECT_EQ(offsets(l2), (std::vector<std::int64_t>{0, 8}));
  expect_matches_pack(twice.type.get(), 2);
}

TEST(Combiner, F90Real) {
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t));
  const auto n = at::decode(t);
  EXPECT_EQ(n.kind, at::constructor::f90_real);
  EXPECT_EQ(n.ints[0], 6);
  const auto m = at::expand(n);
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_EQ(m.type_of(m.entries[0]).size, 4);
  EXPECT_EQ(m.type_of(m.entries[0]).canonical, "f90_real(6, " + std::to_string(MPI_UNDEFINED) + ")");
  // A contiguous of it: the f90 child returned by get_contents is predefined and must survive.
  MPI_Datatype c;
  MPI_OK(MPI_Type_contiguous(3, t, &c));
  owned oc(c);
  EXPECT_EQ(at::describe(c, 1).elements, 3);
  EXPECT_EQ(at::describe(c, 1).elements, 3);
  expect_matches_pack(c, 1);
}

TEST(Combiner, F90IntegerAndComplex) {
  MPI_Datatype i, z;
  MPI_OK(MPI_Type_create_f90_integer(9, &i));
  MPI_OK(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &z));
  EXPECT_EQ(at::decode(i).kind, at::constructor::f90_integer);
  EXPECT_EQ(at::decode(z).kind, at::constructor::f90_complex);
  EXPECT_EQ(at::decode_map(i).b.size, 4);
  EXPECT_EQ(at::decode_map(z).b.size, 16);
  EXPECT_FALSE(at::check(at::signature_of(i, 1), at::signature_of(z, 1)).ok());
  // Matching goes by the (p, r) of the call, not by size: f90_real(6, 37) is not MPI_REAL4,
  // nor f90_real(5, 37), even where all three are 4-byte reals.
  EXPECT_EQ(verdict_of("f90_real(6, 37) * 2", "dup(f90_real(6, 37)) * 2").result, at::verdict::compatible);
  EXPECT_EQ(verdict_of("f90_real(6, 37)", "f90_real(5, 37)").result, at::verdict::mismatch);
  EXPECT_EQ(verdict_of("f90_real(6, 37)", "real4").result, at::verdict::mismatch);
}

TEST(Combiner, PairTypesAreTwoValues) {
  const auto m = at::decode_map(MPI_DOUBLE_INT);
  EXPECT_EQ(names(m), (std::vector<std::string>{"MPI_DOUBLE", "MPI_INT"}));
  EXPECT_EQ(disps(m), (std::vector<std::int64_t>{0, 8}));
  EXPECT_EQ(at::decode(MPI_DOUBLE_INT).name, "MPI_DOUBLE_INT");
  EXPECT_EQ(disps(at::decode_map(MPI_SHORT_INT)), (std::vector<std::int64_t>{0, 4}));
  EXPECT_EQ(names(at::decode_map(MPI_2INT)), (std::vector<std::string>{"MPI_INT", "MPI_INT"}));
  for (MPI_Datatype p : {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT}) {
    SCOPED_TRACE(at::decode(p).name);
    expect_matches_pack(p, 3);
  }
}

#if ANYMPI_TYPES_HAVE_VALUE_INDEX
// MPI-4.1's value-index pairs (over anympi's ABI, which emulates them on MPICH 4.0 and
// Open MPI 4.1): a named pair where one matches, else an unnamed predefined pair laid out
// as the C struct {value; index}.
struct float_long {
  float v;
  long i;
};

TEST(Combiner, ValueIndexOfANamedPairIsThatPair) {
  MPI_Datatype p = MPI_DATATYPE_NULL;
  MPI_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &p));
  EXPECT_EQ(p, MPI_DOUBLE_INT);
  const auto n = at::decode(p);
  EXPECT_EQ(n.kind, at::constructor::basic);
  EXPECT_EQ(n.name, "MPI_DOUBLE_INT");
  auto b = at::build("value_index(double, int)");
  EXPECT_EQ(b.type.get(), MPI_DOUBLE_INT);
}

TEST(Combiner, ValueIndex) {
  MPI_Datatype p = MPI_DATATYPE_NULL;
  MPI_OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_LONG, &p));
  ASSERT_NE(p, MPI_DATATYPE_NULL);
  const auto n = at::decode(p);
  EXPECT_EQ(n.kind, at::constructor::value_index);
  ASSERT_EQ(n.children.size(), 2u);
  EXPECT_EQ(n.children[0].name, "MPI_FLOAT");
  EXPECT_EQ(n.children[1].name, "MPI_LONG");
  EXPECT_EQ(at::to_string(at::to_expr(n)), "value_index(MPI_FLOAT, MPI_LONG)");
  const auto m = at::expand(n);
  EXPECT_EQ(names(m), (std::vector<std::string>{"MPI_FLOAT", "MPI_LONG"}));
  EXPECT_EQ(disps(m), (std::vector<std::int64_t>{0, static_cast<std::int64_t>(offsetof(float_long, i))}));
  EXPECT_EQ(m.b.lb, 0);
  EXPECT_EQ(m.b.extent, static_cast<std::int64_t>(sizeof(float_long)));
  EXPECT_EQ(m.b.size, static_cast<std::int64_t>(sizeof(float) + sizeof(long)));
  const auto l = at::describe(p, 3);
  EXPECT_EQ(at::to_string(l.sig), "3 \u00d7 (MPI_FLOAT, MPI_LONG)");
  EXPECT_EQ(l.value_bytes, 36);
  EXPECT_EQ(l.span.hi - l.span.lo, 2 * 16 + 16);  // 0..47: the last index ends the span
  expect_matches_pack(p, 3);
  // Nested: the pair returned by get_contents is predefined, so the decoder must not free it
  // (the MPICH run reports a leaked or a doubly freed handle otherwise).
  MPI_Datatype d, c;
  MPI_OK(MPI_Type_dup(p, &d));
  owned od(d);
  MPI_OK(MPI_Type_contiguous(2, d, &c));
  owned oc(c);
  const auto nc = at::decode(c);
  EXPECT_EQ(nc.children.at(0).kind, at::constructor::dup);
  EXPECT_EQ(nc.children.at(0).children.at(0).kind, at::constructor::value_index);
  EXPECT_EQ(disps(at::decode_map(c)), (std::vector<std::int64_t>{0, 8, 16, 24}));
  expect_matches_pack(c, 2);
  // The pair is still alive and the same handle: predefined, built once.
  MPI_Datatype again = MPI_DATATYPE_NULL;
  MPI_OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_LONG, &again));
  EXPECT_EQ(again, p);
  expect_matches_pack(p, 1);
}

#endif

TEST(Nested, VectorOfResizedStructInsideContiguous) {
  auto b = at::build("contiguous(2, vector(2, 1, 2, resized(struct(int@0, double@8), lb=0, extent=24)))");
  const auto m = at::decode_map(b.type.get());
  // one struct at 0, 8 repeated with stride 2 x 24 = 48; the vector's extent is 48 + 24 = 72
  EXPECT_EQ(disps(m), (std::vector<std::int64_t>{0, 8, 48, 56, 72, 80, 120, 128}));
  EXPECT_EQ(at::to_string(at::signature_of(m)), "4 \u00d7 (MPI_INT, MPI_DOUBLE)");
  EXPECT_EQ(at::decode(b.type.get()).children.at(0).children.at(0).kind, at::constructor::resized);
  expect_matches_pack(b.type.get(), 2);
}

TEST(Nested, DeepDupChainAndSubarrayOfStruct) {
  auto b = at::build("dup(dup(subarray([3], [2], [1], struct(char@0, short@2), order=fortran)))");
  const auto m = at::decode_map(b.type.get());
  EXPECT_EQ(names(m), (std::vector<std::string>{"MPI_CHAR", "MPI_SHORT", "MPI_CHAR", "MPI_SHORT"}));
  EXPECT_EQ(disps(m), (std::vector<std::int64_t>{4, 6, 8, 10}));
  expect_matches_pack(b.type.get(), 2);
}

TEST(Limits, HugeTypeMapIsRefusedNotExpanded) {
  auto b = at::build("contiguous(100000, contiguous(100000, char))");
  try {
    (void)at::decode_map(b.type.get());
    FAIL() << "expanded 10^10 entries";
  } catch (const at::type_map_too_large& e) {
    EXPECT_EQ(e.entries(), 10000000000LL);
  }
}

TEST(Errors, NullDatatypeIsAnError) {
  EXPECT_THROW((void)at::decode(MPI_DATATYPE_NULL), at::mpi_error);
}

// ---------------------------------------------------------------------------------------
// Round trip: a struct built from the decoded map has the same signature and bounds.

TEST(RoundTrip, StructFromDecodedMap) {
  std::vector<const char*> texts = {
      "resized(struct(double@0, double@16), lb=0, extent=32)", "vector(3, 2, -4, int)",
      "indexed([2, 1, 3], [5, 0, 9], short)", "subarray([4, 5], [2, 3], [1, 2], double)",
      "darray(6, 4, [5, 7], [cyclic, block], [1, dflt], [2, 3], int, order=fortran)",
      "struct(double_int@0, char * 3@16, 2int@-8)", "hindexed_block(2, [40, -12], float)",
      "resized(struct(int@0, int@8), lb=4, extent=4)"};
#if ANYMPI_TYPES_HAVE_VALUE_INDEX
  texts.push_back("contiguous(2, value_index(double, short))");
#endif
  for (const char* text : texts) {
    SCOPED_TRACE(text);
    auto b = at::build(text);
    const auto m = at::decode_map(b.type.get());
    std::vector<int> bl(m.entries.size(), 1);
    std::vector<MPI_Aint> d;
    std::vector<MPI_Datatype> ty;
    for (const auto& e : m.entries) {
      d.push_back(e.disp);
      auto h = at::predefined_by_name(m.type_of(e).name);
      ASSERT_TRUE(h.has_value()) << m.type_of(e).name;
      ty.push_back(*h);
    }
    MPI_Datatype s, r;
    MPI_OK(MPI_Type_create_struct(static_cast<int>(bl.size()), bl.data(), d.data(), ty.data(), &s));
    MPI_OK(MPI_Type_create_resized(s, m.b.lb, m.b.extent, &r));
    MPI_Type_free(&s);
    owned o(r);
    const auto back = at::decode_map(r);
    EXPECT_EQ(at::signature_of(back, 3), at::signature_of(m, 3));
    EXPECT_EQ(back.b.lb, m.b.lb);
    EXPECT_EQ(back.b.extent, m.b.extent);
    EXPECT_EQ(back.b.true_lb, m.b.true_lb);
    EXPECT_EQ(back.b.true_extent, m.b.true_extent);
    EXPECT_EQ(disps(back), disps(m));
    EXPECT_TRUE(at::check(3, b.type.get(), 3, r).result == at::verdict::compatible);
  }
}

// ---------------------------------------------------------------------------------------
// Compatibility verdicts.


TEST(Compatibility, SpareCapacity) {
  const auto c = verdict_of("double * 6", "double * 8");
  EXPECT_EQ(c.result, at::verdict::compatible_spare_capacity);
  EXPECT_EQ(c.send_elements, 6);
  EXPECT_EQ(c.recv_elements, 8);
  EXPECT_TRUE(c.ok());
}

TEST(Compatibility, TruncationWithSizes) {
  const auto c = verdict_of("resized(struct(double@0, double@16), lb=0, extent=32) * 3", "double * 4");
  EXPECT_EQ(c.result, at::verdict::truncation);
  EXPECT_EQ(c.send_bytes, 48);
  EXPECT_EQ(c.recv_bytes, 32);
  EXPECT_NE(c.explanation.find("48 bytes"), std::string::npos) << c.explanation;
  EXPECT_NE(c.explanation.find("32 bytes"), std::string::npos) << c.explanation;
  EXPECT_FALSE(c.ok());
}

TEST(Compatibility, MismatchNamesElementAndBothTypes) {
  const auto c = verdict_of("struct(double * 3@0, int@24) * 2", "double * 8");
  EXPECT_EQ(c.result, at::verdict::mismatch);
  EXPECT_EQ(c.mismatch_element, 3);
  EXPECT_EQ(c.send_type, "MPI_INT");
  EXPECT_EQ(c.recv_type, "MPI_DOUBLE");
  EXPECT_NE(c.explanation.find("element 3"), std::string::npos);
}

TEST(Compatibility, MismatchBeatsTruncation) {
  const auto c = verdict_of("int * 10", "struct(int@0, float@4)");
  EXPECT_EQ(c.result, at::verdict::mismatch);
  EXPECT_EQ(c.mismatch_element, 1);
}

TEST(Compatibility, DifferentLayoutsSameSignature) {
  EXPECT_EQ(verdict_of("vector(3, 1, 4, float) * 2", "contiguous(6, float)").result, at::verdict::compatible);
  EXPECT_EQ(verdict_of("indexed([1, 1], [5, 0], int) * 3", "int * 6").result, at::verdict::compatible);
}

TEST(Compatibility, PairTypesMatchTheirComponents) {
  EXPECT_EQ(verdict_of("double_int * 2", "struct(double@0, int@8) * 2").result, at::verdict::compatible);
  EXPECT_EQ(verdict_of("MPI_2INT * 3", "int * 6").result, at::verdict::compatible);
  const auto c = verdict_of("double_int", "double * 2");
  EXPECT_EQ(c.result, at::verdict::mismatch);
  EXPECT_EQ(c.mismatch_element, 1);
  EXPECT_EQ(c.send_type, "MPI_INT");
}

TEST(Compatibility, ByteMatchesOnlyByte) {
  EXPECT_EQ(verdict_of("byte * 8", "contiguous(4, byte) * 2").result, at::verdict::compatible);
  const auto c = verdict_of("double", "byte * 8");
  EXPECT_EQ(c.result, at::verdict::mismatch);
  EXPECT_NE(c.explanation.find("MPI_BYTE matches only MPI_BYTE"), std::string::npos);
  EXPECT_EQ(verdict_of("char * 4", "signed_char * 4").result, at::verdict::mismatch);
}

TEST(Compatibility, PackedIsDecidedByBytes) {
  const auto a = verdict_of("struct(double@0, int@8) * 2", "packed * 64");
  EXPECT_TRUE(a.untyped);
  EXPECT_EQ(a.result, at::verdict::compatible_spare_capacity);  // 24 of 64 bytes
  EXPECT_EQ(verdict_of("packed * 24", "struct(double@0, int@8) * 2").result, at::verdict::compatible);
  EXPECT_EQ(verdict_of("packed * 25", "struct(double@0, int@8) * 2").result, at::verdict::truncation);
  EXPECT_EQ(verdict_of("double * 4", "packed * 16").result, at::verdict::truncation);
}

TEST(Compatibility, SynonymsMatch) {
  EXPECT_EQ(verdict_of("long_long_int * 2", "long_long * 2").result, at::verdict::compatible);
  EXPECT_EQ(verdict_of("int32_t", "int").result, at::verdict::mismatch);  // distinct types by the standard
}

TEST(Compatibility, EmptyMessages) {
  EXPECT_EQ(verdict_of("double * 0", "int * 0").result, at::verdict::compatible);
  EXPECT_EQ(verdict_of("double * 0", "int * 2").result, at::verdict::compatible_spare_capacity);
}

// ---------------------------------------------------------------------------------------
// The expression language: syntax errors point at the column (no MPI involved).

namespace {
std::size_t error_offset(const char* text) {
  try {
    (void)at::parse_message(text);
  } catch (const at::expression_error& e) {
    return e.offset();
  }
  ADD_FAILURE() << "no error for: " << text;
  return SIZE_MAX;
}
std::size_t build_error_offset(const char* text, std::string* message = nullptr) {
  try {
    (void)at::build(text);
  } catch (const at::expression_error& e) {
    if (message) *message = e.what();
    return e.offset();
  }
  ADD_FAILURE() << "no error for: " << text;
  return SIZE_MAX;
}
}  // namespace

TEST(Parser, ErrorsPointAtTheColumn) {
  EXPECT_EQ(error_offset("vector(2, 1, , double)"), 13u);
  EXPECT_EQ(error_offset("struct(double@0, double)"), 23u);
  EXPECT_EQ(error_offset("resized(double, lb=0)"), 20u);
  EXPECT_EQ(error_offset("double * 2 * 3"), 11u);
  EXPECT_EQ(error_offset("vector(2,1,2,double"), 19u);
  EXPECT_EQ(error_offset("contiguous(99999999999999999999, int)"), 11u);
  EXPECT_EQ(error_offset("frobnicate(1, int)"), 0u);
  EXPECT_EQ(error_offset("subarray([4], [2], [1], int, order=pascal)"), 35u);
  EXPECT_EQ(error_offset("darray(2, 0, [4], [blok], [dflt], [2], int)"), 19u);
  EXPECT_EQ(error_offset("indexed([1, 2], [0 4], int)"), 19u);
  EXPECT_EQ(error_offset("double @ 8"), 7u);
  EXPECT_EQ(error_offset(""), 0u);
  EXPECT_EQ(error_offset("vector"), 6u);
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "dup(";
  EXPECT_LT(error_offset(deep.c_str()), deep.size());
}

TEST(Parser, CaretSitsUnderTheColumn) {
  const std::string text = "vector(2, 1, , double)";
  try {
    (void)at::parse_message(text);
    FAIL();
  } catch (const at::expression_error& e) {
    const std::string shown = at::format_error(text, e);
    const auto second = shown.find('\n') + 1;
    const auto caret = shown.find('^', second);
    EXPECT_EQ(caret - second, 2 + 13u) << shown;
    EXPECT_NE(shown.find("column 14"), std::string::npos) << shown;
  }
}

TEST(Parser, CanonicalFormReparsesToItself) {
  for (const char* text :
       {"resized(struct(double@0, double@16), lb=0, extent=32) * 3", "double * 6", "dup(int*2*3)",
        "struct((double*2)@0, int*4@-16)", "subarray([4,5],[2,3],[1,2],int,order=fortran)",
        "darray(4,1,[4,6],[block,cyclic],[dflt,2],[2,2],MPI_INT)", "indexed([], [], int)",
        "hindexed_block(1, [-5, 5], 2int)", "f90_real(6, -32766)", "f90_integer(9)", "resized(int, -4, 16)",
        "value_index(double, long) * 2", "struct(value_index(float, short)@8)"}) {
    SCOPED_TRACE(text);
    const auto a = at::parse_message(text);
    const std::string canon = at::to_string(a);
    EXPECT_EQ(at::to_string(at::parse_message(canon)), canon);
  }
  // Inside arguments T * n is contiguous(n, T); at the top it is the count, given once.
  EXPECT_EQ(at::to_string(at::parse_message("dup(int*2*3) * 4")), "dup(contiguous(3, contiguous(2, int))) * 4");
  EXPECT_EQ(error_offset("int*2*3"), 5u);
  EXPECT_EQ(at::parse_message("resized(double, lb=0, extent=32)*3").count, 3);
  // Each '*' inside is one more level of contiguous(): a chain whose canonical spelling would
  // nest deeper than the parser takes is refused where it gets too deep (found by the fuzzer),
  // and the longest one accepted reparses.
  std::string chain = "(int";
  for (int i = 0; i < 100; ++i) chain += "*2";
  chain += ")";
  const std::size_t at_star = error_offset(chain.c_str());
  EXPECT_LT(at_star, chain.size());
  EXPECT_EQ(chain[at_star], '*');
  const std::string longest = chain.substr(0, at_star) + ")";
  const std::string canon = at::to_string(at::parse_message(longest));
  EXPECT_EQ(at::to_string(at::parse_message(canon)), canon);
}

TEST(Builder, ErrorsPointAtTheColumn) {
  std::string msg;
  EXPECT_EQ(build_error_offset("struct(double@0, doubel@8)", &msg), 17u);
  EXPECT_NE(msg.find("doubel"), std::string::npos);
  EXPECT_EQ(build_error_offset("contiguous(2, vector(-1, 1, 1, int))", &msg), 14u);
  EXPECT_NE(msg.find("negative"), std::string::npos);
  EXPECT_EQ(build_error_offset("subarray([4], [5], [0], int)", &msg), 14u);
  EXPECT_EQ(build_error_offset("indexed([1, 2], [0], int)", &msg), 16u);
  EXPECT_EQ(build_error_offset("darray(4, 0, [8], [block], [dflt], [2], int)", &msg), 35u);
  EXPECT_NE(msg.find("size is 4"), std::string::npos) << msg;
  EXPECT_EQ(build_error_offset("double * -2", &msg), 9u);
  EXPECT_EQ(build_error_offset("contiguous(3000000000, int)", &msg), 0u);
#if !ANYMPI_TYPES_HAVE_VALUE_INDEX
  // An MPI older than 4.1 has no MPI_Type_get_value_index: said so, at the column.
  EXPECT_EQ(build_error_offset("dup(value_index(float, long))", &msg), 4u);
  EXPECT_NE(msg.find("MPI-4.1"), std::string::npos) << msg;
#endif
}

#if ANYMPI_TYPES_HAVE_VALUE_INDEX
TEST(Combiner, ValueIndexInExpressions) {
  auto b = at::build("value_index(float, long) * 2");
  EXPECT_EQ(b.count, 2);
  EXPECT_EQ(at::decode(b.type.get()).kind, at::constructor::value_index);
  // Signatures, not layouts: the pair matches a struct of the same two values, not floats.
  EXPECT_EQ(verdict_of("value_index(float, long) * 2", "struct(float@0, long@8) * 2").result, at::verdict::compatible);
  const auto c = verdict_of("value_index(float, long)", "float * 2");
  EXPECT_EQ(c.result, at::verdict::mismatch);
  std::string msg;
  EXPECT_EQ(build_error_offset("contiguous(2, value_index(float, float))", &msg), 14u);
  EXPECT_NE(msg.find("no pair type for (float, float)"), std::string::npos) << msg;
}
#endif

// ---------------------------------------------------------------------------------------

// Proves the leak oracle of the MPICH run still works: MPICH (yaksa) reports datatype objects
// alive at MPI_Finalize, and this leaks exactly the reference get_contents hands out.
static int leak_on_purpose() {
  MPI_Datatype c, v;
  MPI_Type_contiguous(2, MPI_INT, &c);
  MPI_Type_vector(2, 1, 3, c, &v);
  int ni, na, nd, combiner;
  MPI_Type_get_envelope(v, &ni, &na, &nd, &combiner);
  std::vector<int> iv(static_cast<std::size_t>(ni));
  MPI_Datatype child;
  MPI_Type_get_contents(v, ni, na, nd, iv.data(), nullptr, &child);  // never freed
  MPI_Type_free(&c);
  MPI_Type_free(&v);
  MPI_Finalize();
  return 0;
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  MPI_Init(&argc, &argv);
  if (argc > 1 && std::string(argv[1]) == "--leak-on-purpose") return leak_on_purpose();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
