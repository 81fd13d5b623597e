/* Reductions with every predefined operation on suitable types, each checked
 * against a value computed here: MAX MIN SUM PROD on integer and floating types,
 * LAND LOR LXOR on integers and C bool, BAND BOR BXOR on integers and bytes,
 * MAXLOC MINLOC on every pair type, Reduce_local, and user operations
 * (commutative and not) in reduce, allreduce, scan and reduce_local. */
#include "check.h"
#include <stdbool.h>
#include <stdint.h>

static int rank, size;

/* Per-rank integer contribution at position i: small, so products never overflow. */
static long long ival(int r, int i) { return ((r * 7 + i * 3) % 5) + 1 + (i == 0 ? r : 0); }

enum { K = 4 };

static long long fold(MPI_Op op, int i, int upto)
{
    long long acc = ival(0, i);
    for (int r = 1; r < upto; ++r) {
        long long x = ival(r, i);
        if (op == MPI_MAX) acc = x > acc ? x : acc;
        else if (op == MPI_MIN) acc = x < acc ? x : acc;
        else if (op == MPI_SUM) acc += x;
        else if (op == MPI_PROD) acc *= x;
        else if (op == MPI_LAND) acc = (acc != 0) && (x != 0);
        else if (op == MPI_LOR) acc = (acc != 0) || (x != 0);
        else if (op == MPI_LXOR) acc = (acc != 0) != (x != 0);
        else if (op == MPI_BAND) acc &= x;
        else if (op == MPI_BOR) acc |= x;
        else if (op == MPI_BXOR) acc ^= x;
    }
    return acc; /* a single contribution is the result unchanged */
}

/* One integer type: fill, allreduce, compare; the macro keeps the C type exact. */
#define TRY_INT_TYPE(ctype, mpitype, op, opname)                                   \
    do {                                                                           \
        ctype in[K], out[K];                                                       \
        for (int i = 0; i < K; ++i) {                                              \
            in[i] = (ctype)ival(rank, i);                                          \
            out[i] = (ctype)0;                                                     \
        }                                                                          \
        /* Logical ops on zeros too: position 3 is zero on odd ranks. */           \
        int logical_ = op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;          \
        if (logical_ && rank % 2 == 1) in[3] = 0;                                  \
        MPI_OK(MPI_Allreduce(in, out, K, mpitype, op, MPI_COMM_WORLD));            \
        for (int i = 0; i < K; ++i) {                                              \
            long long e;                                                           \
            if (logical_ && i == 3 && size > 1) {                                  \
                int nonzero = 0;                                                   \
                for (int r = 0; r < size; ++r) nonzero += r % 2 == 0;              \
                e = op == MPI_LAND ? nonzero == size                               \
                  : op == MPI_LOR  ? nonzero > 0                                   \
                                   : nonzero % 2 == 1;                             \
            } else {                                                               \
                e = fold(op, i, size);                                             \
            }                                                                      \
            CHECK_MSG((long long)out[i] == (ctype)e, "%s %s [%d]: %lld, expected %lld", \
                      #mpitype, opname, i, (long long)out[i], (long long)(ctype)e); \
        }                                                                          \
    } while (0)

#define TRY_FLOAT_TYPE(ctype, mpitype, op, opname)                                 \
    do {                                                                           \
        ctype in[K], out[K];                                                       \
        for (int i = 0; i < K; ++i) {                                              \
            in[i] = (ctype)ival(rank, i) * (ctype)0.5;                             \
            out[i] = 0;                                                            \
        }                                                                          \
        MPI_OK(MPI_Allreduce(in, out, K, mpitype, op, MPI_COMM_WORLD));            \
        for (int i = 0; i < K; ++i) {                                              \
            double e = 0;                                                          \
            if (op == MPI_PROD) {                                                  \
                e = 1;                                                             \
                for (int r = 0; r < size; ++r) e *= ival(r, i) * 0.5;              \
            } else if (op == MPI_SUM) {                                            \
                for (int r = 0; r < size; ++r) e += ival(r, i) * 0.5;              \
            } else {                                                               \
                e = (double)fold(op, i, size) * 0.5;                               \
            }                                                                      \
            CHECK_MSG(fabs((double)out[i] - e) <= 1e-6 * fabs(e),                  \
                      "%s %s [%d]: %g, expected %g", #mpitype, opname, i,          \
                      (double)out[i], e);                                          \
        }                                                                          \
    } while (0)

static void test_predefined_ops(void)
{
    MPI_Op arith[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD};
    const char *arith_names[] = {"MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD"};
    for (int k = 0; k < 4; ++k) {
        MPI_Op op = arith[k];
        const char *n = arith_names[k];
        TRY_INT_TYPE(int, MPI_INT, op, n);
        TRY_INT_TYPE(unsigned, MPI_UNSIGNED, op, n);
        TRY_INT_TYPE(short, MPI_SHORT, op, n);
        TRY_INT_TYPE(long, MPI_LONG, op, n);
        TRY_INT_TYPE(long long, MPI_LONG_LONG, op, n);
        TRY_INT_TYPE(unsigned long, MPI_UNSIGNED_LONG, op, n);
        TRY_INT_TYPE(signed char, MPI_SIGNED_CHAR, op, n);
        TRY_INT_TYPE(int8_t, MPI_INT8_T, op, n);
        TRY_INT_TYPE(int16_t, MPI_INT16_T, op, n);
        TRY_INT_TYPE(int32_t, MPI_INT32_T, op, n);
        TRY_INT_TYPE(int64_t, MPI_INT64_T, op, n);
        TRY_INT_TYPE(uint8_t, MPI_UINT8_T, op, n);
        TRY_INT_TYPE(uint64_t, MPI_UINT64_T, op, n);
        TRY_FLOAT_TYPE(float, MPI_FLOAT, op, n);
        TRY_FLOAT_TYPE(double, MPI_DOUBLE, op, n);
        TRY_FLOAT_TYPE(long double, MPI_LONG_DOUBLE, op, n);
    }
    MPI_Op logical[] = {MPI_LAND, MPI_LOR, MPI_LXOR};
    const char *logical_names[] = {"MPI_LAND", "MPI_LOR", "MPI_LXOR"};
    for (int k = 0; k < 3; ++k) {
        MPI_Op op = logical[k];
        TRY_INT_TYPE(int, MPI_INT, op, logical_names[k]);
        TRY_INT_TYPE(long, MPI_LONG, op, logical_names[k]);
        TRY_INT_TYPE(unsigned short, MPI_UNSIGNED_SHORT, op, logical_names[k]);
    }
    /* C bool with the logical operations. */
    for (int k = 0; k < 3; ++k) {
        bool in = rank % 2 == 0, out = false;
        MPI_OK(MPI_Allreduce(&in, &out, 1, MPI_C_BOOL, logical[k], MPI_COMM_WORLD));
        int evens = (size + 1) / 2;
        bool e = k == 0 ? evens == size : k == 1 ? evens > 0 : evens % 2 == 1;
        CHECK_MSG(out == e, "MPI_C_BOOL %s: %d, expected %d", logical_names[k], out, e);
    }
    MPI_Op bitwise[] = {MPI_BAND, MPI_BOR, MPI_BXOR};
    const char *bitwise_names[] = {"MPI_BAND", "MPI_BOR", "MPI_BXOR"};
    for (int k = 0; k < 3; ++k) {
        MPI_Op op = bitwise[k];
        TRY_INT_TYPE(int, MPI_INT, op, bitwise_names[k]);
        TRY_INT_TYPE(unsigned, MPI_UNSIGNED, op, bitwise_names[k]);
        TRY_INT_TYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG, op, bitwise_names[k]);
        TRY_INT_TYPE(unsigned char, MPI_BYTE, op, bitwise_names[k]);
        TRY_INT_TYPE(uint16_t, MPI_UINT16_T, op, bitwise_names[k]);
        TRY_INT_TYPE(uint32_t, MPI_UINT32_T, op, bitwise_names[k]);
    }

    /* Reduce to a root and Reduce_local with a predefined op. */
    long long in = ival(rank, 1), out = -1;
    MPI_OK(MPI_Reduce(&in, &out, 1, MPI_LONG_LONG, MPI_PROD, 0, MPI_COMM_WORLD));
    if (rank == 0) CHECK_EQ(out, fold(MPI_PROD, 1, size));
    int a[3] = {1, 5, 9}, b[3] = {4, 2, 9};
    MPI_OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX));
    CHECK(b[0] == 4 && b[1] == 5 && b[2] == 9);
    MPI_OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM));
    CHECK(b[0] == 5 && b[1] == 10 && b[2] == 18);

    int commute = -1;
    MPI_OK(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK_EQ(commute, 1);
}

/* Pair types for MAXLOC/MINLOC. */
struct double_int { double v; int i; };
struct float_int { float v; int i; };
struct long_int { long v; int i; };
struct short_int { short v; int i; };
struct two_int { int v; int i; };

/* Rank r's value: ties between ranks 0 and 2 (and 1 and 3) exercise the
 * smallest-index rule. */
static int loc_value(int r) { return (r % 2) * 10 + 3; }

#define TRY_LOC(stype, mpitype)                                                    \
    do {                                                                           \
        stype in = {0}, out = {0};                                                 \
        in.v = loc_value(rank);                                                    \
        in.i = rank;                                                               \
        int emax = -1, emaxi = -1, emin = 1 << 30, emini = -1;                     \
        for (int r = 0; r < size; ++r) {                                           \
            if (loc_value(r) > emax) { emax = loc_value(r); emaxi = r; }           \
            if (loc_value(r) < emin) { emin = loc_value(r); emini = r; }           \
        }                                                                          \
        MPI_OK(MPI_Allreduce(&in, &out, 1, mpitype, MPI_MAXLOC, MPI_COMM_WORLD));  \
        CHECK_MSG(out.v == emax && out.i == emaxi, "%s MAXLOC: (%g,%d) expected (%d,%d)", \
                  #mpitype, (double)out.v, out.i, emax, emaxi);                    \
        MPI_OK(MPI_Allreduce(&in, &out, 1, mpitype, MPI_MINLOC, MPI_COMM_WORLD));  \
        CHECK_MSG(out.v == emin && out.i == emini, "%s MINLOC: (%g,%d) expected (%d,%d)", \
                  #mpitype, (double)out.v, out.i, emin, emini);                    \
    } while (0)

static void test_loc(void)
{
    TRY_LOC(struct double_int, MPI_DOUBLE_INT);
    TRY_LOC(struct float_int, MPI_FLOAT_INT);
    TRY_LOC(struct long_int, MPI_LONG_INT);
    TRY_LOC(struct short_int, MPI_SHORT_INT);
    TRY_LOC(struct two_int, MPI_2INT);

    /* Several pairs at once, to a root. */
    struct double_int in[3], out[3];
    for (int k = 0; k < 3; ++k) {
        in[k].v = (double)((rank + k) % size);
        in[k].i = rank;
    }
    MPI_OK(MPI_Reduce(in, out, 3, MPI_DOUBLE_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int k = 0; k < 3; ++k) {
            /* (r + k) % size is largest (= size-1) at r = (size-1-k) mod size. */
            int er = ((size - 1 - k) % size + size) % size;
            CHECK_NEAR(out[k].v, size - 1, 0);
            CHECK_EQ(out[k].i, er);
        }
}

/* User operations: 2x2 integer matrices modulo a prime, multiplied in rank order
 * (not commutative), and a commutative element-wise max of absolute values. */
typedef struct { long long m[4]; } mat;
#define PRIME 1000003LL
static MPI_Datatype mat_type;
static int mat_calls, mat_type_ok;

static mat mat_mul(mat a, mat b)
{
    mat c;
    c.m[0] = (a.m[0] * b.m[0] + a.m[1] * b.m[2]) % PRIME;
    c.m[1] = (a.m[0] * b.m[1] + a.m[1] * b.m[3]) % PRIME;
    c.m[2] = (a.m[2] * b.m[0] + a.m[3] * b.m[2]) % PRIME;
    c.m[3] = (a.m[2] * b.m[1] + a.m[3] * b.m[3]) % PRIME;
    return c;
}

static mat mat_of(int r, int k)
{
    mat x = {{r + 1 + k, 2 * r + 1, k + 1, r + 3}};
    return x;
}

/* inout = in * inout, with in from the lower ranks. */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    ++mat_calls;
    if (*type == mat_type) ++mat_type_ok;
    mat *a = in, *b = inout;
    for (int i = 0; i < *len; ++i) b[i] = mat_mul(a[i], b[i]);
}

static int absmax_calls;
static void absmax_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    ++absmax_calls;
    if (*type != MPI_INT) return; /* leaves a wrong result that the test sees */
    int *a = in, *b = inout;
    for (int i = 0; i < *len; ++i) {
        int x = abs(a[i]), y = abs(b[i]);
        b[i] = x > y ? x : y;
    }
}

static void test_user_ops(void)
{
    MPI_OK(MPI_Type_contiguous(4, MPI_LONG_LONG, &mat_type));
    MPI_OK(MPI_Type_commit(&mat_type));
    MPI_Op matop, absmax;
    MPI_OK(MPI_Op_create(mat_op, 0, &matop));
    MPI_OK(MPI_Op_create(absmax_op, 1, &absmax));
    int commute = -1;
    MPI_OK(MPI_Op_commutative(matop, &commute));
    CHECK_EQ(commute, 0);
    MPI_OK(MPI_Op_commutative(absmax, &commute));
    CHECK_EQ(commute, 1);

    enum { M = 3 };
    mat in[M], out[M], expect[M];
    for (int k = 0; k < M; ++k) {
        in[k] = mat_of(rank, k);
        expect[k] = mat_of(0, k);
        for (int r = 1; r < size; ++r) expect[k] = mat_mul(expect[k], mat_of(r, k));
    }
    MPI_OK(MPI_Allreduce(in, out, M, mat_type, matop, MPI_COMM_WORLD));
    for (int k = 0; k < M; ++k)
        for (int j = 0; j < 4; ++j) CHECK_EQ(out[k].m[j], expect[k].m[j]);
    memset(out, 0, sizeof out);
    MPI_OK(MPI_Reduce(in, out, M, mat_type, matop, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1)
        for (int k = 0; k < M; ++k)
            for (int j = 0; j < 4; ++j) CHECK_EQ(out[k].m[j], expect[k].m[j]);
    /* Scan: the prefix product. */
    MPI_OK(MPI_Scan(in, out, M, mat_type, matop, MPI_COMM_WORLD));
    for (int k = 0; k < M; ++k) {
        mat e = mat_of(0, k);
        for (int r = 1; r <= rank; ++r) e = mat_mul(e, mat_of(r, k));
        for (int j = 0; j < 4; ++j) CHECK_EQ(out[k].m[j], e.m[j]);
    }
    /* Reduce_local: inout = in op inout. */
    mat a = mat_of(5, 0), b = mat_of(6, 1), e = mat_mul(a, b);
    int calls_before = mat_calls;
    MPI_OK(MPI_Reduce_local(&a, &b, 1, mat_type, matop));
    CHECK_EQ(mat_calls, calls_before + 1);
    for (int j = 0; j < 4; ++j) CHECK_EQ(b.m[j], e.m[j]);
    /* The callback saw our datatype handle every time. */
    CHECK_EQ(mat_type_ok, mat_calls);

    int iv[2] = {rank % 2 ? -(rank + 1) * 10 : rank + 1, -rank}, ov[2] = {0, 0};
    MPI_OK(MPI_Allreduce(iv, ov, 2, MPI_INT, absmax, MPI_COMM_WORLD));
    int e0 = 0, e1 = 0;
    for (int r = 0; r < size; ++r) {
        int x = r % 2 ? (r + 1) * 10 : r + 1;
        e0 = x > e0 ? x : e0;
        e1 = r > e1 ? r : e1;
    }
    CHECK_EQ(ov[0], e0);
    CHECK_EQ(ov[1], e1);
    /* Nonblocking with a user op. */
    MPI_Request req;
    ov[0] = ov[1] = 0;
    MPI_OK(MPI_Iallreduce(iv, ov, 2, MPI_INT, absmax, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_EQ(ov[0], e0);
    CHECK_EQ(ov[1], e1);

    MPI_OK(MPI_Op_free(&matop));
    CHECK(matop == MPI_OP_NULL);
    MPI_OK(MPI_Op_free(&absmax));
    MPI_OK(MPI_Type_free(&mat_type));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "reduce");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_predefined_ops();
    test_loc();
    test_user_ops();
    return check_finish();
}
