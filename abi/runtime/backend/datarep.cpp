// User data representations (MPI-4.1 §14.5.3): MPI_Register_datarep and the file views that use
// one.  Neither MPI here can: MPICH 4.0.2's and Open MPI 4.1's MPI_File_set_view refuse a
// registered name (ompio and ROMIO alike), and ROMIO refuses conversion functions at
// registration.  So anympi keeps the representations and converts itself:
//
// - MPI_File_set_view with a registered name sets the native view in "native" with the etype
//   and filetype rebuilt: every predefined type in them becomes bytes of its file extent (the
//   representation's dtype_file_extent_fn), every constructor stays with its arguments.  So
//   element counts scale and byte displacements stay as written, as the standard says, and the
//   native MPI does all positioning (offsets, file pointers, shared pointers, collectives).
// - Each data access (ANYMPI_FILE_DATA, generated) moves the bytes of the file's representation
//   through a buffer of anympi's: a write converts the caller's data into it first
//   (write_conversion_fn), a read converts out of it once the native read has completed
//   (read_conversion_fn), for a nonblocking read when its request completes, for a split one
//   at its _end.  The status counts what moved in the caller's datatype.
// - A conversion function MPI_CONVERSION_FN_NULL means the data are in the native
//   representation: that direction passes the caller's buffer and datatype straight through.
//
// Conversion functions are called with count data items (typemap entries of the datatype,
// each predefined type one item) and position 0, or for the int form in chunks of whole
// elements where the items exceed INT_MAX.  A read that ends early (end of file) converts the
// items it read whole.
#include "datarep.hpp"
#include "large_counts.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

// anympi's own functions, for what the caller's datatypes are made of (they see emulated
// predefined types and large-count constructors as the program made them).
ANYMPI_SIG_MPI_Type_get_envelope_c;
ANYMPI_SIG_MPI_Type_get_contents_c;
ANYMPI_SIG_MPI_Type_contiguous;
ANYMPI_SIG_MPI_Type_vector;
ANYMPI_SIG_MPI_Type_create_hvector;
ANYMPI_SIG_MPI_Type_indexed;
ANYMPI_SIG_MPI_Type_create_hindexed;
ANYMPI_SIG_MPI_Type_create_indexed_block;
ANYMPI_SIG_MPI_Type_create_hindexed_block;
ANYMPI_SIG_MPI_Type_create_struct;
ANYMPI_SIG_MPI_Type_create_subarray;
ANYMPI_SIG_MPI_Type_create_darray;
ANYMPI_SIG_MPI_Type_create_resized;
ANYMPI_SIG_MPI_Type_dup;
ANYMPI_SIG_MPI_Type_free;
ANYMPI_SIG_MPI_Type_commit;
ANYMPI_SIG_MPI_Type_size_c;
ANYMPI_SIG_MPI_Type_get_extent_c;

namespace anympi::backend {
std::atomic<long> datarep_views_alive{0};

namespace {
abi_Datatype abi_byte() { return reinterpret_cast<abi_Datatype>(ABI_BYTE); }
bool predefined(abi_Datatype t) { return reinterpret_cast<uintptr_t>(t) < 0x400; }

struct representation {
    std::string name;
    abi_Datarep_conversion_function *read, *write;
    abi_Datarep_conversion_function_c *read_c, *write_c;
    abi_Datarep_extent_function *extent;
    void *extra;
    bool native_in(datarep_dir d) const { return d == datarep_dir::read ? !read && !read_c : !write && !write_c; }
};
std::mutex reps_mutex;
std::vector<std::unique_ptr<representation>> reps;  // never removed: views point into it

const representation *find_rep(const char *name)
{
    std::lock_guard<std::mutex> g(reps_mutex);
    for (auto &r : reps)
        if (r->name == name) return r.get();
    return nullptr;
}

// What one walk over a datatype reports its errors through: the file's handler, the call.
struct walk {
    const representation &r;
    errh_obj o;
    const char *fn;
    int fail(int cls, const char *what) const
    {
        char msg[400];
        std::snprintf(msg, sizeof msg, "%s: %s (data representation '%s')", fn, what, r.name.c_str());
        return raise_error(o, cls, msg);
    }
};

// One constructor of a derived datatype, as MPI_Type_get_contents_c gives it.
struct level {
    int combiner = 0, rc = 0;
    bool large = false;
    std::vector<int> i;
    std::vector<abi_Aint> a;
    std::vector<abi_Count> c;
    std::vector<abi_Datatype> t;
    static bool leaf_combiner(int k)
    {
        return k == ABI_COMBINER_NAMED || k == ABI_COMBINER_F90_REAL || k == ABI_COMBINER_F90_COMPLEX ||
               k == ABI_COMBINER_F90_INTEGER || k == ABI_COMBINER_VALUE_INDEX;
    }
    explicit level(abi_Datatype dt)
    {
        abi_Count ni = 0, na = 0, nc = 0, nd = 0;
        if ((rc = abi_MPI_Type_get_envelope_c(dt, &ni, &na, &nc, &nd, &combiner)) || leaf()) return;
        i.resize(size_t(ni));
        a.resize(size_t(na));
        c.resize(size_t(nc));
        t.resize(size_t(nd));
        large = nc > 0;
        rc = abi_MPI_Type_get_contents_c(dt, ni, na, nc, nd, i.data(), a.data(), c.data(), t.data());
        if (rc) t.clear();
    }
    level(const level &) = delete;
    level &operator=(const level &) = delete;
    ~level()
    {
        for (abi_Datatype &x : t) {
            abi_Count ni, na, nc, nd;
            int k = ABI_COMBINER_NAMED;
            if (!predefined(x) && abi_MPI_Type_get_envelope_c(x, &ni, &na, &nc, &nd, &k) == 0 && !leaf_combiner(k))
                abi_MPI_Type_free(&x);
        }
    }
    bool leaf() const { return leaf_combiner(combiner); }
    // The k-th count where the int layout has it among the integers (the large layout among
    // the large counts, in the same order).
    abi_Count n(size_t k) const { return large ? c[k] : i[k]; }
    // The k-th byte displacement: among the addresses, or (large) the large counts from `from`.
    abi_Count disp(size_t k, size_t from) const { return large ? c[from + k] : a[k]; }
};

int leaf_extent(const walk &w, abi_Datatype t, abi_Aint *ext)
{
    *ext = -1;
    const int rc = w.r.extent(t, ext, w.r.extra);
    if (rc != 0 || *ext < 0) return w.fail(ABI_ERR_CONVERSION, "dtype_file_extent_fn failed or gave a negative extent");
    return 0;
}

// Per element of a datatype: its bytes in the file, its data items, its bytes in memory.
struct sizes {
    abi_Count file = 0, items = 0, memory = 0;
    void add(const sizes &o, abi_Count times)
    {
        file += times * o.file;
        items += times * o.items;
        memory += times * o.memory;
    }
};

int measure(const walk &w, abi_Datatype t, sizes &s)
{
    s = {};
    level l(t);
    if (l.rc) return l.rc;
    if (l.leaf()) {
        abi_Aint ext = 0;
        if (int rc = leaf_extent(w, t, &ext)) return rc;
        s.file = ext;
        s.items = 1;
        return abi_MPI_Type_size_c(t, &s.memory);
    }
    if (l.combiner == ABI_COMBINER_STRUCT) {
        for (size_t k = 0; k < l.t.size(); ++k) {
            sizes part;
            if (int rc = measure(w, l.t[k], part)) return rc;
            s.add(part, l.n(1 + k));
        }
        return 0;
    }
    // One old type: as many of it as its size goes into the whole's.
    sizes part;
    abi_Count whole = 0;
    if (int rc = measure(w, l.t[0], part)) return rc;
    if (int rc = abi_MPI_Type_size_c(t, &whole)) return rc;
    s.add(part, part.memory ? whole / part.memory : 0);
    return 0;
}

// What lies wholly within the first `budget` bytes of the file's data of `reps` elements of t
// (a read cut short by the end of the file): added to done, budget lowered.
int consume(const walk &w, abi_Datatype t, abi_Count reps, abi_Count &budget, sizes &done)
{
    sizes one;
    if (int rc = measure(w, t, one)) return rc;
    if (one.file == 0) return 0;
    const abi_Count full = std::min(reps, budget / one.file);
    done.add(one, full);
    budget -= full * one.file;
    if (full == reps || budget == 0) return 0;
    level l(t);  // the one element begun: its parts, in typemap order
    if (l.rc || l.leaf()) return l.rc;
    if (l.combiner == ABI_COMBINER_STRUCT) {
        for (size_t k = 0; k < l.t.size() && budget > 0; ++k)
            if (int rc = consume(w, l.t[k], l.n(1 + k), budget, done)) return rc;
        return 0;
    }
    sizes part;
    if (int rc = measure(w, l.t[0], part)) return rc;
    return consume(w, l.t[0], part.memory ? one.memory / part.memory : 0, budget, done);
}

// t's twin in the file: the same constructors over bytes of each predefined type's file extent.
int build(const walk &w, abi_Datatype t, abi_Datatype *out)
{
    level l(t);
    if (l.rc) return l.rc;
    if (l.leaf()) {
        abi_Aint ext = 0;
        if (int rc = leaf_extent(w, t, &ext)) return rc;
        if (ext > INT_MAX) return w.fail(ABI_ERR_COUNT, "a file extent exceeds an int");
        return abi_MPI_Type_contiguous(int(ext), abi_byte(), out);
    }
    std::vector<abi_Datatype> kids(l.t.size(), reinterpret_cast<abi_Datatype>(ABI_DATATYPE_NULL));
    int rc = 0;
    for (size_t k = 0; k < l.t.size() && !rc; ++k) rc = build(w, l.t[k], &kids[k]);
    // Built with the int constructors: MPICH 4.0.2's ROMIO cannot flatten a filetype made by the
    // _c ones (it reads their contents as ints: "Out of memory in flatten.c").  So every count
    // must fit in an int, as in the file view of any MPI-3 program.
    bool fits = true;
    auto in = [&](abi_Count v) {
        fits = fits && v >= INT_MIN && v <= INT_MAX;
        return int(v);
    };
    // The block counts of the (h)indexed and struct constructors: their first count.
    const bool blocks = l.combiner >= ABI_COMBINER_INDEXED && l.combiner <= ABI_COMBINER_STRUCT;
    const size_t cnt = blocks ? size_t(l.n(0)) : 0;
    std::vector<int> bl, id;
    std::vector<abi_Aint> bd;
    auto lists = [&](size_t bl_at, size_t d_at, bool bytes) {
        for (size_t k = 0; k < cnt; ++k) {
            if (bl_at) bl.push_back(in(l.n(bl_at + k)));
            if (bytes) bd.push_back(l.disp(k, d_at));
            else id.push_back(in(l.n(d_at + k)));
        }
    };
    std::vector<int> dims;
    if (!rc && l.combiner == ABI_COMBINER_SUBARRAY)  // ints: ndims, sizes, subsizes, starts, order; large: ndims, order
        for (size_t k = 0; k < 3 * size_t(l.i[0]); ++k) dims.push_back(in(l.large ? l.c[k] : l.i[1 + k]));
    if (!rc && l.combiner == ABI_COMBINER_DARRAY)  // ints: size, rank, ndims, [gsizes,] distribs, dargs, psizes, order
        for (size_t k = 0; k < size_t(l.i[2]); ++k) dims.push_back(in(l.large ? l.c[k] : l.i[3 + k]));
    if (blocks)
        lists(l.combiner == ABI_COMBINER_INDEXED_BLOCK || l.combiner == ABI_COMBINER_HINDEXED_BLOCK ? 0 : 1,
              l.combiner == ABI_COMBINER_INDEXED_BLOCK || l.combiner == ABI_COMBINER_HINDEXED_BLOCK ? 2 : 1 + cnt,
              l.combiner != ABI_COMBINER_INDEXED && l.combiner != ABI_COMBINER_INDEXED_BLOCK);
    const int n0 = l.t.empty() || l.combiner == ABI_COMBINER_RESIZED || l.combiner == ABI_COMBINER_SUBARRAY ||
                           l.combiner == ABI_COMBINER_DARRAY || l.combiner == ABI_COMBINER_DUP
                       ? 0
                       : in(l.n(0));
    if (!rc && !fits) rc = w.fail(ABI_ERR_COUNT, "a count of the view's types exceeds an int");
    if (!rc) switch (l.combiner) {
        case ABI_COMBINER_DUP:
            *out = kids[0];
            kids.clear();
            break;
        case ABI_COMBINER_CONTIGUOUS: rc = abi_MPI_Type_contiguous(n0, kids[0], out); break;
        case ABI_COMBINER_VECTOR: rc = abi_MPI_Type_vector(n0, in(l.n(1)), in(l.n(2)), kids[0], out); break;
        case ABI_COMBINER_HVECTOR: rc = abi_MPI_Type_create_hvector(n0, in(l.n(1)), l.disp(0, 2), kids[0], out); break;
        case ABI_COMBINER_INDEXED: rc = abi_MPI_Type_indexed(n0, bl.data(), id.data(), kids[0], out); break;
        case ABI_COMBINER_HINDEXED: rc = abi_MPI_Type_create_hindexed(n0, bl.data(), bd.data(), kids[0], out); break;
        case ABI_COMBINER_INDEXED_BLOCK:
            rc = abi_MPI_Type_create_indexed_block(n0, in(l.n(1)), id.data(), kids[0], out);
            break;
        case ABI_COMBINER_HINDEXED_BLOCK:
            rc = abi_MPI_Type_create_hindexed_block(n0, in(l.n(1)), bd.data(), kids[0], out);
            break;
        case ABI_COMBINER_STRUCT: rc = abi_MPI_Type_create_struct(n0, bl.data(), bd.data(), kids.data(), out); break;
        case ABI_COMBINER_SUBARRAY: {
            const int nd = l.i[0];
            rc = abi_MPI_Type_create_subarray(nd, dims.data(), dims.data() + nd, dims.data() + 2 * nd,
                                              l.large ? l.i[1] : l.i[1 + 3 * size_t(nd)], kids[0], out);
            break;
        }
        case ABI_COMBINER_DARRAY: {
            const size_t nd = size_t(l.i[2]), at = l.large ? 3 : 3 + nd;
            rc = abi_MPI_Type_create_darray(l.i[0], l.i[1], int(nd), dims.data(), &l.i[at], &l.i[at + nd],
                                            &l.i[at + 2 * nd], l.i[at + 3 * nd], kids[0], out);
            break;
        }
        case ABI_COMBINER_RESIZED: rc = abi_MPI_Type_create_resized(kids[0], l.disp(0, 0), l.disp(1, 0), out); break;
        default: rc = w.fail(ABI_ERR_TYPE, "a datatype made by a constructor anympi does not know");
        }
    for (abi_Datatype &k : kids)
        if (reinterpret_cast<uintptr_t>(k) != ABI_DATATYPE_NULL) abi_MPI_Type_free(&k);
    return rc;
}

int build_committed(const walk &w, abi_Datatype t, abi_Datatype *out)
{
    *out = reinterpret_cast<abi_Datatype>(ABI_DATATYPE_NULL);
    int rc = build(w, t, out);
    if (!rc) rc = abi_MPI_Type_commit(out);
    return rc;
}

// What MPI_File_get_view hands back: a duplicate, which the caller frees (a predefined type as itself).
abi_Datatype duplicate(abi_Datatype t)
{
    if (predefined(t)) return t;
    abi_Datatype d = reinterpret_cast<abi_Datatype>(ABI_DATATYPE_NULL);
    abi_MPI_Type_dup(t, &d);
    return d;
}
void release(abi_Datatype &t)
{
    if (!predefined(t)) abi_MPI_Type_free(&t);
}

// One access in flight: the caller's side and anympi's buffer of the file's side.
struct transfer {
    const representation *rep;
    errh_obj o;
    const char *fn;
    datarep_dir dir;
    void *buf;
    abi_Count count;
    abi_Datatype datatype;  // the caller's
    std::optional<type_kept> keep;  // past the call: the caller may free its datatype meanwhile
    bool direct = false;    // no conversion: the caller's buffer and datatype go to the MPI
    sizes whole;            // of count elements
    std::unique_ptr<char[]> file;
    transfer(const transfer &) = delete;
    transfer &operator=(const transfer &) = delete;
    transfer(const representation *r, errh_obj o_, const char *f, datarep_dir d, void *b, abi_Count n, abi_Datatype t)
        : rep(r), o(o_), fn(f), dir(d), buf(b), count(n), datatype(t)
    {
    }
    walk w() const { return {*rep, o, fn}; }
    // The conversion of `items` data items, between the caller's buffer and anympi's.
    int convert(abi_Count items)
    {
        const bool rd = dir == datarep_dir::read;
        const char *what = rd ? "read_conversion_fn failed" : "write_conversion_fn failed";
        if (items == 0) return 0;
        if (auto *fc = rd ? rep->read_c : rep->write_c) {
            if (fc(buf, datatype, items, file.get(), 0, rep->extra) != 0) return w().fail(ABI_ERR_CONVERSION, what);
            return 0;
        }
        auto *f = rd ? rep->read : rep->write;
        // The int form in chunks of whole elements, each begun at its position in the caller's data.
        const abi_Count per = whole.items / count, chunk = per > 0 ? INT_MAX / per : 0;
        if (items > INT_MAX && chunk == 0) return w().fail(ABI_ERR_COUNT, "one element has more data items than an int counts");
        for (abi_Count at = 0; at < items;) {
            const abi_Count n = items <= INT_MAX ? items : std::min(items - at, chunk * per);
            char *fb = file.get() + (per ? at / per : 0) * (whole.file / count);
            if (f(buf, datatype, int(n), fb, at, rep->extra) != 0) return w().fail(ABI_ERR_CONVERSION, what);
            at += n;
        }
        return 0;
    }
    // After the native access: what moved (a read may end early), a read converted into the
    // caller's buffer, and the status counted in the caller's datatype.  An ABI error code.
    int complete(MPI_Status &ns)
    {
        if (direct) return 0;
        MPI_Count moved = 0;
        MPI_Get_elements_x(&ns, MPI_BYTE, &moved);
        sizes got = whole;
        if (moved != whole.file) {
            got = {};
            abi_Count budget = moved;
            if (int rc = consume(w(), datatype, count, budget, got)) return rc;
        }
        if (dir == datarep_dir::read)
            if (int rc = convert(got.items)) return rc;
        MPI_Status_set_elements_x(&ns, MPI_BYTE, got.memory);
        return 0;
    }
};

// A nonblocking access: the native request, then (a read) the conversion when it completes.
struct file_request final : emulated_request {
    MPI_Request q;
    std::unique_ptr<transfer> t;
    bool completed = false;
    int result = 0;      // of complete(), once
    MPI_Count bytes = 0; // the status's count after complete()
    file_request(MPI_Request q_, std::unique_ptr<transfer> t_) : emulated_request(false), q(q_), t(std::move(t_)) {}
    ~file_request() override
    {
        if (q != MPI_REQUEST_NULL) MPI_Request_free(&q);
    }
    int finish(MPI_Status &ns)
    {
        if (!completed) {
            completed = true;
            result = t->complete(ns);
            MPI_Get_elements_x(&ns, MPI_BYTE, &bytes);
        }
        MPI_Status_set_elements_x(&ns, MPI_BYTE, bytes);
        return result ? err_in(result) : MPI_SUCCESS;
    }
    int test(bool complete, int *done, MPI_Status *st) override
    {
        MPI_Status ns = st != MPI_STATUS_IGNORE ? *st : MPI_Status{};
        int rc = complete ? MPI_Test(&q, done, &ns) : MPI_Request_get_status(q, done, &ns);
        if (rc == MPI_SUCCESS && *done) {
            rc = finish(ns);
            if (st != MPI_STATUS_IGNORE) *st = ns;
            if (complete) active = false;
        }
        return rc;
    }
    int wait(MPI_Status *st) override
    {
        MPI_Status ns = st != MPI_STATUS_IGNORE ? *st : MPI_Status{};
        int rc = MPI_Wait(&q, &ns);
        if (rc == MPI_SUCCESS) rc = finish(ns);
        active = false;
        if (st != MPI_STATUS_IGNORE) *st = ns;
        return rc;
    }
    int cancel() override { return MPI_Cancel(&q) == MPI_SUCCESS ? 0 : ABI_ERR_REQUEST; }
};
}  // namespace

struct datarep_view {
    abi_File fh;
    const representation *rep;
    abi_Datatype etype, filetype;  // the caller's, for MPI_File_get_view: kept, the caller may free them
    std::optional<type_kept> etype_kept, filetype_kept;
    abi_Datatype file_etype, file_filetype;  // their twins in the file: the native view's
    std::mutex split_mutex;
    std::unique_ptr<transfer> split;         // a split collective, from its _begin to its _end
    ~datarep_view()
    {
        for (abi_Datatype *t : {&file_etype, &file_filetype}) release(*t);
    }
};

namespace {
std::mutex views_mutex;
std::unordered_map<uintptr_t, std::shared_ptr<datarep_view>> views;  // by native file handle

void set_view_of(uintptr_t native, std::shared_ptr<datarep_view> v)
{
    std::shared_ptr<datarep_view> old;  // destroyed outside the lock (it frees types)
    std::lock_guard<std::mutex> g(views_mutex);
    auto it = views.find(native);
    if (it != views.end()) {
        old = std::move(it->second);
        if (v) it->second = std::move(v);
        else views.erase(it);
    } else if (v) {
        views.emplace(native, std::move(v));
    }
    datarep_views_alive.store(long(views.size()), std::memory_order_relaxed);
}
}  // namespace

std::shared_ptr<datarep_view> datarep_view_of(abi_File fh)
{
    std::lock_guard<std::mutex> g(views_mutex);
    auto it = views.find(bits(to_native(fh)));
    return it == views.end() ? nullptr : it->second;
}

int datarep_access(datarep_view &v, const char *fn, datarep_dir d, datarep_shape s, const void *cbuf, abi_Count count,
                   abi_Datatype datatype, void *out, native_io io)
{
    const errh_obj o = errh_of(v.fh);
    void *buf = const_cast<void *>(cbuf);  // a write's: only read (write_conversion_fn takes void *)
    if (s == datarep_shape::end) {  // the _begin's transfer, completed
        std::unique_ptr<transfer> t;
        {
            std::lock_guard<std::mutex> g(v.split_mutex);
            t = std::move(v.split);
        }
        if (!t) {
            char msg[200];
            std::snprintf(msg, sizeof msg, "%s: no split collective of this file is active", fn);
            return raise_error(o, ABI_ERR_OTHER, msg);
        }
        abi_Status dummy{};
        st_proxy<st_use::out> sp(out ? static_cast<abi_Status *>(out) : &dummy);
        MPI_Status *ns = sp;
        if (int rc = io(t->direct ? buf : t->file.get(), 0, MPI_DATATYPE_NULL, ns)) return err_out(rc);
        return t->complete(*ns);
    }
    if (count < 0) {
        char msg[200];
        std::snprintf(msg, sizeof msg, "%s: count is negative (%lld)", fn, (long long)count);
        return raise_error(o, ABI_ERR_COUNT, msg);
    }
    if (reinterpret_cast<uintptr_t>(datatype) == ABI_DATATYPE_NULL) {
        char msg[200];
        std::snprintf(msg, sizeof msg, "%s: datatype is MPI_DATATYPE_NULL", fn);
        return raise_error(o, ABI_ERR_TYPE, msg);
    }
    auto t = std::make_unique<transfer>(v.rep, o, fn, d, buf, count, datatype);
    void *b = buf;
    MPI_Datatype nt = MPI_BYTE;
    abi_Count n = 0;
    if (v.rep->native_in(d)) {  // MPI_CONVERSION_FN_NULL: the caller's data as they are
        t->direct = true;
        nt = to_native(datatype);
        n = count;
    } else {
        if (int rc = measure(t->w(), datatype, t->whole)) return rc;
        t->whole.file *= count;
        t->whole.items *= count;
        t->whole.memory *= count;
        t->file.reset(new char[size_t(t->whole.file > 0 ? t->whole.file : 1)]);
        if (d == datarep_dir::write)
            if (int rc = t->convert(t->whole.items)) return rc;
        b = t->file.get();
        n = t->whole.file;
    }
    wide_pairs w(n, nt);  // past int: one element of a datatype holding them all
    if (w.err) return err_out(w.err);
    switch (s) {
    case datarep_shape::blocking: {
        abi_Status dummy{};
        st_proxy<st_use::out> sp(out ? static_cast<abi_Status *>(out) : &dummy);
        MPI_Status *ns = sp;
        if (int rc = io(b, w.count(0), w.type(0), ns)) return err_out(rc);
        return t->complete(*ns);
    }
    case datarep_shape::nonblocking: {
        MPI_Request q = MPI_REQUEST_NULL;
        if (int rc = io(b, w.count(0), w.type(0), &q)) return err_out(rc);
        t->keep.emplace(datatype);
        *static_cast<abi_Request *>(out) = adopt(std::make_unique<file_request>(q, std::move(t)));
        return 0;
    }
    case datarep_shape::begin: {
        if (int rc = io(b, w.count(0), w.type(0), nullptr)) return err_out(rc);
        t->keep.emplace(datatype);
        std::lock_guard<std::mutex> g(v.split_mutex);
        v.split = std::move(t);
        return 0;
    }
    case datarep_shape::end: break;
    }
    return 0;
}

bool datarep_get_view(abi_File fh, abi_Offset *disp, abi_Datatype *etype, abi_Datatype *filetype, char *datarep, int *rc)
{
    if (!any_datarep_view()) return false;
    auto v = datarep_view_of(fh);
    if (!v) return false;
    MPI_Datatype ne = MPI_DATATYPE_NULL, nf = MPI_DATATYPE_NULL;
    char native_rep[MPI_MAX_DATAREP_STRING + 1];
    *rc = err_out(MPI_File_get_view(to_native(fh), c_disp_out(disp), &ne, &nf, native_rep));
    if (*rc) return true;
    for (MPI_Datatype *t : {&ne, &nf}) {  // the twins' copies: the caller gets its own types
        int ni, na, nd, k = MPI_COMBINER_NAMED;
        if (MPI_Type_get_envelope(*t, &ni, &na, &nd, &k) == MPI_SUCCESS && k != MPI_COMBINER_NAMED) MPI_Type_free(t);
    }
    if (etype) *etype = duplicate(v->etype);
    if (filetype) *filetype = duplicate(v->filetype);
    if (datarep) std::snprintf(datarep, ABI_MAX_DATAREP_STRING, "%s", v->rep->name.c_str());
    return true;
}

namespace {
int register_rep(const char *fn, const char *datarep, representation r)
{
    const errh_obj o{k_file, bits(MPI_FILE_NULL)};  // I/O without a file: the default file handler
    char msg[300];
    if (!datarep || !*datarep || std::strlen(datarep) >= ABI_MAX_DATAREP_STRING) {
        std::snprintf(msg, sizeof msg, "%s: datarep is %s", fn,
                      !datarep ? "NULL" : !*datarep ? "empty" : "longer than MPI_MAX_DATAREP_STRING - 1");
        return raise_error(o, ABI_ERR_ARG, msg);
    }
    if (!r.extent) {
        std::snprintf(msg, sizeof msg, "%s: dtype_file_extent_fn is NULL", fn);
        return raise_error(o, ABI_ERR_ARG, msg);
    }
    std::lock_guard<std::mutex> g(reps_mutex);
    bool taken = !std::strcmp(datarep, "native") || !std::strcmp(datarep, "internal") || !std::strcmp(datarep, "external32");
    for (auto &x : reps) taken = taken || x->name == datarep;
    if (taken) {
        std::snprintf(msg, sizeof msg, "%s: data representation '%s' is already defined", fn, datarep);
        return raise_error(o, ABI_ERR_DUP_DATAREP, msg);
    }
    r.name = datarep;
    reps.push_back(std::make_unique<representation>(std::move(r)));
    return 0;
}
}  // namespace
}  // namespace anympi::backend

using namespace anympi::backend;

ANYMPI_MANUAL(MPI_Register_datarep, emulated, "anympi keeps the representation and converts in every access of a view that uses it (datarep.cpp): neither MPI can use one")
{
    return register_rep("MPI_Register_datarep", datarep,
                        {{}, read_conversion_fn, write_conversion_fn, nullptr, nullptr, dtype_file_extent_fn, extra_state});
}
ANYMPI_MANUAL(MPI_Register_datarep_c, emulated, "anympi keeps the representation and converts in every access of a view that uses it (datarep.cpp): neither MPI can use one")
{
    return register_rep("MPI_Register_datarep_c", datarep,
                        {{}, nullptr, nullptr, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn, extra_state});
}

ANYMPI_MANUAL(MPI_File_set_view, extended, "a registered data representation: the native view in native over the types rebuilt with its file extents (datarep.cpp)")
{
    const representation *rep = datarep ? find_rep(datarep) : nullptr;
    const uintptr_t key = bits(to_native(fh));
    if (!rep) {
        const int rc = fwd_MPI_File_set_view(fh, disp, etype, filetype, datarep, info);
        if (rc == 0 && any_datarep_view()) set_view_of(key, nullptr);
        return rc;
    }
    const walk w{*rep, errh_of(fh), "MPI_File_set_view"};
    for (abi_Datatype t : {etype, filetype})
        if (reinterpret_cast<uintptr_t>(t) == ABI_DATATYPE_NULL) return w.fail(ABI_ERR_TYPE, "etype or filetype is MPI_DATATYPE_NULL");
    auto v = std::make_shared<datarep_view>();
    v->fh = fh;
    v->rep = rep;
    v->etype = v->filetype = v->file_etype = v->file_filetype = reinterpret_cast<abi_Datatype>(ABI_DATATYPE_NULL);
    if (int rc = build_committed(w, etype, &v->file_etype)) return rc;
    if (int rc = build_committed(w, filetype, &v->file_filetype)) return rc;
    if (int rc = fwd_MPI_File_set_view(fh, disp, v->file_etype, v->file_filetype, "native", info)) return rc;
    v->etype = etype;
    v->filetype = filetype;
    v->etype_kept.emplace(etype);
    v->filetype_kept.emplace(filetype);
    set_view_of(key, std::move(v));
    return 0;
}

ANYMPI_MANUAL(MPI_File_get_type_extent, extended, "under a registered data representation: the extent of the datatype's twin in the file (datarep.cpp)")
{
    auto v = any_datarep_view() ? datarep_view_of(fh) : nullptr;
    if (!v) return fwd_MPI_File_get_type_extent(fh, datatype, extent);
    const walk w{*v->rep, errh_of(fh), "MPI_File_get_type_extent"};
    abi_Datatype twin;
    if (int rc = build_committed(w, datatype, &twin)) return rc;
    abi_Count lb = 0, e = 0;
    const int rc = abi_MPI_Type_get_extent_c(twin, &lb, &e);
    abi_MPI_Type_free(&twin);
    if (rc == 0 && extent) *extent = abi_Aint(e);
    return rc;
}
ANYMPI_MANUAL(MPI_File_get_type_extent_c, emulated, "MPI_File_get_type_extent: its MPI_Aint is as wide as MPI_Count")
{
    return abi_MPI_File_get_type_extent(fh, datatype, reinterpret_cast<abi_Aint *>(extent));
}

ANYMPI_MANUAL(MPI_File_close, extended, "the file's view in a registered data representation is dropped with it (datarep.cpp)")
{
    const uintptr_t key = fh ? bits(to_native(*fh)) : 0;
    const int rc = fwd_MPI_File_close(fh);
    if (rc == 0 && any_datarep_view()) set_view_of(key, nullptr);
    return rc;
}
