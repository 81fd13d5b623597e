// MPICH 4.0: what the shared backend cannot read from mpi.h.
#include "backend.hpp"
#include "callbacks.hpp"

#include <vector>

namespace anympi::backend {
const char *const backend_name = "mpich";

void native_fixups(uintptr_t *) {}

namespace {
// MPICH's handle kind, bits 30-31 of every handle (mpir_objutil.h: HANDLE_KIND_DIRECT).
bool direct(uintptr_t handle) { return (handle & 0xc0000000u) == 0x80000000u; }

// Placeholders of one kind that take every free direct slot (the first indirect handle ends
// the run), freed on destruction last first: MPICH's free list is a stack, so the program's
// next objects get the direct slots in the order they get them natively.
template <class H, int (*Free)(H *)> struct direct_slots_taken {
    std::vector<H> held;
    explicit direct_slots_taken(int (*make)(H *))
    {
        for (int i = 0; make && i < 64; ++i) {  // MPICH preallocates 8 to 64 of a kind
            H h;
            if (make(&h) != MPI_SUCCESS) break;
            held.push_back(h);
            if (!direct(bits(h))) break;
        }
    }
    ~direct_slots_taken()
    {
        for (auto h = held.rbegin(); h != held.rend(); ++h) Free(&*h);
    }
    direct_slots_taken(const direct_slots_taken &) = delete;
    direct_slots_taken &operator=(const direct_slots_taken &) = delete;
};
int free_type(MPI_Datatype *t) { return MPI_Type_free(t); }
int free_comm(MPI_Comm *c) { return MPI_Comm_free(c); }
int free_keyval(int *k) { return MPI_Comm_free_keyval(k); }  // one kind for every object's keyvals
}  // namespace

void past_direct_handles(void (*make)())
{
    // Placeholders that cost nothing to make: a contiguous type, a duplicate of MPI_COMM_SELF
    // (no other process takes part; only in the world model, where anympi makes a communicator
    // of its own), a keyval.
    int world = 0;
    MPI_Initialized(&world);
    direct_slots_taken<MPI_Datatype, free_type> types([](MPI_Datatype *t) { return MPI_Type_contiguous(1, MPI_INT, t); });
    int (*dup_self)(MPI_Comm *) = [](MPI_Comm *c) {
        quiet_copies q;  // the program's attributes on MPI_COMM_SELF stay there (a session may come late)
        return MPI_Comm_dup(MPI_COMM_SELF, c);
    };
    direct_slots_taken<MPI_Comm, free_comm> comms(world ? dup_self : nullptr);
    direct_slots_taken<int, free_keyval> keyvals([](int *k) {
        return MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, k, nullptr);
    });
    make();
}
}  // namespace anympi::backend
