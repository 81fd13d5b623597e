// User data representations (MPI_Register_datarep, MPI-4.1 §14.5.3) over MPIs that cannot use
// one (datarep.cpp): anympi sets the view natively with each predefined type of the etype and
// filetype replaced by bytes of its file extent, and converts in every data access through
// a buffer of its own.  The data-access functions are generated (ANYMPI_FILE_DATA): the native
// call's forward, unless the file's view uses such a representation.
#pragma once
#include "backend.hpp"
#include "requests.hpp"  // ANYMPI_UNPAREN

#include <atomic>
#include <memory>

namespace anympi::backend {

struct datarep_view;
// Files whose view uses a registered representation: while there are none, each data access
// pays one relaxed load.
extern std::atomic<long> datarep_views_alive;
inline bool any_datarep_view() { return datarep_views_alive.load(std::memory_order_relaxed) != 0; }
std::shared_ptr<datarep_view> datarep_view_of(abi_File fh);

enum class datarep_dir : uint8_t { read, write };
enum class datarep_shape : uint8_t { blocking, nonblocking, begin, end };
// One data access's native call with anympi's buffer: b, n elements of t, o the native status
// (blocking, _end) or request (nonblocking), unused by a _begin.  Type-erased: one
// implementation serves every generated access.
struct native_io {
    int (*fn)(void *ctx, void *b, int n, MPI_Datatype t, void *o);
    void *ctx;
    template <class F>
    explicit native_io(F &f)
        : fn([](void *c, void *b, int n, MPI_Datatype t, void *o) { return (*static_cast<F *>(c))(b, n, t, o); }), ctx(&f)
    {
    }
    int operator()(void *b, int n, MPI_Datatype t, void *o) const { return fn(ctx, b, n, t, o); }
};
// out: the caller's abi_Status * (blocking, _end), abi_Request * (nonblocking), null (_begin).
// count and datatype are unused by an _end (the _begin's are kept).
int datarep_access(datarep_view &v, const char *fn, datarep_dir d, datarep_shape s, const void *buf, abi_Count count,
                   abi_Datatype datatype, void *out, native_io io);
// MPI_File_get_view of a file whose view uses a registered representation: true, its result in
// *rc (the caller's types and the representation's name); false for any other file.
bool datarep_get_view(abi_File fh, abi_Offset *disp, abi_Datatype *etype, abi_Datatype *filetype, char *datarep, int *rc);

}  // namespace anympi::backend

// A data access (read or write, every positioning, blocking, nonblocking or split): native is
// the int form's call over b_, n_, t_ and o_; params, the function's own, for its forward.
#define ANYMPI_FILE_DATA(name, dir, shape, params, data, native)                                   \
    ANYMPI_SIG_##name                                                                              \
    {                                                                                              \
        if (::anympi::backend::any_datarep_view()) [[unlikely]] {                                  \
            if (auto v_ = ::anympi::backend::datarep_view_of(fh)) {                                \
                auto call_ = [&](void *b_, int n_, MPI_Datatype t_, void *o_) -> int {             \
                    (void)n_, (void)t_, (void)o_;                                                  \
                    return native;                                                                 \
                };                                                                                 \
                return ::anympi::backend::datarep_access(*v_, #name, ::anympi::backend::datarep_dir::dir, \
                                                         ::anympi::backend::datarep_shape::shape, \
                                                         ANYMPI_UNPAREN data, ::anympi::backend::native_io(call_)); \
            }                                                                                      \
        }                                                                                          \
        return fwd_##name params;                                                                  \
    }
