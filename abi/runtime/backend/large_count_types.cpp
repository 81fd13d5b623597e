// The large-count datatype constructors (MPI_Type_contiguous_c ... MPI_Type_create_darray_c)
// where the MPI underneath has none (Open MPI 4.1); forwarded where it has them (MPICH 4.0).
//
// The type: the int constructor while every count fits; past INT_MAX, the same type map built
// from int-sized pieces -- n copies of a type at a stride as chunks of 2^30 (repeat, in
// large_counts.cpp), a block longer than INT_MAX as one element of such a type, displacements
// in elements as bytes, a darray's distribution computed here -- resized to the bounds the
// constructor gives.
//
// Its envelope and contents: those of the _c call, as an MPI with these constructors answers
// (MPICH 4.0: every count, blocklength, stride and displacement a large count, constants as
// integers), whichever way it was built.  So a type made here is recorded with its
// arguments; MPI_Type_get_envelope_c and MPI_Type_get_contents_c
// answer from the record, and the int forms refuse it (MPI_ERR_TYPE), as MPICH does: its
// counts are large counts, which they cannot return.  The record keeps a duplicate of every
// derived datatype the call took, so the program may free its own; get_contents returns a new
// copy of each (the duplicate's own contents, which the MPI copies), which the caller frees, as
// the standard says of derived datatypes.
//
// A record lives exactly as long as the native datatype, not its handle: the program's
// MPI_Type_free leaves the object alive while a duplicate, a type built on it, a handle from
// MPI_Type_get_contents or a pending operation still holds it, and any of these may ask for
// its contents.  So the record is tied to an attribute of anympi's on the native type, whose
// delete callback the MPI runs when the object itself goes (Open MPI: in its destructor).
// The derived datatypes MPI_Type_get_contents hands out are new copies the MPI makes; a copy of
// a recorded type answers the same record: for a type recorded here through the record's
// members, for one an int constructor or MPI_Type_dup built (c_hout_built, in the generated
// wrappers) through what is known of the types it was built on, noted when it was built -- at
// any depth: dup(dup(c)) taken apart twice reaches c's record.
#include "callbacks.hpp"
#include "large_counts.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

using namespace anympi::backend;

#if !ANYMPI_HAVE_MPI_Type_contiguous_c
namespace anympi::backend {
std::atomic<bool> made_by_c_any{false};
namespace {

struct made_type;
using made_ref = std::shared_ptr<const made_type>;
// What anympi knows of a native datatype: the record it answers (a type of the _c
// constructors, or a copy of one the MPI handed out), and what is known of the datatypes it
// was built on, by position (an int constructor or MPI_Type_dup over such a type, at any
// depth).  Shared: the MPI's copies of a type answer the same.  Dropped only outside
// made_mutex, since the last reference frees a record's duplicates, which may end other entries.
struct entry {
    made_ref self;
    std::vector<std::shared_ptr<const entry>> members;
};
using entry_ref = std::shared_ptr<const entry>;

struct made_type {
    int combiner = 0;                 // the ABI's
    std::vector<int> ints;            // as the program gave them (ABI constants)
    std::vector<MPI_Count> counts;    // the large counts, in the standard's order
    std::vector<MPI_Datatype> types;  // native; derived ones are duplicates of ours
    std::vector<entry_ref> members;   // what is known of types[i], if anything
    made_type() = default;
    made_type(const made_type &) = delete;
    made_type &operator=(const made_type &) = delete;
    ~made_type()
    {
        for (MPI_Datatype &t : types)
            if (t != MPI_DATATYPE_NULL && bits(to_abi<abi_Datatype>(t)) >= 0x400) MPI_Type_free(&t);
    }
};
std::mutex made_mutex;
// By native handle (guarded).  Never destroyed: at exit the MPI is finalized, and the end of a
// record frees native datatypes (the duplicates it holds).
std::unordered_map<uintptr_t, entry_ref> &made = *new std::unordered_map<uintptr_t, entry_ref>;
int made_keyval = MPI_KEYVAL_INVALID;      // the attribute that ends an entry (guarded)

bool is_predefined(MPI_Datatype t) { return bits(to_abi<abi_Datatype>(t)) < 0x400; }

// The native object t is going: its entry with it.  Run by the MPI, possibly from inside the
// release of another record's duplicates.
int made_type_deleted(MPI_Datatype t, int, void *, void *)
{
    entry_ref gone;
    std::lock_guard<std::mutex> g(made_mutex);
    const auto it = made.find(bits(t));
    if (it == made.end()) return MPI_SUCCESS;
    gone = std::move(it->second);
    made.erase(it);
    return MPI_SUCCESS;  // the lock is released before `gone` is destroyed
}

// Ties e to the new native object t.  False when the MPI refuses the attribute.
bool tie(MPI_Datatype t, entry_ref e)
{
    entry_ref was;  // dropped after the lock
    std::unique_lock<std::mutex> g(made_mutex);
    if (const auto it = made.find(bits(t)); it != made.end()) {  // already tied: never for a new object
        const entry &old = *it->second;
        if ((!old.self && e->self) || (old.members.empty() && !e->members.empty())) {
            was = it->second;
            it->second = std::make_shared<const entry>(
                entry{old.self ? old.self : e->self, old.members.empty() ? e->members : old.members});
        }
        g.unlock();
        return true;
    }
    if (made_keyval == MPI_KEYVAL_INVALID &&
        MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, made_type_deleted, &made_keyval, nullptr) != MPI_SUCCESS)
        made_keyval = MPI_KEYVAL_INVALID;
    if (made_keyval == MPI_KEYVAL_INVALID || MPI_Type_set_attr(t, made_keyval, nullptr) != MPI_SUCCESS) {
        g.unlock();
        return false;  // e goes outside the lock
    }
    made[bits(t)] = std::move(e);
    made_by_c_any.store(true, std::memory_order_release);
    return true;
}

entry_ref entry_of(MPI_Datatype t)
{
    std::lock_guard<std::mutex> g(made_mutex);
    const auto it = made.find(bits(t));
    return it == made.end() ? nullptr : it->second;
}
made_ref record_of(MPI_Datatype t)
{
    const entry_ref e = entry_of(t);
    return e ? e->self : nullptr;
}

// Records what the call that made t was given.  A failure to hold a datatype or to tie the
// record to t leaves t made but unrecorded: it then answers its native envelope.
void record(MPI_Datatype t, int combiner, std::vector<int> ints, std::vector<MPI_Count> counts,
            const MPI_Datatype *types, long ntypes)
{
    auto m = std::make_shared<made_type>();
    m->combiner = combiner;
    m->ints = std::move(ints);
    m->counts = std::move(counts);
    for (long i = 0; i < ntypes; ++i) {
        MPI_Datatype held = types[i];
        quiet_copies q;  // the program's attributes stay on its type (callbacks.hpp)
        if (!is_predefined(held) && MPI_Type_dup(types[i], &held) != MPI_SUCCESS) return;
        m->types.push_back(held);
        m->members.push_back(made_by_c_any.load(std::memory_order_acquire) ? entry_of(types[i]) : nullptr);
    }
    tie(t, std::make_shared<const entry>(entry{std::move(m), {}}));
}

bool fits(MPI_Count v) { return v >= INT_MIN && v <= INT_MAX; }
bool all_fit(const abi_Count *a, MPI_Count n)
{
    for (MPI_Count i = 0; a && i < n; ++i)
        if (!fits(a[i])) return false;
    return true;
}

// bl elements of t as one block: t itself (blocklength bl) where bl is an int, else one
// element of a type made of them.
struct block {
    MPI_Datatype type = MPI_DATATYPE_NULL, made = MPI_DATATYPE_NULL;
    int length = 0;
    block() = default;
    block(const block &) = delete;  // it frees what it made
    block &operator=(const block &) = delete;
    int make(MPI_Count bl, MPI_Datatype t)
    {
        if (fits(bl)) {
            type = t, length = int(bl);
            return MPI_SUCCESS;
        }
        MPI_Aint lb, ext;
        int rc = MPI_Type_get_extent(t, &lb, &ext);
        if (rc == MPI_SUCCESS) rc = repeat(bl, ext, t, &made);
        type = made, length = 1;
        return rc;
    }
    ~block()
    {
        if (made != MPI_DATATYPE_NULL) MPI_Type_free(&made);
    }
};

// The bounds an hindexed or struct type of these blocks has (its type map's lowest and
// highest byte, without the alignment padding an MPI may add to a struct): blocks of length 0
// take no part.  false where every block is empty.
bool blocks_bounds(MPI_Count n, const abi_Count *bl, const MPI_Aint *disp, const MPI_Datatype *types, MPI_Aint *lb,
                   MPI_Aint *ub, int *rc)
{
    bool any = false;
    for (MPI_Count i = 0; i < n; ++i) {
        if (bl[i] == 0) continue;
        MPI_Aint l, e;
        if ((*rc = MPI_Type_get_extent(types[i], &l, &e)) != MPI_SUCCESS) return false;
        const MPI_Aint lo = disp[i] + l + (e < 0 ? MPI_Aint(bl[i] - 1) * e : 0);
        const MPI_Aint hi = disp[i] + l + e + (e > 0 ? MPI_Aint(bl[i] - 1) * e : 0);
        if (!any || lo < *lb) *lb = lo;
        if (!any || hi > *ub) *ub = hi;
        any = true;
    }
    return any;
}

// A struct of the blocks (bl[i] elements of types[i] at byte disp[i]) at the bounds the
// constructor gives them; count is an int here.
int blocks_type(MPI_Count n, const abi_Count *bl, const MPI_Aint *disp, const MPI_Datatype *types, MPI_Datatype *out)
{
    std::vector<block> blocks(static_cast<size_t>(n));
    std::vector<int> lens(static_cast<size_t>(n));
    std::vector<MPI_Datatype> ts(static_cast<size_t>(n));
    int rc = MPI_SUCCESS;
    for (MPI_Count i = 0; i < n && rc == MPI_SUCCESS; ++i) {
        rc = blocks[size_t(i)].make(bl[i], types[i]);
        lens[size_t(i)] = blocks[size_t(i)].length;
        ts[size_t(i)] = blocks[size_t(i)].type;
    }
    if (rc != MPI_SUCCESS) return rc;
    MPI_Aint lb = 0, ub = 0;
    const bool bounded = blocks_bounds(n, bl, disp, types, &lb, &ub, &rc);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Datatype s = MPI_DATATYPE_NULL;
    rc = MPI_Type_create_struct(int(n), lens.data(), const_cast<MPI_Aint *>(disp), ts.data(), &s);
    if (rc != MPI_SUCCESS || !bounded) {
        *out = s;
        return rc;
    }
    rc = MPI_Type_create_resized(s, lb, ub - lb, out);
    MPI_Type_free(&s);
    return rc;
}

// The error of a call given a bad argument: "<function>: <what is wrong>".
int bad(const char *fn, int abi_class, const char *what)
{
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s: %s", fn, what);
    return raise_error(errh_none(), abi_class, msg);
}
int too_many(const char *fn, const char *what)
{
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s past INT_MAX, which this MPI's int constructors cannot take", what);
    return bad(fn, ABI_ERR_COUNT, msg);
}

// The end of every constructor: the native result, recorded, handed back.
int made_as(int rc, MPI_Datatype t, abi_Datatype *newtype, int combiner, std::vector<int> ints,
            std::vector<MPI_Count> counts, const MPI_Datatype *types, long ntypes)
{
    if (rc != MPI_SUCCESS) {
        if (newtype) *newtype = reinterpret_cast<abi_Datatype>(ABI_DATATYPE_NULL);
        return err_out(rc);
    }
    record(t, combiner, std::move(ints), std::move(counts), types, ntypes);
    *newtype = to_abi<abi_Datatype>(t);
    return 0;
}

int null_output(const char *fn) { return bad(fn, ABI_ERR_ARG, "newtype is NULL"); }

std::vector<MPI_Count> counts_of(MPI_Count n, std::initializer_list<const abi_Count *> arrays, MPI_Count lead)
{
    std::vector<MPI_Count> v{lead};
    for (const abi_Count *a : arrays)
        for (MPI_Count i = 0; i < n; ++i) v.push_back(a[i]);
    return v;
}

// count blocks of bl[i] elements of old at element displacements (scale: the extent of old)
// or byte ones (scale 0): MPI_Type_indexed_c, _create_hindexed_c and their _block forms.
int indexed(const char *fn, MPI_Count count, const abi_Count *bl, MPI_Count one_bl, const abi_Count *disp,
            abi_Datatype oldtype, abi_Datatype *newtype, bool bytes, int combiner)
{
    if (!newtype) return null_output(fn);
    if (count < 0) return bad(fn, ABI_ERR_COUNT, "count is negative");
    if (!fits(count)) return too_many(fn, "a count of blocks");
    if (count > 0 && (!disp || (!bl && one_bl < 0)))
        return bad(fn, disp ? ABI_ERR_COUNT : ABI_ERR_ARG, disp ? "blocklength is negative" : "an array is NULL");
    const MPI_Datatype old = to_native(oldtype);
    std::vector<abi_Count> lens(static_cast<size_t>(count), one_bl);
    if (bl) lens.assign(bl, bl + count);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc;
    if (all_fit(lens.data(), count) && (bytes || all_fit(disp, count))) {
        std::vector<int> il(lens.begin(), lens.end());
        if (bytes) {
            std::vector<MPI_Aint> d(disp, disp + count);
            rc = MPI_Type_create_hindexed(int(count), il.data(), d.data(), old, &t);
        } else {
            std::vector<int> d(disp, disp + count);
            rc = MPI_Type_indexed(int(count), il.data(), d.data(), old, &t);
        }
    } else {
        MPI_Aint lb, ext;
        rc = MPI_Type_get_extent(old, &lb, &ext);
        std::vector<MPI_Aint> d(static_cast<size_t>(count));
        for (MPI_Count i = 0; i < count; ++i) d[size_t(i)] = bytes ? MPI_Aint(disp[i]) : MPI_Aint(disp[i]) * ext;
        std::vector<MPI_Datatype> ts(static_cast<size_t>(count), old);
        if (rc == MPI_SUCCESS) rc = blocks_type(count, lens.data(), d.data(), ts.data(), &t);
    }
    std::vector<MPI_Count> counts =
        bl ? counts_of(count, {bl, disp}, count) : counts_of(count, {disp}, count);
    if (!bl) counts.insert(counts.begin() + 1, one_bl);
    return made_as(rc, t, newtype, combiner, {}, std::move(counts), &old, 1);
}

// count blocks of bl elements of old, block i at byte i * stride: MPI_Type_vector_c and
// MPI_Type_create_hvector_c.
int strided(const char *fn, MPI_Count count, MPI_Count bl, MPI_Count stride, abi_Datatype oldtype,
            abi_Datatype *newtype, bool bytes, int combiner)
{
    if (!newtype) return null_output(fn);
    const MPI_Datatype old = to_native(oldtype);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc;
    if (fits(count) && fits(bl) && (bytes || fits(stride))) {
        rc = bytes ? MPI_Type_create_hvector(int(count), int(bl), MPI_Aint(stride), old, &t)
                   : MPI_Type_vector(int(count), int(bl), int(stride), old, &t);
    } else if (count < 0 || bl < 0) {
        return bad(fn, ABI_ERR_COUNT, "count or blocklength is negative");
    } else {
        MPI_Aint lb, ext;
        rc = MPI_Type_get_extent(old, &lb, &ext);
        block b;
        if (rc == MPI_SUCCESS) rc = b.make(bl, old);
        MPI_Datatype one = MPI_DATATYPE_NULL;  // the block as one element
        quiet_copies q;
        if (rc == MPI_SUCCESS) rc = b.length == 1 ? MPI_Type_dup(b.type, &one) : MPI_Type_contiguous(b.length, old, &one);
        if (rc == MPI_SUCCESS) rc = repeat(count, bytes ? MPI_Aint(stride) : MPI_Aint(stride) * ext, one, &t);
        if (one != MPI_DATATYPE_NULL) MPI_Type_free(&one);
    }
    return made_as(rc, t, newtype, combiner, {}, {count, bl, stride}, &old, 1);
}

struct owned_type {  // frees what it holds unless released
    MPI_Datatype t = MPI_DATATYPE_NULL;
    owned_type() = default;
    owned_type(const owned_type &) = delete;
    owned_type &operator=(const owned_type &) = delete;
    ~owned_type()
    {
        if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
    }
};

// The indices of one dimension an array type takes: n runs of len, run j at first + j * step,
// then a run of tail_len at tail -- a subarray's one run, a darray's distribution.
struct index_runs {
    MPI_Count first = 0, len = 0, step = 0, n = 0, tail = 0, tail_len = 0;
};

// A subarray or darray past INT_MAX, built as its type map from the fastest dimension out:
// each index runs_of(d) takes is a copy of the dimensions inside it (repeat), each level
// resized to its dimension's whole extent.  So the elements come in increasing address order,
// as the standard's definitions list them, and the extent is the whole array's.
template <class Runs>
int array_type(int ndims, const abi_Count *sizes, int order, MPI_Datatype old, Runs runs_of, MPI_Datatype *out)
{
    MPI_Aint lb = 0, stride = 0;  // stride: the extent of one index of the dimension at hand
    if (int rc = MPI_Type_get_extent(old, &lb, &stride)) return rc;
    owned_type inner;  // the dimensions done so far (old itself at first)
    MPI_Datatype level = old;
    for (int k = 0; k < ndims; ++k) {
        const int d = order == ABI_ORDER_C ? ndims - 1 - k : k;
        const index_runs r = runs_of(d);
        owned_type parts[2];
        MPI_Aint at[2];
        int np = 0, rc = MPI_SUCCESS;
        if (r.n > 0) {
            owned_type run;
            rc = repeat(r.len, stride, level, &run.t);
            if (rc == MPI_SUCCESS) rc = repeat(r.n, MPI_Aint(r.step) * stride, run.t, &parts[np].t);
            at[np++] = MPI_Aint(r.first) * stride;
        }
        if (rc == MPI_SUCCESS && r.tail_len > 0) {
            rc = repeat(r.tail_len, stride, level, &parts[np].t);
            at[np++] = MPI_Aint(r.tail) * stride;
        }
        owned_type placed, next;
        int ones[2] = {1, 1};
        MPI_Datatype types[2] = {parts[0].t, parts[1].t};
        if (rc == MPI_SUCCESS) rc = MPI_Type_create_struct(np, ones, at, types, &placed.t);
        if (rc == MPI_SUCCESS) rc = MPI_Type_create_resized(placed.t, 0, MPI_Aint(sizes[d]) * stride, &next.t);
        if (rc != MPI_SUCCESS) return rc;
        std::swap(inner.t, next.t);  // next frees the level below
        level = inner.t;
        stride *= MPI_Aint(sizes[d]);
    }
    *out = inner.t;
    inner.t = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

// A darray whose global sizes pass INT_MAX: in each dimension the indices this process owns --
// all of them (none), one run (block), runs of darg at a stride of darg * psize and a shorter
// last one (cyclic).  0, or the error with *why naming the argument.
int darray_pieces(int size, int rank, int ndims, const abi_Count *gsizes, const int *distribs, const int *dargs,
                  const int *psizes, int order, MPI_Datatype old, MPI_Datatype *out, const char **why)
{
    *why = nullptr;
    auto refuse = [why](const char *what) { *why = what; return MPI_ERR_ARG; };
    if (!distribs || !dargs || !psizes) return refuse("array_of_distribs, array_of_dargs or array_of_psizes is NULL");
    if (order != ABI_ORDER_C && order != ABI_ORDER_FORTRAN) return refuse("order is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN");
    long long procs = 1;
    for (int d = 0; d < ndims; ++d) {
        if (gsizes[d] <= 0) return refuse("a global size is not positive");
        if (psizes[d] <= 0) return refuse("a process grid size is not positive");
        if (distribs[d] != ABI_DISTRIBUTE_NONE && distribs[d] != ABI_DISTRIBUTE_BLOCK && distribs[d] != ABI_DISTRIBUTE_CYCLIC)
            return refuse("a distribution is not MPI_DISTRIBUTE_NONE, _BLOCK or _CYCLIC");
        if (distribs[d] == ABI_DISTRIBUTE_NONE && psizes[d] != 1)
            return refuse("a dimension of MPI_DISTRIBUTE_NONE has a process grid size other than 1");
        if (dargs[d] != ABI_DISTRIBUTE_DFLT_DARG && dargs[d] <= 0)
            return refuse("a distribution argument is neither positive nor MPI_DISTRIBUTE_DFLT_DARG");
        if (distribs[d] == ABI_DISTRIBUTE_BLOCK && dargs[d] != ABI_DISTRIBUTE_DFLT_DARG &&
            MPI_Count(dargs[d]) * psizes[d] < gsizes[d])
            return refuse("a block distribution argument times its process grid size is less than the global size");
        procs *= psizes[d];
    }
    if (procs != size) return refuse("the process grid sizes do not multiply to size");
    if (rank < 0 || rank >= size) return refuse("rank is not in [0, size)");
    std::vector<int> coord(static_cast<size_t>(ndims));
    for (int d = ndims - 1, r = rank; d >= 0; --d) coord[size_t(d)] = r % psizes[d], r /= psizes[d];
    return array_type(ndims, gsizes, order, old, [&](int d) {
        const MPI_Count g = gsizes[d];
        const int p = psizes[d], c = coord[size_t(d)];
        index_runs r;
        if (distribs[d] == ABI_DISTRIBUTE_NONE) {
            r.len = g, r.n = 1;
        } else if (distribs[d] == ABI_DISTRIBUTE_BLOCK) {
            const MPI_Count b = dargs[d] == ABI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : dargs[d];
            r.first = c * b;
            r.len = std::max<MPI_Count>(0, std::min(g, r.first + b) - r.first);
            r.n = r.len > 0;
        } else {
            const MPI_Count b = dargs[d] == ABI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d];
            r.first = c * b, r.step = b * p, r.len = b;
            if (r.first < g) {
                r.n = (g - 1 - r.first) / r.step + 1;
                const MPI_Count last = r.first + (r.n - 1) * r.step;
                if (g - last < b) r.tail = last, r.tail_len = g - last, --r.n;
            }
        }
        return r;
    }, out);
}

}  // namespace

bool made_by_c_find(MPI_Datatype t) { return record_of(t) != nullptr; }

bool made_by_c_envelope(MPI_Datatype t, abi_Count *ni, abi_Count *na, abi_Count *nc, abi_Count *nd, int *combiner)
{
    if (!made_by_c_any.load(std::memory_order_acquire)) return false;
    const made_ref m = record_of(t);
    if (!m) return false;
    *ni = abi_Count(m->ints.size());
    *na = 0;
    *nc = abi_Count(m->counts.size());
    *nd = abi_Count(m->types.size());
    *combiner = m->combiner;
    return true;
}

bool made_by_c_contents(MPI_Datatype t, abi_Count max_i, abi_Count max_a, abi_Count max_c, abi_Count max_d, int *ints,
                        abi_Count *counts, abi_Datatype *types, int *rc)
{
    (void)max_a;  // a large-count constructor has no address arguments
    if (!made_by_c_any.load(std::memory_order_acquire)) return false;
    const made_ref m = record_of(t);
    if (!m) return false;
    if (max_i < abi_Count(m->ints.size()) || max_c < abi_Count(m->counts.size()) ||
        max_d < abi_Count(m->types.size()) || (!ints && !m->ints.empty()) ||
        (!counts && !m->counts.empty()) || (!types && !m->types.empty())) {
        char msg[240];
        std::snprintf(msg, sizeof msg,
                      "MPI_Type_get_contents_c: the datatype has %zu integers, %zu large counts and %zu datatypes; "
                      "max_integers %lld, max_large_counts %lld, max_datatypes %lld (or an array is NULL)",
                      m->ints.size(), m->counts.size(), m->types.size(), static_cast<long long>(max_i),
                      static_cast<long long>(max_c), static_cast<long long>(max_d));
        *rc = raise_error(errh_none(), ABI_ERR_ARG, msg);
        return true;
    }
    for (size_t i = 0; i < m->types.size(); ++i) {
        MPI_Datatype out = m->types[i];
        if (!is_predefined(out)) {
            // The held duplicate's own contents: the MPI's new copy of the datatype the call
            // took (Open MPI copies every derived datatype it returns), made as that one was,
            // answering that one's record if it has one.
            if (int e = MPI_Type_get_contents(m->types[i], 0, 0, 1, nullptr, nullptr, &out)) {
                while (i-- > 0)
                    if (reinterpret_cast<uintptr_t>(types[i]) >= 0x400) {
                        MPI_Datatype n = to_native(types[i]);
                        MPI_Type_free(&n);
                    }
                *rc = err_out(e);
                return true;
            }
            if (m->members[i]) tie(out, m->members[i]);
        }
        types[i] = to_abi<abi_Datatype>(out);
    }
    std::copy(m->ints.begin(), m->ints.end(), ints);
    std::copy(m->counts.begin(), m->counts.end(), counts);
    *rc = 0;
    return true;
}

void made_by_c_built(MPI_Datatype t, const abi_Datatype *from, long n)
{
    std::vector<entry_ref> members(static_cast<size_t>(n > 0 ? n : 0));
    bool any = false;
    for (long i = 0; from && i < n; ++i) any |= (members[size_t(i)] = entry_of(to_native(from[i]))) != nullptr;
    if (any) tie(t, std::make_shared<const entry>(entry{nullptr, std::move(members)}));
}

void made_by_c_copies_of(MPI_Datatype t, const abi_Datatype *types, long n)
{
    const entry_ref e = entry_of(t);
    if (!e) return;
    for (long i = 0; types && i < n && size_t(i) < e->members.size(); ++i)
        if (e->members[size_t(i)] && reinterpret_cast<uintptr_t>(types[i]) >= 0x400)
            tie(to_native(types[i]), e->members[size_t(i)]);
}

}  // namespace anympi::backend
#endif

ANYMPI_MANUAL(MPI_Type_contiguous_c, fallback, "where the _c form is missing: the int form while the count fits, else chunks of 2^30 (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_contiguous_c
    return err_out(MPI_Type_contiguous_c(count, c_hin(oldtype), c_hout(newtype)));
#else
    if (!newtype) return null_output("MPI_Type_contiguous_c");
    const MPI_Datatype old = to_native(oldtype);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc;
    if (fits(count)) {
        rc = MPI_Type_contiguous(int(count), old, &t);
    } else {
        MPI_Aint lb, ext;
        rc = MPI_Type_get_extent(old, &lb, &ext);
        if (rc == MPI_SUCCESS) rc = repeat(count, ext, old, &t);
    }
    return made_as(rc, t, newtype, ABI_COMBINER_CONTIGUOUS, {}, {count}, &old, 1);
#endif
}

ANYMPI_MANUAL(MPI_Type_vector_c, fallback, "where the _c form is missing: the int form while every count fits, else an hvector of blocks in chunks of 2^30 (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_vector_c
    return err_out(MPI_Type_vector_c(count, blocklength, stride, c_hin(oldtype), c_hout(newtype)));
#else
    return strided("MPI_Type_vector_c", count, blocklength, stride, oldtype, newtype, false, ABI_COMBINER_VECTOR);
#endif
}

ANYMPI_MANUAL(MPI_Type_create_hvector_c, fallback, "where the _c form is missing: the int form while every count fits, else blocks in chunks of 2^30 (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_create_hvector_c
    return err_out(MPI_Type_create_hvector_c(count, blocklength, stride, c_hin(oldtype), c_hout(newtype)));
#else
    return strided("MPI_Type_create_hvector_c", count, blocklength, stride, oldtype, newtype, true, ABI_COMBINER_HVECTOR);
#endif
}

ANYMPI_MANUAL(MPI_Type_indexed_c, fallback, "where the _c form is missing: the int form while every count and displacement fits, else a struct of blocks at byte displacements (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_indexed_c
    return err_out(MPI_Type_indexed_c(count, c_i64p(array_of_blocklengths), c_i64p(array_of_displacements), c_hin(oldtype), c_hout(newtype)));
#else
    return indexed("MPI_Type_indexed_c", count, array_of_blocklengths, 0, array_of_displacements, oldtype, newtype, false,
                   ABI_COMBINER_INDEXED);
#endif
}

ANYMPI_MANUAL(MPI_Type_create_hindexed_c, fallback, "where the _c form is missing: the int form while every count fits, else a struct of blocks (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_create_hindexed_c
    return err_out(MPI_Type_create_hindexed_c(count, c_i64p(array_of_blocklengths), c_i64p(array_of_displacements), c_hin(oldtype), c_hout(newtype)));
#else
    return indexed("MPI_Type_create_hindexed_c", count, array_of_blocklengths, 0, array_of_displacements, oldtype,
                   newtype, true, ABI_COMBINER_HINDEXED);
#endif
}

ANYMPI_MANUAL(MPI_Type_create_indexed_block_c, fallback, "where the _c form is missing: the int form while every count and displacement fits, else a struct of blocks at byte displacements (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_create_indexed_block_c
    return err_out(MPI_Type_create_indexed_block_c(count, blocklength, c_i64p(array_of_displacements), c_hin(oldtype), c_hout(newtype)));
#else
    return indexed("MPI_Type_create_indexed_block_c", count, nullptr, blocklength, array_of_displacements, oldtype,
                   newtype, false, ABI_COMBINER_INDEXED_BLOCK);
#endif
}

ANYMPI_MANUAL(MPI_Type_create_hindexed_block_c, fallback, "where the _c form is missing: the int form while every count fits, else a struct of blocks (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_create_hindexed_block_c
    return err_out(MPI_Type_create_hindexed_block_c(count, blocklength, c_i64p(array_of_displacements), c_hin(oldtype), c_hout(newtype)));
#else
    return indexed("MPI_Type_create_hindexed_block_c", count, nullptr, blocklength, array_of_displacements, oldtype,
                   newtype, true, ABI_COMBINER_HINDEXED_BLOCK);
#endif
}

ANYMPI_MANUAL(MPI_Type_create_struct_c, fallback, "where the _c form is missing: the int form while every count fits, else blocks past INT_MAX as one element each (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_create_struct_c
    return err_out(MPI_Type_create_struct_c(count, c_i64p(array_of_blocklengths), c_i64p(array_of_displacements),
                                            c_harr_in(array_of_types, count), c_hout(newtype)));
#else
    static const char fn[] = "MPI_Type_create_struct_c";
    if (!newtype) return null_output(fn);
    if (count < 0) return bad(fn, ABI_ERR_COUNT, "count is negative");
    if (!fits(count)) return too_many(fn, "a count of blocks");
    std::vector<MPI_Datatype> ts(static_cast<size_t>(count));
    for (MPI_Count i = 0; i < count; ++i) ts[size_t(i)] = to_native(array_of_types[i]);
    std::vector<MPI_Aint> d(array_of_displacements, array_of_displacements + count);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc;
    if (all_fit(array_of_blocklengths, count)) {
        std::vector<int> il(array_of_blocklengths, array_of_blocklengths + count);
        rc = MPI_Type_create_struct(int(count), il.data(), d.data(), ts.data(), &t);
    } else {
        rc = blocks_type(count, array_of_blocklengths, d.data(), ts.data(), &t);
    }
    return made_as(rc, t, newtype, ABI_COMBINER_STRUCT, {},
                   counts_of(count, {array_of_blocklengths, array_of_displacements}, count), ts.data(), long(count));
#endif
}

ANYMPI_MANUAL(MPI_Type_create_resized_c, fallback, "where the _c form is missing: the int form, whose lb and extent are MPI_Aint (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_create_resized_c
    return err_out(MPI_Type_create_resized_c(c_hin(oldtype), lb, extent, c_hout(newtype)));
#else
    if (!newtype) return null_output("MPI_Type_create_resized_c");
    const MPI_Datatype old = to_native(oldtype);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    const int rc = MPI_Type_create_resized(old, MPI_Aint(lb), MPI_Aint(extent), &t);
    return made_as(rc, t, newtype, ABI_COMBINER_RESIZED, {}, {lb, extent}, &old, 1);
#endif
}

ANYMPI_MANUAL(MPI_Type_create_subarray_c, fallback, "where the _c form is missing: the int form while every size fits, else nested strided copies in chunks of 2^30 resized to the whole array (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_create_subarray_c
    return err_out(MPI_Type_create_subarray_c(ndims, c_i64p(array_of_sizes), c_i64p(array_of_subsizes), c_i64p(array_of_starts),
                                              c_cin<cat::order>(order), c_hin(oldtype), c_hout(newtype)));
#else
    static const char fn[] = "MPI_Type_create_subarray_c";
    if (!newtype) return null_output(fn);
    const MPI_Datatype old = to_native(oldtype);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc;
    if (ndims <= 0 || !array_of_sizes || !array_of_subsizes || !array_of_starts ||
        (all_fit(array_of_sizes, ndims) && all_fit(array_of_subsizes, ndims) && all_fit(array_of_starts, ndims))) {
        std::vector<int> s(size_t(ndims > 0 ? ndims : 0)), u(s.size()), b(s.size());
        for (size_t i = 0; i < s.size(); ++i)
            s[i] = int(array_of_sizes[i]), u[i] = int(array_of_subsizes[i]), b[i] = int(array_of_starts[i]);
        rc = MPI_Type_create_subarray(ndims, s.data(), u.data(), b.data(), cin<cat::order>(order), old, &t);
    } else if (order != ABI_ORDER_C && order != ABI_ORDER_FORTRAN) {
        return bad(fn, ABI_ERR_ARG, "order is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN");
    } else {
        for (int d = 0; d < ndims; ++d)
            if (array_of_sizes[d] <= 0 || array_of_subsizes[d] < 0 || array_of_starts[d] < 0 ||
                array_of_subsizes[d] + array_of_starts[d] > array_of_sizes[d]) {
                *newtype = reinterpret_cast<abi_Datatype>(ABI_DATATYPE_NULL);
                return bad(fn, ABI_ERR_ARG, "a size is not positive, or a subsize or start is negative or passes its size");
            }
        rc = array_type(ndims, array_of_sizes, order, old, [&](int d) {
            index_runs r;
            r.first = array_of_starts[d], r.len = array_of_subsizes[d], r.n = r.len > 0;
            return r;
        }, &t);
    }
    std::vector<MPI_Count> counts;
    for (const abi_Count *a : {array_of_sizes, array_of_subsizes, array_of_starts})
        for (int i = 0; a && i < ndims; ++i) counts.push_back(a[i]);
    return made_as(rc, t, newtype, ABI_COMBINER_SUBARRAY, {ndims, order}, std::move(counts), &old, 1);
#endif
}

ANYMPI_MANUAL(MPI_Type_create_darray_c, fallback, "where the _c form is missing: the int form while every global size fits, else the distribution computed here and built from runs of copies in chunks of 2^30 (large_count_types.cpp); envelope and contents those of the _c call")
{
#if ANYMPI_HAVE_MPI_Type_create_darray_c
    return err_out(MPI_Type_create_darray_c(size, c_rank_in(rank), ndims, c_i64p(array_of_gsizes),
                                            c_cins<cat::distribute>(array_of_distribs, ndims), c_cins<cat::darg>(array_of_dargs, ndims),
                                            c_mut(array_of_psizes), c_cin<cat::order>(order), c_hin(oldtype), c_hout(newtype)));
#else
    static const char fn[] = "MPI_Type_create_darray_c";
    if (!newtype) return null_output(fn);
    const MPI_Datatype old = to_native(oldtype);
    const int n = ndims > 0 ? ndims : 0;
    std::vector<int> ints{size, rank, ndims};
    for (const int *a : {array_of_distribs, array_of_dargs, array_of_psizes})
        for (int i = 0; a && i < n; ++i) ints.push_back(a[i]);
    ints.push_back(order);
    std::vector<MPI_Count> counts(array_of_gsizes, array_of_gsizes + (array_of_gsizes ? n : 0));
    if (!all_fit(array_of_gsizes, ndims)) {  // so ndims > 0 and array_of_gsizes is given
        MPI_Datatype t = MPI_DATATYPE_NULL;
        const char *why = nullptr;
        const int rc = darray_pieces(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                                     array_of_psizes, order, old, &t, &why);
        if (why) {
            *newtype = reinterpret_cast<abi_Datatype>(ABI_DATATYPE_NULL);
            return bad(fn, ABI_ERR_ARG, why);
        }
        return made_as(rc, t, newtype, ABI_COMBINER_DARRAY, std::move(ints), std::move(counts), &old, 1);
    }
    std::vector<int> g(static_cast<size_t>(n)), dist(static_cast<size_t>(n)), darg(static_cast<size_t>(n));
    for (int i = 0; array_of_gsizes && i < n; ++i) g[size_t(i)] = int(array_of_gsizes[i]);
    for (int i = 0; array_of_distribs && i < n; ++i) dist[size_t(i)] = cin<cat::distribute>(array_of_distribs[i]);
    for (int i = 0; array_of_dargs && i < n; ++i) darg[size_t(i)] = cin<cat::darg>(array_of_dargs[i]);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    const int rc = MPI_Type_create_darray(size, rank_in(rank), ndims, g.data(), dist.data(), darg.data(),
                                          const_cast<int *>(array_of_psizes), cin<cat::order>(order), old, &t);
    return made_as(rc, t, newtype, ABI_COMBINER_DARRAY, std::move(ints), std::move(counts), &old, 1);
#endif
}
