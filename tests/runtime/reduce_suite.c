/* Every reduction, every way: MPI_Reduce (every root), MPI_Allreduce, MPI_Reduce_scatter,
 * MPI_Reduce_scatter_block, MPI_Scan, MPI_Exscan, blocking and nonblocking, each with a
 * separate send buffer and with MPI_IN_PLACE wherever the standard allows it (the root of
 * Reduce; every rank of the others), plus MPI_Reduce_local; every predefined operation on
 * the types it is defined on (SUM PROD MIN MAX on int, unsigned, long long and double;
 * LAND LOR LXOR on int; BAND BOR BXOR on int and unsigned; MAXLOC MINLOC on MPI_2INT and
 * MPI_DOUBLE_INT) and two user operations (a commutative one on int and a non-commutative
 * 2x2 matrix product on a derived type, where the order of the ranks shows); counts 0, 1,
 * 128 and 300.  Every (type, op) goes through every reduction, with the variant (buffer
 * mode, call form, count) turning from one to the next; the non-commutative op goes through
 * every variant at counts 1 and 300, MPI_Reduce at every root.  Where the header has them (MPI-4), the
 * large-count and persistent forms with MPI_IN_PLACE too.  Each result is compared with a
 * value folded here, in rank order, in plain C; the bytes of the receive buffer past what
 * the call may write must stay as they were.
 *
 * MPI_IN_PLACE as the send buffer at a non-root of MPI_Reduce is erroneous.  Open MPI
 * 4.1.4 returns MPI_ERR_ARG before communicating; MPICH 4.0.2 does not check it and
 * faults (it copies from its MPI_IN_PLACE, (void *)-1).  Over the standard ABI, anympi must
 * never crash there: it returns the native MPI's class where that MPI checks (MPI_ERR_ARG
 * on Open MPI) and MPI_ERR_BUFFER, MPICH's class for a misplaced MPI_IN_PLACE, where it
 * does not.  The communicator must be usable afterwards.  Natively on MPICH that case is
 * not called (it would only show MPICH's fault), nor MPICH's own fault with MPI_IN_PLACE
 * at a root other than 0 (QUIRK_MPICH_REDUCE_IN_PLACE_ROOT in check.h).
 *
 * REDUCE_SUITE_TRACE=1 prints each reduction on stderr before it runs. */
#include "check.h"
#include <stdint.h>

static int rank, size;

/* ------------------------------------------------------------------ element kinds */
enum kind { K_INT, K_UNS, K_LL, K_DBL, K_2INT, K_DBLINT, K_MAT };
typedef struct { int v, i; } pair_ii;
typedef struct { double v; int i; } pair_di;
typedef struct { int m[4]; } mat; /* 2x2, row-major, entries mod MAT_P */
#define MAT_P 10007
#define UMOD 65521

typedef union {
    int i;
    unsigned u;
    long long ll;
    double d;
    pair_ii pii;
    pair_di pdi;
    mat m;
} elem;

enum opk {
    O_SUM, O_PROD, O_MIN, O_MAX, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR,
    O_MAXLOC, O_MINLOC, O_UCOMM, O_UNONCOMM
};
static const char *const op_names[] = {
    "SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR",
    "MAXLOC", "MINLOC", "user-commutative", "user-noncommutative"};
static const char *const kind_names[] = {"int", "unsigned", "long long", "double",
                                         "2int", "double_int", "mat"};

static MPI_Datatype mat_type = MPI_DATATYPE_NULL;
static MPI_Op user_comm = MPI_OP_NULL, user_noncomm = MPI_OP_NULL;

static size_t kind_size(enum kind k)
{
    switch (k) {
    case K_INT: return sizeof(int);
    case K_UNS: return sizeof(unsigned);
    case K_LL: return sizeof(long long);
    case K_DBL: return sizeof(double);
    case K_2INT: return sizeof(pair_ii);
    case K_DBLINT: return sizeof(pair_di);
    case K_MAT: return sizeof(mat);
    }
    return 0;
}

static MPI_Datatype kind_type(enum kind k)
{
    switch (k) {
    case K_INT: return MPI_INT;
    case K_UNS: return MPI_UNSIGNED;
    case K_LL: return MPI_LONG_LONG;
    case K_DBL: return MPI_DOUBLE;
    case K_2INT: return MPI_2INT;
    case K_DBLINT: return MPI_DOUBLE_INT;
    case K_MAT: return mat_type;
    }
    return MPI_DATATYPE_NULL;
}

static MPI_Op op_handle(enum opk o)
{
    switch (o) {
    case O_SUM: return MPI_SUM;
    case O_PROD: return MPI_PROD;
    case O_MIN: return MPI_MIN;
    case O_MAX: return MPI_MAX;
    case O_LAND: return MPI_LAND;
    case O_LOR: return MPI_LOR;
    case O_LXOR: return MPI_LXOR;
    case O_BAND: return MPI_BAND;
    case O_BOR: return MPI_BOR;
    case O_BXOR: return MPI_BXOR;
    case O_MAXLOC: return MPI_MAXLOC;
    case O_MINLOC: return MPI_MINLOC;
    case O_UCOMM: return user_comm;
    case O_UNONCOMM: return user_noncomm;
    }
    return MPI_OP_NULL;
}

/* ------------------------------------------------------------------ contributions */
static unsigned mix(int r, int g) /* bits for the bitwise ops */
{
    unsigned x = (unsigned)r * 2654435761u ^ (unsigned)g * 40503u ^ 0x5bd1e995u;
    x ^= x >> 13;
    return x * 0x27d4eb2du;
}

/* Rank r's element g, chosen so that no operation overflows at 10 ranks, every floating
 * result is exact whatever the order of evaluation, and each op meets its hard cases
 * (negative numbers, unsigned values past INT_MAX, values past 32 bits, zeros for the
 * logical ops, ties for MAXLOC/MINLOC with the index order differing from the rank order). */
static void value(enum kind k, enum opk o, int r, int g, elem *e)
{
    static const int prod_tab[] = {1, -1, 2, 3, -2, 1, 1, -1};
    static const double prod_dtab[] = {0.5, -1.5, 2.0, 1.25, -0.75, 1.0, -2.0, 1.5};
    const int base = (r * 37 + g * 11) % 101 - 50; /* -50..50 */
    memset(e, 0, sizeof *e);
    switch (k) {
    case K_INT:
        if (o == O_PROD) e->i = prod_tab[(r + 3 * g) % 8];
        else if (o >= O_LAND && o <= O_LXOR) e->i = ((g >> (r % 5)) & 1) ? (g % 2 ? -(r + 1) : r + 7) : 0;
        else if (o >= O_BAND && o <= O_BXOR) e->i = (int)mix(r, g);
        else if (o == O_UCOMM) e->i = base * 1000 + r;
        else e->i = base * 3000000 + r; /* a SUM of 10: |x| < 2^31 */
        break;
    case K_UNS:
        if (o == O_PROD) e->u = (unsigned)(r + 2 * g) % 3 + 1;
        else if (o >= O_BAND && o <= O_BXOR) e->u = mix(r, g);
        else e->u = 0x80000000u + (unsigned)(base + 50) * 1000u + (unsigned)r; /* wraps when summed */
        break;
    case K_LL:
        if (o == O_PROD) e->ll = (long long)prod_tab[(r + 5 * g) % 8] * (r == 1 ? 3000000000LL : 1);
        else e->ll = (long long)base * 10000000000LL + r;
        break;
    case K_DBL:
        if (o == O_PROD) e->d = prod_dtab[(r + 3 * g) % 8];
        else e->d = base * 0.25 + r * 0.125;
        break;
    case K_2INT:
        e->pii.v = (r * 7 + g * 3) % 5 - 2;
        e->pii.i = (size - r) * 3 + g % 2; /* ties: the smaller index is a higher rank */
        break;
    case K_DBLINT:
        e->pdi.v = ((r * 5 + g) % 4) * 0.5 - 1.0;
        e->pdi.i = (size - r) * 2 - g % 3;
        break;
    case K_MAT:
        e->m.m[0] = (r + 1 + g % 5) % MAT_P;
        e->m.m[1] = (2 * r + 1 + g) % MAT_P;
        e->m.m[2] = (g % 3 + 1) % MAT_P;
        e->m.m[3] = (r + 3 + g * 7) % MAT_P;
        break;
    }
}

/* ------------------------------------------------------------------ the operations, in C */
static mat mat_mul(const mat *a, const mat *b)
{
    mat c;
    c.m[0] = (int)(((long long)a->m[0] * b->m[0] + (long long)a->m[1] * b->m[2]) % MAT_P);
    c.m[1] = (int)(((long long)a->m[0] * b->m[1] + (long long)a->m[1] * b->m[3]) % MAT_P);
    c.m[2] = (int)(((long long)a->m[2] * b->m[0] + (long long)a->m[3] * b->m[2]) % MAT_P);
    c.m[3] = (int)(((long long)a->m[2] * b->m[1] + (long long)a->m[3] * b->m[3]) % MAT_P);
    return c;
}

static int umod_add(int a, int b) { return (int)((((long long)a + b) % UMOD + UMOD) % UMOD); }

#define ARITH_(T, a, b)                                                            \
    switch (o) {                                                                   \
    case O_SUM: *(b) = (T)(*(a) + *(b)); break;                                    \
    case O_PROD: *(b) = (T)(*(a) * *(b)); break;                                   \
    case O_MIN: *(b) = *(a) < *(b) ? *(a) : *(b); break;                           \
    case O_MAX: *(b) = *(a) > *(b) ? *(a) : *(b); break;                           \
    case O_LAND: *(b) = (T)(*(a) && *(b)); break;                                  \
    case O_LOR: *(b) = (T)(*(a) || *(b)); break;                                   \
    case O_LXOR: *(b) = (T)(!*(a) != !*(b)); break;                                \
    default: break;                                                                \
    }
#define BITS_(a, b)                                                                \
    switch (o) {                                                                   \
    case O_BAND: *(b) &= *(a); break;                                              \
    case O_BOR: *(b) |= *(a); break;                                               \
    case O_BXOR: *(b) ^= *(a); break;                                              \
    default: break;                                                                \
    }
#define LOC_(a, b)                                                                 \
    do {                                                                           \
        int better_ = o == O_MAXLOC ? (a)->v > (b)->v : (a)->v < (b)->v;           \
        if (better_ || ((a)->v == (b)->v && (a)->i < (b)->i)) *(b) = *(a);         \
    } while (0)

/* inout = in (op) inout, for one element: the standard's order (in from lower ranks). */
static void combine(enum kind k, enum opk o, const elem *in, elem *inout)
{
    switch (k) {
    case K_INT:
        if (o == O_UCOMM) inout->i = umod_add(in->i, inout->i);
        else if (o >= O_BAND && o <= O_BXOR) { BITS_(&in->i, &inout->i); }
        else { ARITH_(int, &in->i, &inout->i); }
        break;
    case K_UNS:
        if (o >= O_BAND && o <= O_BXOR) { BITS_(&in->u, &inout->u); }
        else { ARITH_(unsigned, &in->u, &inout->u); }
        break;
    case K_LL: ARITH_(long long, &in->ll, &inout->ll); break;
    case K_DBL: ARITH_(double, &in->d, &inout->d); break;
    case K_2INT: LOC_(&in->pii, &inout->pii); break;
    case K_DBLINT: LOC_(&in->pdi, &inout->pdi); break;
    case K_MAT: inout->m = mat_mul(&in->m, &inout->m); break;
    }
}

/* The reduction of element g over ranks 0..upto-1, folded left in rank order. */
static void expected(enum kind k, enum opk o, int g, int upto, elem *acc)
{
    value(k, o, 0, g, acc);
    for (int r = 1; r < upto; ++r) {
        elem x;
        value(k, o, r, g, &x);
        combine(k, o, acc, &x);
        *acc = x;
    }
}

static int logical_op(enum opk o) { return o == O_LAND || o == O_LOR || o == O_LXOR; }

static int same(enum kind k, enum opk o, const void *got, const elem *want)
{
    elem x;
    memcpy(&x, got, kind_size(k));
    switch (k) {
    case K_INT: return logical_op(o) ? !x.i == !want->i : x.i == want->i;
    case K_UNS: return x.u == want->u;
    case K_LL: return x.ll == want->ll;
    case K_DBL: return x.d == want->d;
    case K_2INT: return x.pii.v == want->pii.v && x.pii.i == want->pii.i;
    case K_DBLINT: return x.pdi.v == want->pdi.v && x.pdi.i == want->pdi.i;
    case K_MAT: return memcmp(x.m.m, want->m.m, sizeof x.m.m) == 0;
    }
    return 0;
}

static void show(enum kind k, const void *p, char *out, size_t n)
{
    elem x;
    memcpy(&x, p, kind_size(k));
    switch (k) {
    case K_INT: snprintf(out, n, "%d", x.i); break;
    case K_UNS: snprintf(out, n, "%u", x.u); break;
    case K_LL: snprintf(out, n, "%lld", x.ll); break;
    case K_DBL: snprintf(out, n, "%.17g", x.d); break;
    case K_2INT: snprintf(out, n, "(%d,%d)", x.pii.v, x.pii.i); break;
    case K_DBLINT: snprintf(out, n, "(%g,%d)", x.pdi.v, x.pdi.i); break;
    case K_MAT: snprintf(out, n, "[%d %d; %d %d]", x.m.m[0], x.m.m[1], x.m.m[2], x.m.m[3]); break;
    }
}

/* ------------------------------------------------------------------ user operations */
static int user_bad_type; /* a callback saw a datatype other than the one reduced */
static long user_calls;

static void ucomm_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    ++user_calls;
    if (*type != MPI_INT) { ++user_bad_type; return; }
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; ++i) b[i] = umod_add(a[i], b[i]);
}

static void unoncomm_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    ++user_calls;
    if (*type != mat_type) { ++user_bad_type; return; }
    const mat *a = in;
    mat *b = inout;
    for (int i = 0; i < *len; ++i) b[i] = mat_mul(&a[i], &b[i]);
}

/* ------------------------------------------------------------------ one case */
enum coll { C_REDUCE, C_ALLREDUCE, C_RS, C_RSB, C_SCAN, C_EXSCAN, C_LOCAL };
static const char *const coll_names[] = {"Reduce", "Allreduce", "Reduce_scatter",
                                         "Reduce_scatter_block", "Scan", "Exscan",
                                         "Reduce_local"};
enum { GUARD = 2 };
static const unsigned char FILL = 0xA5;

/* Reduce_scatter's counts for a base count c: different per rank, zeros among them. */
static int rs_count(int c, int r) { return c <= 1 ? (c == 0 ? 0 : r % 3 == 1 ? 0 : r % 3) : c + r % 3 - 1; }

static long cases;
static int trace; /* REDUCE_SUITE_TRACE=1: each case on stderr before it runs */

static void run(enum coll c, enum kind k, enum opk o, int count, int inplace, int nb, int root)
{
    const int is_root = c != C_REDUCE || rank == root;
    inplace = inplace && is_root; /* Reduce: only the root may pass MPI_IN_PLACE */
    const size_t es = kind_size(k);
    const MPI_Datatype type = kind_type(k);
    const MPI_Op op = op_handle(o);
    int rcounts[64], displs[64], total = 0;
    for (int r = 0; r < size; ++r) {
        rcounts[r] = c == C_RS ? rs_count(count, r) : count;
        displs[r] = total;
        total += rcounts[r];
    }
    /* Elements this rank contributes (global indices 0..nin-1) and may receive. */
    const int nin = c == C_RS || c == C_RSB ? total : count;
    const int nout = c == C_RS || c == C_RSB ? rcounts[rank] : count;
    const int first = c == C_RS || c == C_RSB ? displs[rank] : 0; /* first global index received */
    const int nbuf = (inplace ? (nin > nout ? nin : nout) : nout) + GUARD;
    char *in = malloc((size_t)(nin + 1) * es), *out = malloc((size_t)nbuf * es);
    CHECK_FATAL(in && out);
    memset(out, FILL, (size_t)nbuf * es);
    char *src = inplace ? out : in;
    for (int g = 0; g < nin; ++g) {
        elem e;
        value(k, o, rank, g, &e);
        memcpy(src + (size_t)g * es, &e, es);
    }
    /* Reduce_local: inout holds rank+1's contribution; in is this rank's. */
    if (c == C_LOCAL)
        for (int g = 0; g < nin; ++g) {
            elem e;
            value(k, o, rank + 1, g, &e);
            memcpy(out + (size_t)g * es, &e, es);
        }
    const void *sb = inplace ? MPI_IN_PLACE : in;
    if (trace) fprintf(stderr, "[%d] %s%s%s %s on %s, count %d, root %d\n", rank, nb ? "I" : "",
                       coll_names[c], inplace ? " (in place)" : "", op_names[o], kind_names[k], count, root);
    /* Reduce's receive buffer is insignificant at the other ranks: NULL there, blocking. */
    void *rb = c == C_REDUCE && !is_root && !nb ? NULL : out;
    const int bad_before = user_bad_type;
    const long calls_before = user_calls;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (c) {
    case C_REDUCE: COLL(nb, MPI_Reduce(sb, rb, count, type, op, root, w), MPI_Ireduce(sb, rb, count, type, op, root, w, req)); break;
    case C_ALLREDUCE: COLL(nb, MPI_Allreduce(sb, out, count, type, op, w), MPI_Iallreduce(sb, out, count, type, op, w, req)); break;
    case C_RS: COLL(nb, MPI_Reduce_scatter(sb, out, rcounts, type, op, w), MPI_Ireduce_scatter(sb, out, rcounts, type, op, w, req)); break;
    case C_RSB: COLL(nb, MPI_Reduce_scatter_block(sb, out, count, type, op, w), MPI_Ireduce_scatter_block(sb, out, count, type, op, w, req)); break;
    case C_SCAN: COLL(nb, MPI_Scan(sb, out, count, type, op, w), MPI_Iscan(sb, out, count, type, op, w, req)); break;
    case C_EXSCAN: COLL(nb, MPI_Exscan(sb, out, count, type, op, w), MPI_Iexscan(sb, out, count, type, op, w, req)); break;
    case C_LOCAL: MPI_OK(MPI_Reduce_local(in, out, count, type, op)); break;
    }
    if (c == C_LOCAL && o >= O_UCOMM && count > 0) /* this very process applies the op */
        CHECK_MSG(user_calls > calls_before, "MPI_Reduce_local did not call %s", op_names[o]);
    ++cases;
    CHECK_MSG(user_bad_type == bad_before, "%s %s on %s: a user callback saw another datatype",
              coll_names[c], op_names[o], kind_names[k]);
    /* Where this rank has a defined result, each element against the fold; the guard after
     * the buffer the call may write must keep its bytes. */
    int defined = is_root && !(c == C_EXSCAN && rank == 0);
    if (defined) {
        int bad = 0;
        for (int j = 0; j < nout && bad < 3; ++j) {
            elem want;
            const int g = first + j;
            if (c == C_LOCAL) {
                elem a;
                value(k, o, rank, g, &a);
                value(k, o, rank + 1, g, &want);
                combine(k, o, &a, &want);
            } else {
                int upto = c == C_SCAN ? rank + 1 : c == C_EXSCAN ? rank : size;
                expected(k, o, g, upto, &want);
            }
            if (!same(k, o, out + (size_t)j * es, &want)) {
                char gs[96], ws[96];
                show(k, out + (size_t)j * es, gs, sizeof gs);
                show(k, &want, ws, sizeof ws);
                CHECK_MSG(0, "%s%s%s %s on %s, count %d, root %d, np %d: element %d is %s, expected %s",
                          nb ? "I" : "", coll_names[c], inplace ? " (in place)" : "", op_names[o],
                          kind_names[k], count, c == C_REDUCE ? root : -1, size, j, gs, ws);
                ++bad;
            }
        }
        if (!bad) ++check_count_;
    }
    if (rb == out) {
        const int from = inplace ? (nin > nout ? nin : nout) : nout;
        int guard_ok = 1;
        for (size_t b = (size_t)from * es; b < (size_t)nbuf * es; ++b) guard_ok &= (unsigned char)out[b] == FILL;
        CHECK_MSG(guard_ok, "%s%s%s %s on %s, count %d: bytes past the result were written",
                  nb ? "I" : "", coll_names[c], inplace ? " (in place)" : "", op_names[o],
                  kind_names[k], count);
    }
    free(in);
    free(out);
}

/* The variants of one reduction: a separate send buffer or MPI_IN_PLACE, blocking or not, and
 * the count (128 elements are 2048 bytes at most, 300 are past that for every type here, which is
 * where the MPIs switch to their large-message algorithms). */
static const int counts[] = {0, 1, 128, 300};
enum { NCOUNTS = 4, NVARIANTS = 2 * 2 * NCOUNTS };

static long quirk_roots;

static void run_variant(enum coll c, enum kind k, enum opk o, int v, int root)
{
    const int ip = v & 1, nb = (v >> 1) & 1, count = counts[(v >> 2) % NCOUNTS];
    if (c == C_LOCAL) { /* no MPI_IN_PLACE, no nonblocking form */
        run(c, k, o, count, 0, 0, 0);
        return;
    }
    if (c == C_REDUCE && ip && !nb && root != 0 && (size_t)count * kind_size(k) > 2048 &&
        QUIRK_MPICH_REDUCE_IN_PLACE_ROOT) {
        ++quirk_roots; /* every rank alike: the call is collective */
        root = 0;
    }
    run(c, k, o, count, ip, nb, root);
}

/* Every operation on every type it is defined on. */
struct combo { enum kind k; enum opk o; };
static struct combo combos[40];
static int ncombos;

static void make_combos(void)
{
    static const enum kind arith_kinds[] = {K_INT, K_UNS, K_LL, K_DBL};
    for (int a = 0; a < 4; ++a)
        for (enum opk o = O_SUM; o <= O_MAX; ++o) combos[ncombos++] = (struct combo){arith_kinds[a], o};
    for (enum opk o = O_LAND; o <= O_LXOR; ++o) combos[ncombos++] = (struct combo){K_INT, o};
    for (enum opk o = O_BAND; o <= O_BXOR; ++o) {
        combos[ncombos++] = (struct combo){K_INT, o};
        combos[ncombos++] = (struct combo){K_UNS, o};
    }
    for (enum opk o = O_MAXLOC; o <= O_MINLOC; ++o) {
        combos[ncombos++] = (struct combo){K_2INT, o};
        combos[ncombos++] = (struct combo){K_DBLINT, o};
    }
    combos[ncombos++] = (struct combo){K_INT, O_UCOMM};
    combos[ncombos++] = (struct combo){K_MAT, O_UNONCOMM};
}

/* Every (type, op) through every reduction; the variant turns with the pair and the reduction,
 * so that over the 31 pairs each reduction meets each of the 16 variants about twice (and every
 * op meets both buffer modes, both call forms and several counts).  Running the whole product
 * instead (about 60 reductions per pair and count at 10 ranks) takes minutes on two cores. */
static void test_ops(void)
{
    for (int j = 0; j < ncombos; ++j)
        for (enum coll c = C_REDUCE; c <= C_LOCAL; ++c)
            run_variant(c, combos[j].k, combos[j].o, j + (int)c, j % size);
}

/* Every reduction in every variant at counts 1 and 300 (0 and 128 are test_ops'), MPI_Reduce at
 * every root, for the operation where any slip in order or buffers shows: the non-commutative user
 * operation on a derived type; and every root of MPI_Reduce and MPI_Ireduce, each way, for a
 * predefined op on a pair type. */
static void test_variants(void)
{
    for (int v = 0; v < NVARIANTS; ++v) {
        const int count = counts[(v >> 2) % NCOUNTS];
        if (count == 0 || count == 128) continue;
        for (int root = 0; root < size; ++root) run_variant(C_REDUCE, K_MAT, O_UNONCOMM, v, root);
        for (enum coll c = C_ALLREDUCE; c <= C_EXSCAN; ++c) run_variant(c, K_MAT, O_UNONCOMM, v, 0);
        if ((v & 3) == 0) run_variant(C_LOCAL, K_MAT, O_UNONCOMM, v, 0);
    }
    run(C_LOCAL, K_MAT, O_UNONCOMM, 0, 0, 0, 0);
    run(C_LOCAL, K_INT, O_UCOMM, 300, 0, 0, 0);
    for (int v = 0; v < 4; ++v) /* count 300 */
        for (int root = 0; root < size; ++root) run_variant(C_REDUCE, K_DBLINT, O_MAXLOC, v + 12, root);
}

/* ------------------------------------------------------------------ MPI-4 forms, in place */
#if MPI_VERSION >= 4
/* The large-count MPI_Reduce_c and MPI_Allreduce_c (over Open MPI 4.1, anympi's calls of the int
 * forms) and the persistent MPI_Reduce_init and MPI_Allreduce_init, started twice with new data
 * each time, all with MPI_IN_PLACE.  Open MPI 4.1 has no persistent collectives: anympi answers
 * MPI_ERR_UNSUPPORTED_OPERATION there, on every rank alike. */
static void test_mpi4_forms(void)
{
    const long long tri = (long long)size * (size + 1) / 2;
    for (int root = 0; root < size; ++root) {
        long long v[5];
        for (int i = 0; i < 5; ++i) v[i] = (long long)(rank + 1) * (i + 1);
        MPI_OK(MPI_Reduce_c(rank == root ? MPI_IN_PLACE : v, rank == root ? v : NULL, 5, MPI_LONG_LONG,
                            MPI_SUM, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int i = 0; i < 5; ++i) CHECK_EQ(v[i], tri * (i + 1));
    }
    double d[3] = {rank, -2.0 * rank, 1.5};
    MPI_OK(MPI_Allreduce_c(MPI_IN_PLACE, d, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK(d[0] == size - 1 && d[1] == 0.0 && d[2] == 1.5);

    const int root = size - 1;
    int buf[4];
    MPI_Request rr = MPI_REQUEST_NULL, ar = MPI_REQUEST_NULL;
    int rc = MPI_Reduce_init(rank == root ? MPI_IN_PLACE : buf, rank == root ? buf : NULL, 4, MPI_INT,
                             MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rr);
    if (check_mpi4_unsupported(rc, "MPI_Reduce_init")) return;
    MPI_OK(rc);
    mat m[3];
    MPI_OK(MPI_Allreduce_init(MPI_IN_PLACE, m, 3, mat_type, user_noncomm, MPI_COMM_WORLD, MPI_INFO_NULL, &ar));
    for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < 4; ++i) buf[i] = (rank + 1) * (i + 1 + round);
        for (int g = 0; g < 3; ++g) {
            elem e;
            value(K_MAT, O_UNONCOMM, rank, g + 5 * round, &e);
            m[g] = e.m;
        }
        MPI_OK(MPI_Start(&rr));
        MPI_OK(MPI_Start(&ar));
        MPI_OK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&ar, MPI_STATUS_IGNORE));
        CHECK(rr != MPI_REQUEST_NULL && ar != MPI_REQUEST_NULL); /* persistent: still there */
        if (rank == root)
            for (int i = 0; i < 4; ++i) CHECK_EQ(buf[i], tri * (i + 1 + round));
        for (int g = 0; g < 3; ++g) {
            elem want;
            expected(K_MAT, O_UNONCOMM, g + 5 * round, size, &want);
            CHECK_MSG(same(K_MAT, O_UNONCOMM, &m[g], &want), "MPI_Allreduce_init round %d, element %d", round, g);
        }
    }
    MPI_OK(MPI_Request_free(&rr));
    MPI_OK(MPI_Request_free(&ar));
    CHECK(rr == MPI_REQUEST_NULL && ar == MPI_REQUEST_NULL);
}
#endif

/* ------------------------------------------------------------------ the erroneous case */
static int under_standard_abi(void)
{
#ifdef MPI_ABI_VERSION
    return 1;
#else
    return 0;
#endif
}

/* MPI_IN_PLACE as sendbuf at a non-root of a rooted reduction: an error of the class the MPI
 * underneath gives (MPICH's for a misplaced MPI_IN_PLACE where MPICH itself faults), returned
 * before the call takes part, so that the root's call still matches the next, correct one. */
static int inplace_at_nonroot(int form, int root, int *out)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_ERR_OTHER;
    switch (form) {
    case 0: rc = MPI_Reduce(MPI_IN_PLACE, out, 3, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD); break;
    case 1: rc = MPI_Ireduce(MPI_IN_PLACE, out, 3, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req); break;
#if MPI_VERSION >= 4
    case 2: rc = MPI_Reduce_c(MPI_IN_PLACE, out, 3, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD); break;
    case 3:
        rc = MPI_Reduce_init(MPI_IN_PLACE, out, 3, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req);
        if (rc == MPI_SUCCESS) MPI_Request_free(&req); /* never started: takes no part */
        break;
#endif
    default: break;
    }
    if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) MPI_Wait(&req, MPI_STATUS_IGNORE);
    return rc;
}

static void test_inplace_at_nonroot(void)
{
    if (size < 2) return; /* every rank is the root */
    /* MPICH 4.0.2 itself faults here (natively); over the ABI anympi must not. */
    const int runs_here = under_standard_abi() || check_under() != CHECK_UNDER_MPICH;
    if (!runs_here) {
        if (rank == 0) printf("note: MPICH 4.0.2 natively faults on MPI_IN_PLACE at a non-root of MPI_Reduce; not called natively there\n");
        return;
    }
    const int want = check_under() == CHECK_UNDER_OPENMPI ? MPI_ERR_ARG : MPI_ERR_BUFFER;
    /* MPI_Reduce, MPI_Ireduce and, where the header has them, MPI_Reduce_c (which anympi runs
     * through MPI_Reduce over Open MPI 4.1) and the persistent MPI_Reduce_init (anympi's own
     * over Open MPI 4.1, which refuses it at init as a native one would). */
    static const char *const form_names[] = {"MPI_Reduce", "MPI_Ireduce", "MPI_Reduce_c", "MPI_Reduce_init"};
    const int nforms = MPI_VERSION >= 4 ? 4 : 2;
    for (int form = 0; form < nforms; ++form)
        for (int root = 0; root < size; ++root) {
            int v[3] = {rank, 2 * rank, 3}, out[3] = {-1, -1, -1};
            if (rank != root) {
                const int rc = inplace_at_nonroot(form, root, out);
                int cls = -1;
                MPI_Error_class(rc, &cls);
                /* Open MPI 4.1 has no MPI_Reduce_init: anympi's own refuses at init with the
                 * class Open MPI's MPI_Ireduce would */
                const int want_here = want;
                CHECK_MSG(rc != MPI_SUCCESS && cls == want_here,
                          "%s(MPI_IN_PLACE) at non-root %d (root %d): rc %d class %d, expected class %d",
                          form_names[form], rank, root, rc, cls, want_here);
                CHECK(out[0] == -1 && out[1] == -1 && out[2] == -1);
                if (rc == MPI_SUCCESS && form != 3) continue; /* it took part: matched the root's */
            }
            /* The failed call took no part: the correct one matches the root's. */
            MPI_OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : v, rank == root ? v : NULL, 3, MPI_INT,
                              MPI_SUM, root, MPI_COMM_WORLD));
            if (rank == root) {
                int s = (size - 1) * size / 2;
                CHECK_EQ(v[0], s);
                CHECK_EQ(v[1], 2 * s);
                CHECK_EQ(v[2], 3 * size);
            }
        }
}

/* MPI_IN_PLACE as the receive buffer at a root is erroneous too: both MPIs check it
 * (MPICH: MPI_ERR_BUFFER, Open MPI: MPI_ERR_ARG) before communicating.  On MPI_COMM_WORLD the
 * failed call takes no part, so the root's next, correct call matches the other ranks' one. */
static void test_inplace_recvbuf(void)
{
    const int want = check_under() == CHECK_UNDER_OPENMPI ? MPI_ERR_ARG : MPI_ERR_BUFFER;
    int v[2] = {1, 2}, cls = -1;
    int rc = MPI_Reduce(v, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF);
    MPI_Error_class(rc, &cls);
    CHECK_MSG(rc != MPI_SUCCESS && cls == want, "MPI_Reduce(recvbuf = MPI_IN_PLACE) at the root: rc %d class %d", rc, cls);
    CHECK(v[0] == 1 && v[1] == 2);
    for (int root = 0; root < size; ++root) {
        int w[2] = {rank, 1}, out[2] = {-1, -1};
        if (rank == root) {
            cls = -1;
            rc = MPI_Reduce(w, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
            MPI_Error_class(rc, &cls);
            CHECK_MSG(rc != MPI_SUCCESS && cls == want,
                      "MPI_Reduce(recvbuf = MPI_IN_PLACE) at root %d of MPI_COMM_WORLD: rc %d class %d", root, rc, cls);
            CHECK(w[0] == rank && w[1] == 1);
        }
        MPI_OK(MPI_Reduce(w, out, 2, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        if (rank == root) {
            CHECK_EQ(out[0], (size - 1) * size / 2);
            CHECK_EQ(out[1], size);
        }
    }
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "reduce_suite");
    trace = getenv("REDUCE_SUITE_TRACE") != NULL;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_FATAL(size <= 64);
    MPI_OK(MPI_Type_contiguous(4, MPI_INT, &mat_type));
    MPI_OK(MPI_Type_commit(&mat_type));
    MPI_OK(MPI_Op_create(ucomm_fn, 1, &user_comm));
    MPI_OK(MPI_Op_create(unoncomm_fn, 0, &user_noncomm));
    int commute = -1;
    MPI_OK(MPI_Op_commutative(user_noncomm, &commute));
    CHECK_EQ(commute, 0);
    MPI_OK(MPI_Op_commutative(user_comm, &commute));
    CHECK_EQ(commute, 1);

    make_combos();
    test_ops();
    test_variants();
#if MPI_VERSION >= 4
    test_mpi4_forms();
#endif
    test_inplace_at_nonroot();
    test_inplace_recvbuf();

    long all = 0;
    MPI_OK(MPI_Reduce(&cases, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0) printf("reduce_suite: %ld reductions at %d ranks\n", all, size);
    if (rank == 0 && quirk_roots)
        printf("note: %ld blocking MPI_Reduce calls with MPI_IN_PLACE over 2048 bytes went to root 0 "
               "instead: MPICH 4.0.2 faults at any other root (pmodels/mpich#6540)\n", quirk_roots);
    MPI_OK(MPI_Op_free(&user_comm));
    MPI_OK(MPI_Op_free(&user_noncomm));
    CHECK(user_comm == MPI_OP_NULL && user_noncomm == MPI_OP_NULL);
    MPI_OK(MPI_Type_free(&mat_type));
    return check_finish();
}
