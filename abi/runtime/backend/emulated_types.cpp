// Predefined datatypes of the ABI that the MPI underneath lacks, and reductions the MPI
// underneath gets wrong.  See emulated_types.hpp for the hooks; docs/runtime.md for the why.
//
// Which types: every ABI handle of the table below that abi_consts.inc did not
// map (the native header lacks it) or mapped to the native MPI_DATATYPE_NULL (MPICH's
// MPI_INTEGER16).  Each becomes MPI_Type_create_resized(B, 0, size of B) of a native basic type
// B of the same size, so the MPI moves it as one element (MPI_Get_elements counts it once) and
// copies it bit for bit; B is an integer or double complex, never long double (MPICH copies
// that through x87 registers, dropping its padding bytes).  Each emulated type has its own B,
// and resizing a type to its own extent is something no program does: the MPIs' copies of one
// (Open MPI's MPI_Type_get_contents returns copies of derived types; ROMIO's and OMPIO's
// MPI_File_get_view return rebuilt etypes and filetypes) are recognised by that structure.
//
// Reductions: the standard defines MPI_SUM/PROD/MIN/MAX on MPI_REAL2, MPI_SUM/PROD on
// MPI_COMPLEX4, the integer and bit ops on MPI_INTEGER16, the logical ops on MPI_LOGICALn;
// each is a native user operation here, made the first time it is used.  MPI_REAL16 and
// MPI_COMPLEX32 (gfortran's binary128) exist natively, but MPICH 4.0.2 computes them as x87
// long doubles (1.5 + 2.25 gives NaN) and refuses MPI_PROD on MPI_COMPLEX32, and Open MPI
// 4.1.4 leaves the result unchanged: their arithmetic ops are anympi's too.  Open MPI 4.1.4
// orders MPI_OFFSET as unsigned in MPI_MIN/MPI_MAX (min(-5, 3) is 3): where a probe at start
// shows that, those two are anympi's as well.
#include "emulated_types.hpp"
#include "datarep.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

namespace anympi::backend {
std::atomic<bool> emu_on[emu_last - emu_first + 1];
bool emu_has_ops[emu_types_count];

namespace {

enum op_ix { o_sum, o_min, o_max, o_prod, o_band, o_bor, o_bxor, o_land, o_lor, o_lxor, o_count };
int op_index(uintptr_t op)
{
    switch (op) {
    case ABI_SUM: return o_sum;
    case ABI_MIN: return o_min;
    case ABI_MAX: return o_max;
    case ABI_PROD: return o_prod;
    case ABI_BAND: return o_band;
    case ABI_BOR: return o_bor;
    case ABI_BXOR: return o_bxor;
    case ABI_LAND: return o_land;
    case ABI_LOR: return o_lor;
    case ABI_LXOR: return o_lxor;
    default: return -1;  // MAXLOC/MINLOC (pairs only), REPLACE/NO_OP (RMA only), OP_NULL
    }
}

// ---------------------------------------------------------------- element arithmetic
// MPI's rule for every op: inout[i] = in[i] op inout[i].  Elements are read and written with
// memcpy (a buffer need not be aligned for the element's C type).
template <class T> T load(const char *p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <class T> void store(char *p, T v) { std::memcpy(p, &v, sizeof v); }

template <class F> void each(void *in, void *inout, const int *len, size_t size, F f)
{
    const char *a = static_cast<const char *>(in);
    char *b = static_cast<char *>(inout);
    for (int i = 0; i < *len; ++i, a += size, b += size) f(a, b);
}

// Fortran LOGICAL(n) as gfortran has it: zero is .FALSE., anything else .TRUE.; results are
// 1 (.TRUE.) or 0.
template <class T, int Op> void logical_op(void *in, void *inout, int *len, MPI_Datatype *)
{
    each(in, inout, len, sizeof(T), [](const char *a, char *b) {
        const bool x = load<T>(a) != 0, y = load<T>(b) != 0;
        const bool r = Op == o_land ? (x && y) : Op == o_lor ? (x || y) : (x != y);
        store<T>(b, r ? T(1) : T(0));
    });
}

// INTEGER(16): two's complement, wrapping like the native MPIs' integer sums and products.
template <int Op> void int128_op(void *in, void *inout, int *len, MPI_Datatype *)
{
    each(in, inout, len, 16, [](const char *a, char *b) {
        using u128 = unsigned __int128;
        const __int128 x = load<__int128>(a), y = load<__int128>(b);
        const u128 ux = u128(x), uy = u128(y);
        u128 r = 0;
        switch (Op) {
        case o_sum: r = ux + uy; break;
        case o_prod: r = ux * uy; break;
        case o_min: r = u128(x < y ? x : y); break;
        case o_max: r = u128(x > y ? x : y); break;
        case o_band: r = ux & uy; break;
        case o_bor: r = ux | uy; break;
        case o_bxor: r = ux ^ uy; break;
        }
        store<u128>(b, r);
    });
}

// REAL(2), IEEE binary16.  A sum or product of two binary16 values is exact in double, so it
// is computed there and rounded once to binary16 (to nearest, ties to even): the correctly
// rounded result.  A complex product's parts (ac - bd, ad + bc) are exact sums of two exact
// products, kept as a double and its rounding error, and also rounded once.
double half_to_double(uint16_t h)
{
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0x1f) {
        if (m == 0) v = HUGE_VAL;
        else {  // a NaN keeps its payload's top bits
            const uint64_t bits = 0x7ff8000000000000ull | (uint64_t(m) << 42);
            std::memcpy(&v, &bits, sizeof v);
        }
    } else if (e == 0) {
        v = std::ldexp(double(m), -24);
    } else {
        v = std::ldexp(double(m | 0x400), e - 25);
    }
    return (h & 0x8000) ? -v : v;
}

// The binary16 nearest to d + t, where t is d's rounding error (|t| <= ulp(d)/2) and only its
// sign matters: tail > 0 means the exact value lies farther from zero than d, < 0 nearer.
uint16_t half_from_double(double d, int tail)
{
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    const uint16_t sign = uint16_t((b >> 48) & 0x8000);
    const int E = int((b >> 52) & 0x7ff);
    const uint64_t frac = b & ((uint64_t(1) << 52) - 1);
    if (E == 0x7ff) return frac ? uint16_t(sign | 0x7e00 | (frac >> 42)) : uint16_t(sign | 0x7c00);
    if (E == 0) return sign;  // zero, or a double subnormal: far below binary16's least
    const int e = E - 1023;    // |d| = M * 2^(e-52), M = 1.frac
    if (e > 15) return uint16_t(sign | 0x7c00);
    const uint64_t M = frac | (uint64_t(1) << 52);
    const int q = (e < -14 ? -14 : e) - 10;  // the spacing of binary16 values around |d| is 2^q
    const int sh = 52 + q - e;               // |d| / 2^q = M / 2^sh, sh >= 42
    if (sh > 53) return sign;                // below half the least subnormal
    uint64_t n = M >> sh;
    const uint64_t rem = M & ((uint64_t(1) << sh) - 1), halfway = uint64_t(1) << (sh - 1);
    if (rem > halfway || (rem == halfway && (tail > 0 || (tail == 0 && (n & 1))))) ++n;
    // n counts steps of 2^q from zero; binary16's encoding is that count above the binade's base
    // (for subnormals the base is 0 and the count is the encoding; n = 2^11 carries into the
    // exponent, and past the largest finite value into infinity).
    const uint32_t bits = (uint32_t(q + 10 + 14) << 10) + uint32_t(n);
    return uint16_t(sign | (bits >= 0x7c00 ? 0x7c00 : bits));
}

// Rounds hi + lo (lo: the error of hi = fl(x + y), from two_sum) once to binary16.
uint16_t half_round(double hi, double lo)
{
    if (lo == 0 || !std::isfinite(hi) || !std::isfinite(lo)) return half_from_double(hi, 0);
    return half_from_double(hi, (lo > 0) == (hi > 0) ? 1 : -1);
}
double two_sum_err(double x, double y, double s)  // s = fl(x + y): the exact x + y - s
{
    const double yy = s - x;
    return (x - (s - yy)) + (y - yy);
}

template <int Op> void half_op(void *in, void *inout, int *len, MPI_Datatype *)
{
    each(in, inout, len, 2, [](const char *a, char *b) {
        const uint16_t ha = load<uint16_t>(a), hb = load<uint16_t>(b);
        const double x = half_to_double(ha), y = half_to_double(hb);
        uint16_t r = hb;
        switch (Op) {
        case o_sum: r = half_from_double(x + y, 0); break;  // exact in double
        case o_prod: r = half_from_double(x * y, 0); break;
        case o_min: r = x < y ? ha : hb; break;
        case o_max: r = x > y ? ha : hb; break;
        }
        store<uint16_t>(b, r);
    });
}

template <int Op> void chalf_op(void *in, void *inout, int *len, MPI_Datatype *)
{
    each(in, inout, len, 4, [](const char *a, char *b) {
        const double ar = half_to_double(load<uint16_t>(a)), ai = half_to_double(load<uint16_t>(a + 2));
        const double br = half_to_double(load<uint16_t>(b)), bi = half_to_double(load<uint16_t>(b + 2));
        uint16_t re, im;
        if (Op == o_sum) {
            re = half_from_double(ar + br, 0);
            im = half_from_double(ai + bi, 0);
        } else {  // every product of two binary16 values is exact in double
            const double p1 = ar * br, p2 = ai * bi, p3 = ar * bi, p4 = ai * br;
            const double s = p1 - p2, t = p3 + p4;
            re = half_round(s, two_sum_err(p1, -p2, s));
            im = half_round(t, two_sum_err(p3, p4, t));
        }
        store<uint16_t>(b, re);
        store<uint16_t>(b + 2, im);
    });
}

// MPI_OFFSET's order: signed.
template <int Op> void int64_op(void *in, void *inout, int *len, MPI_Datatype *)
{
    each(in, inout, len, 8, [](const char *a, char *b) {
        const int64_t x = load<int64_t>(a), y = load<int64_t>(b);
        store<int64_t>(b, Op == o_min ? (x < y ? x : y) : (x > y ? x : y));
    });
}

// REAL(16) / COMPLEX(16) of gfortran: IEEE binary128 (__float128, GCC's soft-float).
template <int Op> void quad_op(void *in, void *inout, int *len, MPI_Datatype *)
{
    each(in, inout, len, 16, [](const char *a, char *b) {
        const __float128 x = load<__float128>(a), y = load<__float128>(b);
        __float128 r = y;
        switch (Op) {
        case o_sum: r = x + y; break;
        case o_prod: r = x * y; break;
        case o_min: r = x < y ? x : y; break;
        case o_max: r = x > y ? x : y; break;
        }
        store<__float128>(b, r);
    });
}
template <int Op> void cquad_op(void *in, void *inout, int *len, MPI_Datatype *)
{
    each(in, inout, len, 32, [](const char *a, char *b) {
        const __float128 ar = load<__float128>(a), ai = load<__float128>(a + 16);
        const __float128 br = load<__float128>(b), bi = load<__float128>(b + 16);
        if (Op == o_sum) {
            store<__float128>(b, ar + br);
            store<__float128>(b + 16, ai + bi);
        } else {
            store<__float128>(b, ar * br - ai * bi);
            store<__float128>(b + 16, ar * bi + ai * br);
        }
    });
}

// ---------------------------------------------------------------- the table
enum elem : uint8_t { el_logical, el_int128, el_half, el_chalf, el_quad, el_cquad, el_offset };
struct desc {
    uintptr_t abi;
    const char *name;
    int size;
    uintptr_t base;  // the native basic type of the same size (ABI handle; one per type); 0: never emulated
    elem kind;
    int typeclass;   // for MPI_Type_match_size
};
const desc descs[] = {
    {ABI_LOGICAL1, "MPI_LOGICAL1", 1, ABI_INT8_T, el_logical, ABI_TYPECLASS_LOGICAL},
    {ABI_LOGICAL2, "MPI_LOGICAL2", 2, ABI_INT16_T, el_logical, ABI_TYPECLASS_LOGICAL},
    {ABI_LOGICAL4, "MPI_LOGICAL4", 4, ABI_INT32_T, el_logical, ABI_TYPECLASS_LOGICAL},
    {ABI_LOGICAL8, "MPI_LOGICAL8", 8, ABI_INT64_T, el_logical, ABI_TYPECLASS_LOGICAL},
    {ABI_LOGICAL16, "MPI_LOGICAL16", 16, ABI_C_DOUBLE_COMPLEX, el_logical, ABI_TYPECLASS_LOGICAL},
    {ABI_INTEGER16, "MPI_INTEGER16", 16, ABI_CXX_DOUBLE_COMPLEX, el_int128, ABI_TYPECLASS_INTEGER},
    {ABI_REAL2, "MPI_REAL2", 2, ABI_UINT16_T, el_half, ABI_TYPECLASS_REAL},
    {ABI_COMPLEX4, "MPI_COMPLEX4", 4, ABI_UINT32_T, el_chalf, ABI_TYPECLASS_COMPLEX},
    {ABI_REAL16, "MPI_REAL16", 16, 0, el_quad, ABI_TYPECLASS_REAL},
    {ABI_COMPLEX32, "MPI_COMPLEX32", 32, 0, el_cquad, ABI_TYPECLASS_COMPLEX},
    {ABI_OFFSET, "MPI_OFFSET", 8, 0, el_offset, 0},  // MIN/MAX where the probe says so
};
constexpr int ndescs = int(sizeof descs / sizeof descs[0]);

using user_fn = void(void *, void *, int *, MPI_Datatype *);

template <class T> user_fn *logical_fn(int ix)
{
    switch (ix) {
    case o_land: return &logical_op<T, o_land>;
    case o_lor: return &logical_op<T, o_lor>;
    case o_lxor: return &logical_op<T, o_lxor>;
    default: return nullptr;
    }
}
// The native user function for op ix on a type, or nullptr where the standard does not define it.
user_fn *op_fn(const desc &d, int ix)
{
    switch (d.kind) {
    case el_logical:
        switch (d.size) {
        case 1: return logical_fn<uint8_t>(ix);
        case 2: return logical_fn<uint16_t>(ix);
        case 4: return logical_fn<uint32_t>(ix);
        case 8: return logical_fn<uint64_t>(ix);
        default: return logical_fn<unsigned __int128>(ix);
        }
    case el_int128:
        switch (ix) {
        case o_sum: return &int128_op<o_sum>;
        case o_prod: return &int128_op<o_prod>;
        case o_min: return &int128_op<o_min>;
        case o_max: return &int128_op<o_max>;
        case o_band: return &int128_op<o_band>;
        case o_bor: return &int128_op<o_bor>;
        case o_bxor: return &int128_op<o_bxor>;
        default: return nullptr;
        }
    case el_half:
        switch (ix) {
        case o_sum: return &half_op<o_sum>;
        case o_prod: return &half_op<o_prod>;
        case o_min: return &half_op<o_min>;
        case o_max: return &half_op<o_max>;
        default: return nullptr;
        }
    case el_chalf: return ix == o_sum ? &chalf_op<o_sum> : ix == o_prod ? &chalf_op<o_prod> : nullptr;
    case el_quad:
        switch (ix) {
        case o_sum: return &quad_op<o_sum>;
        case o_prod: return &quad_op<o_prod>;
        case o_min: return &quad_op<o_min>;
        case o_max: return &quad_op<o_max>;
        default: return nullptr;
        }
    case el_cquad: return ix == o_sum ? &cquad_op<o_sum> : ix == o_prod ? &cquad_op<o_prod> : nullptr;
    case el_offset: return ix == o_min ? &int64_op<o_min> : ix == o_max ? &int64_op<o_max> : nullptr;
    }
    return nullptr;
}

struct state {
    bool missing = false;                      // the native MPI lacks the handle (set at load)
    MPI_Datatype native = MPI_DATATYPE_NULL;   // while built
    std::atomic<uintptr_t> ops[o_count] = {};  // native ops made so far (bits; 0: none yet)
    char name[ABI_MAX_OBJECT_NAME] = "";       // what MPI_Type_get_name answers
};
state states[ndescs];
int8_t index_of[emu_types_count];  // descs index by ABI handle - emu_types_first, -1 for none

std::mutex emu_mutex;      // guards everything below and the building/release
bool world_active = false;  // between MPI_Init and MPI_Finalize
int sessions_open = 0;
bool built = false;
bool contents_copies = false;  // the native get_contents returns copies of derived types (Open MPI)
int emulated_inside_keyval = MPI_KEYVAL_INVALID;  // caches emulated_inside() on derived types
char inside_none;                                 // its "none" value (else &descs[i])

int index_for(uintptr_t abi)
{
    return abi - emu_types_first < emu_types_count ? index_of[abi - emu_types_first] : -1;
}

// Does the native MPI order MPI_OFFSET as signed in MPI_MIN?  (Open MPI 4.1.4 does not.)
bool native_offset_min_signed()
{
    MPI_Offset a = -5, b = 3;
    return MPI_Reduce_local(&a, &b, 1, MPI_OFFSET, MPI_MIN) == MPI_SUCCESS && b == -5;
}

// Builds the native types the MPI lacks (under emu_mutex, when the MPI has just started).
void build()
{
    for (int i = 0; i < ndescs; ++i) {
        const desc &d = descs[i];
        state &s = states[i];
        if (!s.missing) continue;
        MPI_Datatype t = MPI_DATATYPE_NULL;
        int rc = MPI_Type_create_resized(to_native(reinterpret_cast<abi_Datatype>(d.base)), 0, d.size, &t);
        if (rc == MPI_SUCCESS) rc = MPI_Type_set_name(t, const_cast<char *>(d.name));
        if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
        if (rc != MPI_SUCCESS) {  // stays the native MPI_DATATYPE_NULL: every use is MPI_ERR_TYPE
            if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
            continue;
        }
        s.native = t;
        std::snprintf(s.name, sizeof s.name, "%s", d.name);
        pre_to_native[d.abi] = bits(t);
        rev.insert(k_datatype, bits(t), uint16_t(d.abi));
        emu_on[d.abi - emu_first].store(true, std::memory_order_release);
    }
    emu_has_ops[ABI_OFFSET - emu_types_first] = !native_offset_min_signed();
    if (MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &emulated_inside_keyval, nullptr) !=
        MPI_SUCCESS)
        emulated_inside_keyval = MPI_KEYVAL_INVALID;
    built = true;
    // Does the native MPI_Type_get_contents return the component itself (with a reference
    // added, MPICH) or a copy of it (Open MPI)?
    for (int i = 0; i < ndescs; ++i) {
        if (states[i].native == MPI_DATATYPE_NULL) continue;
        MPI_Datatype c = MPI_DATATYPE_NULL, back = MPI_DATATYPE_NULL;
        int one = 0;
        if (MPI_Type_contiguous(1, states[i].native, &c) == MPI_SUCCESS) {
            if (MPI_Type_get_contents(c, 1, 0, 1, &one, nullptr, &back) == MPI_SUCCESS) {
                contents_copies = back != states[i].native;
                MPI_Type_free(&back);
            }
            MPI_Type_free(&c);
        }
        break;
    }
}

// Releases every native object made here (under emu_mutex, before the MPI stops).
void release()
{
    for (int i = 0; i < ndescs; ++i) {
        state &s = states[i];
        for (auto &o : s.ops) {
            uintptr_t b = o.exchange(0);
            if (b) {
                MPI_Op op = from_bits<MPI_Op>(b);
                MPI_Op_free(&op);
            }
        }
        if (s.native == MPI_DATATYPE_NULL) continue;
        emu_on[descs[i].abi - emu_first].store(false, std::memory_order_release);
        pre_to_native[descs[i].abi] = bits(MPI_DATATYPE_NULL);
        rev.erase(k_datatype, bits(s.native));
        MPI_Type_free(&s.native);
        s.native = MPI_DATATYPE_NULL;
    }
    if (emulated_inside_keyval != MPI_KEYVAL_INVALID) MPI_Type_free_keyval(&emulated_inside_keyval);
    built = false;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, in the reverse order of setting:
// this one, set in MPI_Init, goes last.
int world_ends(MPI_Comm, int keyval, void *, void *)
{
    std::lock_guard<std::mutex> g(emu_mutex);
    world_active = false;
    if (built && sessions_open == 0) release();
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

// A copy of one of the emulated types (built alike: resized(B, 0, size of B)): its descs
// index, or -1.
int copy_of(MPI_Datatype t)
{
    int ni = 0, na = 0, nd = 0, comb = MPI_UNDEFINED;
    if (MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS || comb != MPI_COMBINER_RESIZED || ni != 0 ||
        na != 2 || nd != 1)
        return -1;
    MPI_Aint bounds[2] = {-1, -1};
    MPI_Datatype base = MPI_DATATYPE_NULL;
    if (MPI_Type_get_contents(t, 0, 2, 1, nullptr, bounds, &base) != MPI_SUCCESS) return -1;
    int found = -1;
    for (int i = 0; i < ndescs; ++i)
        if (states[i].native != MPI_DATATYPE_NULL && bounds[0] == 0 && bounds[1] == descs[i].size &&
            base == to_native(reinterpret_cast<abi_Datatype>(descs[i].base)))
            found = i;
    if (found < 0 && MPI_Type_get_envelope(base, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED)
        MPI_Type_free(&base);  // derived: not one of ours (whose base is predefined)
    return found;
}

// Is t the native MPI's stand-in for an emulated etype or filetype in MPI_File_get_view?  ROMIO
// keeps MPI_Type_contiguous(1, etype) and returns contiguous(1) of that; OMPIO returns a
// duplicate of its own duplicate: so t may wrap one of ours (or a copy of it) in MPI_Type_dup
// layers and at most two contiguous(1) layers.  Its descs index, or -1.
int duplicate_of(MPI_Datatype t, int contiguous_layers = 0, int depth = 0)
{
    for (int i = 0; i < ndescs; ++i)
        if (states[i].native != MPI_DATATYPE_NULL && t == states[i].native) return i;
    // MPICH hands back references: only Open MPI's copies need recognising by shape.
    const int copy = contents_copies ? copy_of(t) : -1;
    if (copy >= 0 || depth > 8) return copy;
    int ni = 0, na = 0, nd = 0, comb = MPI_COMBINER_NAMED, count = 0;
    if (MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS || nd != 1) return -1;
    if (comb == MPI_COMBINER_CONTIGUOUS) ++contiguous_layers;
    else if (comb != MPI_COMBINER_DUP) return -1;
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    if (contiguous_layers > 2 || MPI_Type_get_contents(t, ni, 0, 1, &count, nullptr, &inner) != MPI_SUCCESS) return -1;
    const int found = comb == MPI_COMBINER_CONTIGUOUS && count != 1 ? -1 : duplicate_of(inner, contiguous_layers, depth + 1);
    if (MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED)
        MPI_Type_free(&inner);  // a reference (MPICH) or a copy (Open MPI)
    return found;
}

// Which emulated type a native derived type is built from (descs index), or -1.  The answer is
// cached on the type in an attribute; the walk frees what MPI_Type_get_contents returns.
int emulated_inside(MPI_Datatype t, int depth)
{
    for (int i = 0; i < ndescs; ++i)
        if (states[i].native != MPI_DATATYPE_NULL && t == states[i].native) return i;
    int ni = 0, na = 0, nd = 0, comb = MPI_COMBINER_NAMED;
    if (depth > 64 || MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS || comb == MPI_COMBINER_NAMED) return -1;
    // The program's own type (depth 0) is never one of Open MPI's copies: a program may well
    // resize a type to its own extent itself.
    if (contents_copies && depth > 0) {
        const int i = copy_of(t);
        if (i >= 0) return i;
    }
    void *cached = nullptr;
    int flag = 0;
    if (emulated_inside_keyval != MPI_KEYVAL_INVALID &&
        MPI_Type_get_attr(t, emulated_inside_keyval, &cached, &flag) == MPI_SUCCESS && flag)
        return cached == &inside_none ? -1 : int(static_cast<const desc *>(cached) - descs);
    std::vector<int> ints(size_t(ni) + 1);
    std::vector<MPI_Aint> addrs(size_t(na) + 1);
    std::vector<MPI_Datatype> parts(size_t(nd) + 1, MPI_DATATYPE_NULL);
    int found = -1;
    if (MPI_Type_get_contents(t, ni, na, nd, ints.data(), addrs.data(), parts.data()) == MPI_SUCCESS) {
        for (int k = 0; k < nd; ++k) {
            if (found < 0) found = emulated_inside(parts[k], depth + 1);
            int pi = 0, pa = 0, pd = 0, c = MPI_COMBINER_NAMED;
            if (MPI_Type_get_envelope(parts[k], &pi, &pa, &pd, &c) == MPI_SUCCESS && c != MPI_COMBINER_NAMED)
                MPI_Type_free(&parts[k]);  // a reference (MPICH) or a copy (Open MPI)
        }
    }
    if (emulated_inside_keyval != MPI_KEYVAL_INVALID)
        MPI_Type_set_attr(t, emulated_inside_keyval, found < 0 ? static_cast<void *>(&inside_none)
                                                              : const_cast<desc *>(&descs[found]));
    return found;
}

}  // namespace

void emulated_types_at_load()
{
    for (auto &i : index_of) i = -1;
    for (int i = 0; i < ndescs; ++i) {
        const desc &d = descs[i];
        index_of[d.abi - emu_types_first] = int8_t(i);
        const uintptr_t n = pre_to_native[d.abi];
        states[i].missing = d.base != 0 && (n == 0 || n == bits(MPI_DATATYPE_NULL));
        emu_has_ops[d.abi - emu_types_first] = d.kind != el_offset;  // MPI_OFFSET: after the probe
        // Until it is built (and after it is released) the handle is the native null
        // datatype: the MPI reports MPI_ERR_TYPE instead of following a null pointer.
        if (states[i].missing) pre_to_native[d.abi] = bits(MPI_DATATYPE_NULL);
    }
}

void emulated_types_world_init()
{
    std::lock_guard<std::mutex> g(emu_mutex);
    if (world_active) return;
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, world_ends, &keyval, nullptr) != MPI_SUCCESS) return;
    if (MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr) != MPI_SUCCESS) {
        MPI_Comm_free_keyval(&keyval);
        return;
    }
    world_active = true;
    if (!built) build();
}

bool emulated_op_lookup(uintptr_t op, uintptr_t type, MPI_Op *out)
{
    const int i = index_for(type);
    if (i < 0 || op >= 0x400) return false;  // not ours, or a user op: as it is
    const desc &d = descs[i];
    state &s = states[i];
    if (d.base != 0 && !emu_on[type - emu_first].load(std::memory_order_acquire)) return false;  // native
    if (d.base == 0 && pre_to_native[type] == bits(MPI_DATATYPE_NULL)) return false;  // the MPI lacks it
    const int ix = op_index(op);
    user_fn *fn = ix < 0 ? nullptr : op_fn(d, ix);
    if (!fn) {
        if (d.base == 0) return false;  // a native type: the native MPI judges the op
        *out = MPI_OP_NULL;             // not defined on the type: the MPI reports MPI_ERR_OP
        return true;
    }
    uintptr_t b = s.ops[ix].load(std::memory_order_acquire);
    if (!b) {
        std::lock_guard<std::mutex> g(emu_mutex);
        b = s.ops[ix].load(std::memory_order_relaxed);
        if (!b) {
            MPI_Op n = MPI_OP_NULL;
            if (MPI_Op_create(fn, 1, &n) != MPI_SUCCESS) return false;
            b = bits(n);
            s.ops[ix].store(b, std::memory_order_release);
        }
    }
    *out = from_bits<MPI_Op>(b);
    return true;
}

int emulated_type_envelope(int *ni, int *na, int *nd, int *combiner)
{
    if (!ni || !na || !nd || !combiner)
        return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Type_get_envelope: an output argument is NULL");
    *ni = *na = *nd = 0;
    *combiner = ABI_COMBINER_NAMED;
    return 0;
}
int emulated_type_envelope_c(abi_Count *ni, abi_Count *na, abi_Count *nc, abi_Count *nd, int *combiner)
{
    if (!ni || !na || !nc || !nd || !combiner)
        return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Type_get_envelope_c: an output argument is NULL");
    *ni = *na = *nc = *nd = 0;
    *combiner = ABI_COMBINER_NAMED;
    return 0;
}

int emulated_type_refuse(abi_Datatype t, const char *fn, const char *why)
{
    const int i = index_for(reinterpret_cast<uintptr_t>(t));
    char msg[256];
    std::snprintf(msg, sizeof msg, "%s: %s is a predefined datatype, %s", fn, i < 0 ? "the datatype" : descs[i].name, why);
    return raise_error(errh_none(), ABI_ERR_TYPE, msg);
}

int emulated_acc_refused_slow(const char *fn, errh_obj o, abi_Datatype t)
{
    int i = index_for(reinterpret_cast<uintptr_t>(t));
    if (!is_emulated_type(t)) {  // a derived type: built from an emulated one?
        std::lock_guard<std::mutex> g(emu_mutex);
        if (!built || (i = emulated_inside(to_native(t), 0)) < 0) return 0;
    }
    char msg[320];
    std::snprintf(msg, sizeof msg,
                  "%s: %s%s is emulated by anympi (the MPI underneath lacks it): one-sided accumulation takes it "
                  "only with MPI_REPLACE or MPI_NO_OP",
                  fn, is_emulated_type(t) ? "" : "the datatype is built from ", descs[i].name);
    return raise_error(o, ABI_ERR_TYPE, msg);
}

void emulated_types_fix_returned_from(abi_Datatype *types, long long k, long long n)
{
    std::lock_guard<std::mutex> g(emu_mutex);
    if (!built) return;
    for (; k < n; ++k) {
        if (is_emulated_type(types[k])) {  // the native handle itself, with a reference added
            MPI_Datatype t = to_native(types[k]);
            if (!contents_copies) MPI_Type_free(&t);
            continue;
        }
        if (!contents_copies || reinterpret_cast<uintptr_t>(types[k]) < 0x400) continue;
        MPI_Datatype t = to_native(types[k]);
        const int i = copy_of(t);
        if (i < 0) continue;
        MPI_Type_free(&t);
        types[k] = reinterpret_cast<abi_Datatype>(descs[i].abi);
    }
}

}  // namespace anympi::backend

using namespace anympi::backend;

// ---------------------------------------------------------------- the functions answered here
ANYMPI_MANUAL(MPI_Type_get_name, forwarded, "an emulated predefined datatype (MPI_REAL2 ...) answers its standard name (emulated_types.cpp)")
{
    if (!is_emulated_type(datatype)) return err_out(object_get_name<k_datatype>(bits(to_native(datatype)), type_name, resultlen));
    if (!type_name || !resultlen) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Type_get_name: type_name or resultlen is NULL");
    std::lock_guard<std::mutex> g(emu_mutex);
    const state &s = states[index_for(reinterpret_cast<uintptr_t>(datatype))];
    const int n = int(std::strlen(s.name));
    std::memcpy(type_name, s.name, size_t(n) + 1);
    *resultlen = n;
    return 0;
}

ANYMPI_MANUAL(MPI_Type_set_name, forwarded, "an emulated predefined datatype keeps its name in anympi, as the MPIs do for their own (emulated_types.cpp)")
{
    if (!is_emulated_type(datatype)) return err_out(object_set_name<k_datatype>(bits(to_native(datatype)), type_name));
    if (!type_name) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Type_set_name: type_name is NULL");
    std::lock_guard<std::mutex> g(emu_mutex);
    state &s = states[index_for(reinterpret_cast<uintptr_t>(datatype))];
    std::snprintf(s.name, sizeof s.name, "%s", type_name);
    return 0;
}

ANYMPI_MANUAL(MPI_Type_match_size, forwarded, "MPIX_TYPECLASS_LOGICAL (MPI-5.0) and the sizes only an emulated type has (MPI_REAL2 ...) are answered by anympi")
{
    if (!datatype) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Type_match_size: datatype is NULL");
    for (int i = 0; i < ndescs; ++i) {
        const desc &d = descs[i];
        if (d.typeclass != typeclass || d.size != size) continue;
        // MPI_LOGICALn for the class the MPIs lack; for the others, what the MPI lacks
        if (typeclass == ABI_TYPECLASS_LOGICAL || is_emulated_type(reinterpret_cast<abi_Datatype>(d.abi))) {
            *datatype = reinterpret_cast<abi_Datatype>(d.abi);
            return 0;
        }
    }
    if (typeclass == ABI_TYPECLASS_LOGICAL) {
        char msg[128];
        std::snprintf(msg, sizeof msg, "MPI_Type_match_size: no logical datatype has size %d", size);
        return raise_error(errh_none(), ABI_ERR_ARG, msg);
    }
    return err_out(MPI_Type_match_size(cin<cat::typeclass>(typeclass), size, c_hout(datatype)));
}

ANYMPI_MANUAL(MPI_File_get_view, forwarded, "an emulated predefined etype or filetype (MPI_REAL2 ...) comes back as itself, not as the MPI's duplicate of its stand-in (emulated_types.cpp); under a registered data representation, its name and the caller's types (datarep.cpp)")
{
    int rc = 0;
    if (datarep_get_view(fh, disp, etype, filetype, datarep, &rc)) return rc;  // a registered representation
    rc = MPI_File_get_view(to_native(fh), c_disp_out(disp), c_hout(etype), c_hout(filetype), datarep);
    if (rc != MPI_SUCCESS) return err_out(rc);
    std::lock_guard<std::mutex> g(emu_mutex);
    for (abi_Datatype *p : {etype, filetype}) {
        if (!built || !p || reinterpret_cast<uintptr_t>(*p) < 0x400) continue;
        MPI_Datatype t = to_native(*p);
        const int i = duplicate_of(t);
        if (i < 0) continue;
        MPI_Type_free(&t);  // the caller does not free a predefined type
        *p = reinterpret_cast<abi_Datatype>(descs[i].abi);
    }
    return 0;
}

// MPI_Session_init / MPI_Session_finalize (sessions.cpp): the first session (or MPI_Init)
// builds the types; the last session, when MPI_Init's world is not active, releases them
// before the MPI would report them as leaked.
void anympi::backend::emulated_types_session_started()
{
    std::lock_guard<std::mutex> g(emu_mutex);
    ++sessions_open;
    if (!built) past_direct_handles(build);
}
void anympi::backend::emulated_types_session_ending()
{
    std::lock_guard<std::mutex> g(emu_mutex);
    if (sessions_open == 1 && !world_active && built) release();
}
void anympi::backend::emulated_types_session_ended(bool finalized)
{
    std::lock_guard<std::mutex> g(emu_mutex);
    if (finalized) {
        if (sessions_open > 0) --sessions_open;
    } else if (!built && (sessions_open > 0 || world_active)) {
        past_direct_handles(build);  // the session is still there (a bad handle, say): so are the types
    }
}
