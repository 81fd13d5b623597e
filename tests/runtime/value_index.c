/* MPI_Type_get_value_index (MPI-4.1) over the ABI: the named pairs, an unnamed pair built
 * as the C struct {value; index}, its envelope and contents (int and large-count forms),
 * MAXLOC/MINLOC reductions over it, dup, point-to-point, and the refusal to free it.
 *
 * Over the ABI only: neither MPICH 4.0 nor Open MPI 4.1 has the function, so there is no
 * native build to validate this program against; the expectations are the standard's
 * (section 6.9.4) and the C compiler's own struct layout (offsetof, sizeof).
 */
#include "check.h"

#include <stddef.h>

static int rank, size;

struct float_long { float v; long i; };
struct ldouble_short { long double v; short i; };
struct double_llong { double v; long long i; };

static void test_named_pairs(void)
{
    const struct { MPI_Datatype v, i, pair; } named[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT}, {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},   {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT}, {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
    };
    for (size_t k = 0; k < sizeof named / sizeof named[0]; ++k) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        MPI_OK(MPI_Type_get_value_index(named[k].v, named[k].i, &t));
        CHECK_MSG(t == named[k].pair, "pair %zu is not the named predefined pair", k);
    }
    /* No such pair (the index must be an integer): MPI_DATATYPE_NULL, not an error. */
    MPI_Datatype t = MPI_INT;
    MPI_OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_FLOAT, &t));
    CHECK_HANDLE(t, MPI_DATATYPE_NULL);
    t = MPI_INT;
    MPI_OK(MPI_Type_get_value_index(MPI_DOUBLE_INT, MPI_INT, &t));
    CHECK_HANDLE(t, MPI_DATATYPE_NULL);
    /* Bad arguments are errors with the right class. */
    int cls = -1;
    int rc = MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_TYPE);
    rc = MPI_Type_get_value_index(MPI_FLOAT, MPI_LONG, NULL);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_ARG);
}

/* Layout, envelope and contents of an unnamed pair against the C compiler's struct. */
#define CHECK_PAIR_LAYOUT(stype, vt, it)                                                   \
    do {                                                                                   \
        MPI_Datatype p = MPI_DATATYPE_NULL, again = MPI_DATATYPE_NULL;                     \
        MPI_OK(MPI_Type_get_value_index(vt, it, &p));                                      \
        CHECK_FATAL(p != MPI_DATATYPE_NULL);                                               \
        MPI_OK(MPI_Type_get_value_index(vt, it, &again));                                  \
        CHECK_HANDLE(again, p); /* predefined: the same handle every time */               \
        int sz = 0;                                                                        \
        MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1;                                   \
        MPI_OK(MPI_Type_size(p, &sz));                                                     \
        MPI_OK(MPI_Type_get_extent(p, &lb, &ext));                                         \
        MPI_OK(MPI_Type_get_true_extent(p, &tlb, &text));                                  \
        stype s;                                                                           \
        CHECK_EQ(sz, sizeof s.v + sizeof s.i);                                             \
        CHECK_EQ(lb, 0);                                                                   \
        CHECK_EQ(ext, sizeof(stype));                                                      \
        CHECK_EQ(tlb, 0);                                                                  \
        CHECK_EQ(text, offsetof(stype, i) + sizeof s.i);                                   \
        int ni = -1, na = -1, nd = -1, comb = -1;                                          \
        MPI_OK(MPI_Type_get_envelope(p, &ni, &na, &nd, &comb));                            \
        CHECK_EQ(comb, MPI_COMBINER_VALUE_INDEX);                                          \
        CHECK_EQ(ni, 0);                                                                   \
        CHECK_EQ(na, 0);                                                                   \
        CHECK_EQ(nd, 2);                                                                   \
        MPI_Datatype parts[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};                    \
        MPI_OK(MPI_Type_get_contents(p, 0, 0, 2, NULL, NULL, parts));                      \
        CHECK_HANDLE(parts[0], vt);                                                        \
        CHECK_HANDLE(parts[1], it);                                                        \
        MPI_Count cni = -1, cna = -1, cnc = -1, cnd = -1;                                  \
        comb = -1;                                                                         \
        MPI_OK(MPI_Type_get_envelope_c(p, &cni, &cna, &cnc, &cnd, &comb));                 \
        CHECK_EQ(comb, MPI_COMBINER_VALUE_INDEX);                                          \
        CHECK_EQ(cni + cna + cnc, 0);                                                      \
        CHECK_EQ(cnd, 2);                                                                  \
        parts[0] = parts[1] = MPI_DATATYPE_NULL;                                           \
        MPI_OK(MPI_Type_get_contents_c(p, 0, 0, 0, 2, NULL, NULL, NULL, parts));           \
        CHECK_HANDLE(parts[0], vt);                                                        \
        CHECK_HANDLE(parts[1], it);                                                        \
    } while (0)

static void test_layout(void)
{
    CHECK_PAIR_LAYOUT(struct float_long, MPI_FLOAT, MPI_LONG);
    CHECK_PAIR_LAYOUT(struct ldouble_short, MPI_LONG_DOUBLE, MPI_SHORT);
    CHECK_PAIR_LAYOUT(struct double_llong, MPI_DOUBLE, MPI_LONG_LONG);

    /* get_contents with too little room is an argument error, not an overrun. */
    MPI_Datatype p, one[1] = {MPI_DATATYPE_NULL};
    MPI_OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_LONG, &p));
    int cls = -1, rc = MPI_Type_get_contents(p, 0, 0, 1, NULL, NULL, one);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_ARG);
    CHECK_HANDLE(one[0], MPI_DATATYPE_NULL);

    /* An unnamed pair has no name, whichever MPI is underneath (Open MPI called it "Dup "). */
    char name[MPI_MAX_OBJECT_NAME] = "x";
    int len = -1;
    MPI_OK(MPI_Type_get_name(p, name, &len));
    CHECK_MSG(len == 0 && name[0] == 0, "the pair's name is \"%s\" (%d)", name, len);
}

/* A dup is an ordinary derived type whose contents are the (predefined) pair. */
static void test_dup_and_free(void)
{
    MPI_Datatype p, d, inner = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_LONG, &p));
    MPI_OK(MPI_Type_dup(p, &d));
    int ni, na, nd, comb = -1;
    MPI_OK(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
    CHECK_EQ(comb, MPI_COMBINER_DUP);
    CHECK_EQ(nd, 1);
    MPI_OK(MPI_Type_get_contents(d, 0, 0, 1, NULL, NULL, &inner));
    CHECK_HANDLE(inner, p);
    MPI_OK(MPI_Type_free(&d));
    CHECK_HANDLE(d, MPI_DATATYPE_NULL);

    /* Freeing the predefined pair is refused (like freeing MPI_FLOAT_INT) and it stays usable. */
    MPI_Datatype q = p;
    int cls = -1, rc = MPI_Type_free(&q);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_TYPE);
    CHECK_HANDLE(q, p);
    int sz = 0;
    MPI_OK(MPI_Type_size(p, &sz));
    CHECK_EQ(sz, sizeof(float) + sizeof(long));
}

/* MAXLOC/MINLOC as the standard defines them, over the unnamed pair. Values tie between
 * ranks of the same parity, so the smallest-index rule is exercised. */
static float fl_value(int r, int k) { return (float)(((r + k) % 2) * 10 + k) + 0.5f; }

static void test_loc(void)
{
    enum { N = 3 };
    MPI_Datatype p;
    MPI_OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_LONG, &p));
    struct float_long in[N], out[N], expect_max[N], expect_min[N];
    for (int k = 0; k < N; ++k) {
        in[k].v = fl_value(rank, k);
        in[k].i = 1000L * rank + k;
        expect_max[k].v = -1e30f; expect_max[k].i = -1;
        expect_min[k].v = 1e30f; expect_min[k].i = -1;
        for (int r = 0; r < size; ++r) {
            float v = fl_value(r, k);
            long i = 1000L * r + k;
            if (v > expect_max[k].v) { expect_max[k].v = v; expect_max[k].i = i; }
            if (v < expect_min[k].v) { expect_min[k].v = v; expect_min[k].i = i; }
        }
    }
    memset(out, 0, sizeof out);
    MPI_OK(MPI_Allreduce(in, out, N, p, MPI_MAXLOC, MPI_COMM_WORLD));
    for (int k = 0; k < N; ++k)
        CHECK_MSG(out[k].v == expect_max[k].v && out[k].i == expect_max[k].i,
                  "MAXLOC[%d] = (%g,%ld), expected (%g,%ld)", k, out[k].v, out[k].i, expect_max[k].v, expect_max[k].i);
    memset(out, 0, sizeof out);
    MPI_OK(MPI_Allreduce(in, out, N, p, MPI_MINLOC, MPI_COMM_WORLD));
    for (int k = 0; k < N; ++k)
        CHECK_MSG(out[k].v == expect_min[k].v && out[k].i == expect_min[k].i,
                  "MINLOC[%d] = (%g,%ld), expected (%g,%ld)", k, out[k].v, out[k].i, expect_min[k].v, expect_min[k].i);

    /* To a root, and nonblocking. */
    memset(out, 0, sizeof out);
    MPI_OK(MPI_Reduce(in, out, N, p, MPI_MAXLOC, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int k = 0; k < N; ++k) CHECK(out[k].v == expect_max[k].v && out[k].i == expect_max[k].i);
    MPI_Request req;
    memset(out, 0, sizeof out);
    MPI_OK(MPI_Iallreduce(in, out, N, p, MPI_MINLOC, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int k = 0; k < N; ++k) CHECK(out[k].v == expect_min[k].v && out[k].i == expect_min[k].i);

    /* Reduce_local: a tie keeps the smaller index; a larger value wins. */
    struct float_long a[2] = {{2.5f, 7}, {9.0f, 1}}, b[2] = {{2.5f, 3}, {1.0f, 0}};
    MPI_OK(MPI_Reduce_local(a, b, 2, p, MPI_MAXLOC));
    CHECK(b[0].v == 2.5f && b[0].i == 3);
    CHECK(b[1].v == 9.0f && b[1].i == 1);

    /* A wider pair: long double value, short index (value at 0, index at 16, extent 32 on x86-64). */
    MPI_Datatype q;
    MPI_OK(MPI_Type_get_value_index(MPI_LONG_DOUBLE, MPI_SHORT, &q));
    struct ldouble_short li, lo;
    memset(&li, 0, sizeof li);
    memset(&lo, 0, sizeof lo);
    li.v = (long double)(rank % 2);
    li.i = (short)rank;
    MPI_OK(MPI_Allreduce(&li, &lo, 1, q, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(lo.v == (long double)(size > 1 ? 1 : 0));
    CHECK_EQ(lo.i, size > 1 ? 1 : 0);
}

/* Point-to-point: the pair moves value and index, not the padding between them. */
static void test_p2p(void)
{
    MPI_Datatype p;
    MPI_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_LONG_LONG, &p));
    struct double_llong s = {rank + 0.25, 100LL + rank}, r = {0, 0};
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_OK(MPI_Sendrecv(&s, 1, p, to, 5, &r, 1, p, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(r.v == from + 0.25);
    CHECK_EQ(r.i, 100LL + from);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "value_index");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Datatype errors belong to no communicator: MPI-4 raises them on MPI_COMM_SELF. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_named_pairs();
    test_layout();
    test_dup_and_free();
    test_loc();
    test_p2p();
    return check_finish();
}
