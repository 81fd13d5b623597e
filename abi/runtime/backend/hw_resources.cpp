// The hardware a process runs on (MPI-4.1 §11.4.3, MPI-5.0): MPI_Get_hw_resource_info and the
// communicator splits it serves (MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED,
// MPI_COMM_TYPE_RESOURCE_GUIDED).  Neither MPI here has the function; Open MPI 4.1 has none of
// the split types and MPICH 4.0.2's answer MPI_COMM_NULL for every hwloc type on processes the
// launcher did not bind (measured: even for hwloc://Machine).  So anympi answers all of them
// itself, from hwloc (a dependency of both MPIs), one view of the hardware for the info and
// the splits alike: a key the info names, given back as mpi_hw_resource_type, splits by it.
//
// The info has one key per hwloc object type of the machine, "hwloc://<type>" (hwloc's names:
// hwloc://Machine, hwloc://Package, hwloc://NUMANode, hwloc://L3Cache, hwloc://Core,
// hwloc://PU ...), whose value is "true" when the calling thread's binding lies within one
// object of that type (the process is restricted to one instance of it) and "false" otherwise.
// The binding is read at each call (the standard's "at the moment of the call"); the topology
// once.  A type found at several depths (hwloc's Groups) is restricted at the highest depth
// where the binding lies within one of its objects.
#include "backend.hpp"
#include "sessions.hpp"

#include <hwloc.h>

#include <cstring>
#include <string>
#include <strings.h>
#include <vector>

namespace anympi::backend {
namespace {

constexpr char uri_prefix[] = "hwloc://";
constexpr int no_instance = -1;

// Loaded once, never destroyed (a call may come until the process ends); read-only after
// loading, which hwloc allows from several threads.
hwloc_topology_t topology()
{
    static hwloc_topology_t topo = [] {
        hwloc_topology_t t = nullptr;
        if (hwloc_topology_init(&t) != 0) return hwloc_topology_t{};
        if (hwloc_topology_load(t) != 0) {
            hwloc_topology_destroy(t);
            return hwloc_topology_t{};
        }
        return t;
    }();
    return topo;
}

// The depths of the topology whose objects have CPUs: the normal levels and the NUMA nodes.
std::vector<int> depths(hwloc_topology_t t)
{
    std::vector<int> d;
    for (int i = 0, n = hwloc_topology_get_depth(t); i < n; ++i) d.push_back(i);
    if (hwloc_get_type_depth(t, HWLOC_OBJ_NUMANODE) == HWLOC_TYPE_DEPTH_NUMANODE) d.push_back(HWLOC_TYPE_DEPTH_NUMANODE);
    return d;
}

struct binding {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    binding(const binding &) = delete;
    binding &operator=(const binding &) = delete;
    explicit binding(hwloc_topology_t t)
    {
        // The calling thread's, as the process sees it now: a program that binds itself after
        // MPI_Init binds its own thread, not the MPI's.  Unknown: the whole machine.
        if (!set || hwloc_get_cpubind(t, set, HWLOC_CPUBIND_THREAD) != 0 || hwloc_bitmap_iszero(set))
            if (set) hwloc_bitmap_copy(set, hwloc_topology_get_topology_cpuset(t));
    }
    ~binding() { hwloc_bitmap_free(set); }
};

// The logical index of the one object at `depth` whose CPUs hold the whole binding, else no_instance.
int instance_at(hwloc_topology_t t, int depth, hwloc_const_bitmap_t bound)
{
    for (unsigned i = 0, n = unsigned(hwloc_get_nbobjs_by_depth(t, depth)); i < n; ++i) {
        hwloc_obj_t o = hwloc_get_obj_by_depth(t, depth, i);
        if (o && o->cpuset && hwloc_bitmap_isincluded(bound, o->cpuset)) return int(o->logical_index);
    }
    return no_instance;
}

std::string uri_of(hwloc_topology_t t, int depth)
{
    return std::string(uri_prefix) + hwloc_obj_type_string(hwloc_get_depth_type(t, depth));
}

// The instance of the type named `uri` ("hwloc://L3Cache", any case) that holds the calling
// thread's binding, else no_instance (also for a type this machine does not have).  A type at
// several depths (hwloc's Groups) numbers its instances per depth: the depth's place in the
// list goes above the index, so that instances of different depths never share a number.
int instance_of(const char *uri)
{
    hwloc_topology_t t = topology();
    if (!t || strncasecmp(uri, uri_prefix, sizeof uri_prefix - 1) != 0) return no_instance;
    binding b(t);
    const std::vector<int> ds = depths(t);
    for (size_t k = 0; k < ds.size(); ++k)
        if (strcasecmp(uri_of(t, ds[k]).c_str(), uri) == 0)
            if (int i = instance_at(t, ds[k], b.set); i != no_instance) return int(k) << 20 | i;
    return no_instance;
}

// ---------------------------------------------------------------- the splits
// What an info asks for: the value of one key, empty when it is absent (or the info null).
std::string info_value(MPI_Info info, const char *key)
{
    if (info == MPI_INFO_NULL) return {};
    int len = 0, flag = 0;
    if (MPI_Info_get_valuelen(info, const_cast<char *>(key), &len, &flag) != MPI_SUCCESS || !flag) return {};
    std::string v(size_t(len) + 1, '\0');
    if (MPI_Info_get(info, const_cast<char *>(key), len + 1, v.data(), &flag) != MPI_SUCCESS || !flag) return {};
    v.resize(std::strlen(v.c_str()));
    return v;
}

// The processes of `node` (one shared-memory node of the communicator) by `color`, ranked by
// `key` with ties in the order of the node's ranks (those of the communicator).
int split_node(MPI_Comm node, int color, int key, MPI_Comm *out)
{
    return MPI_Comm_split(node, color == no_instance ? MPI_UNDEFINED : color, key, out);
}

// The instance of a process set that holds the calling process: one communicator per instance.
// mpi://WORLD: the processes of its MPI_COMM_WORLD (after a spawn a communicator can hold several
// worlds: each is named by the lowest rank it has in `comm`; before the world model starts, a
// sessions program has one); mpi://SELF: the process alone.
int pset_color(MPI_Comm comm, const std::string &name)
{
    int rank = 0, world_started = 0;
    MPI_Comm_rank(comm, &rank);
    const int set = pset_index(name.c_str());
    if (set == pset_self) return rank;
    if (set != pset_world) return no_instance;
    MPI_Initialized(&world_started);
    if (!world_started) return 0;
    MPI_Group g = MPI_GROUP_NULL, w = MPI_GROUP_NULL;
    int n = 0, lowest = rank;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_size(w, &n);
    std::vector<int> world(static_cast<size_t>(n)), in_comm(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) world[size_t(i)] = i;
    MPI_Group_translate_ranks(w, n, world.data(), g, in_comm.data());
    for (int r : in_comm)
        if (r != MPI_UNDEFINED && r < lowest) lowest = r;
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return lowest;
}

// What MPI_COMM_TYPE_HW_GUIDED and MPI_COMM_TYPE_RESOURCE_GUIDED split by (the info's one key).
struct guide {
    std::string hw, pset;
};

// MPI_COMM_TYPE_HW_GUIDED and MPI_COMM_TYPE_RESOURCE_GUIDED: one communicator per instance of
// what the info names, of the processes restricted to that instance; MPI_COMM_NULL for the
// others, and for every process when the info names nothing this machine has.
int split_guided(MPI_Comm comm, const guide &g, int key, MPI_Comm *out)
{
    // The same info on every process (the standard requires it): all return here, or none.
    if (g.hw.empty() && g.pset.empty()) return MPI_SUCCESS;
    if (g.hw == "mpi_shared_memory") return MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, out);
    if (!g.pset.empty()) {
        int color = pset_color(comm, g.pset);
        return MPI_Comm_split(comm, color == no_instance ? MPI_UNDEFINED : color, key, out);
    }
    MPI_Comm node = MPI_COMM_NULL;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node)) return rc;
    int rc = split_node(node, instance_of(g.hw.c_str()), key, out);
    MPI_Comm_free(&node);
    return rc;
}

// MPI_COMM_TYPE_HW_UNGUIDED: the highest level of the hardware that divides the communicator
// into strict subsets -- first the shared-memory nodes, then hwloc's levels from the machine
// down -- each process in the one instance it is restricted to, MPI_COMM_NULL where it is not.
// A level serves when every communicator it makes is smaller than `comm` and it makes one; every
// process tries the same levels in the same order and the communicator agrees on each
// (MPI_Allreduce), so all stop at the same one.  A non-null info gets mpi_hw_resource_type.
int split_unguided(MPI_Comm comm, int key, MPI_Info info, MPI_Comm *out)
{
    int size = 0, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm node = MPI_COMM_NULL;
    if (int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node)) return rc;
    auto serves = [&](MPI_Comm mine) {
        int n = 0;
        if (mine != MPI_COMM_NULL) MPI_Comm_size(mine, &n);
        int mine_ok[2] = {mine == MPI_COMM_NULL || n < size, -(mine != MPI_COMM_NULL)}, all[2] = {0, 0};
        MPI_Allreduce(mine_ok, all, 2, MPI_INT, MPI_MIN, comm);
        return all[0] == 1 && all[1] == -1;
    };
    std::string type;
    int rc = MPI_SUCCESS;
    if (serves(node)) {  // several nodes: a node each
        rc = MPI_Comm_split(node, 0, key, out);
        type = std::string(uri_prefix) + "Machine";
    } else if (hwloc_topology_t t = topology()) {
        binding b(t);
        for (int d = 0, n = hwloc_topology_get_depth(t); d < n; ++d) {
            MPI_Comm c = MPI_COMM_NULL;
            if ((rc = split_node(node, instance_at(t, d, b.set), key, &c))) break;
            if (serves(c)) {
                *out = c;
                type = uri_of(t, d);
                break;
            }
            if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
        }
    }
    MPI_Comm_free(&node);
    if (rc == MPI_SUCCESS && *out != MPI_COMM_NULL && info != MPI_INFO_NULL)
        MPI_Info_set(info, const_cast<char *>("mpi_hw_resource_type"), type.data());
    return rc;
}

}  // namespace
}  // namespace anympi::backend

using namespace anympi::backend;

ANYMPI_MANUAL(MPI_Get_hw_resource_info, emulated, "from hwloc: a key per object type of the machine (hwloc://Package, hwloc://Core ...), true where the calling thread's binding lies within one object of that type (hw_resources.cpp)")
{
    if (!hw_info) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Get_hw_resource_info: hw_info is NULL");
    hwloc_topology_t t = topology();
    if (!t) return raise_error(errh_none(), ABI_ERR_OTHER, "MPI_Get_hw_resource_info: hwloc could not load this machine's topology");
    MPI_Info info = MPI_INFO_NULL;
    if (int rc = MPI_Info_create(&info)) return err_out(rc);
    binding b(t);
    for (int d : depths(t)) {
        std::string k = uri_of(t, d);
        int flag = 0;
        char v[8] = "";
        MPI_Info_get(info, k.data(), sizeof v - 1, v, &flag);
        if (flag && std::strcmp(v, "true") == 0) continue;  // restricted at a higher depth of the type
        MPI_Info_set(info, k.data(), const_cast<char *>(instance_at(t, d, b.set) != no_instance ? "true" : "false"));
    }
    *hw_info = to_abi<abi_Info>(info);
    return 0;
}

ANYMPI_MANUAL(MPI_Comm_split_type, extended, "MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED and MPI_COMM_TYPE_RESOURCE_GUIDED are anympi's, by the hwloc types of MPI_Get_hw_resource_info and the process sets mpi://WORLD and mpi://SELF (hw_resources.cpp)")
{
    if (split_type != ABI_COMM_TYPE_HW_GUIDED && split_type != ABI_COMM_TYPE_HW_UNGUIDED &&
        split_type != ABI_COMM_TYPE_RESOURCE_GUIDED) [[likely]]
        return fwd_MPI_Comm_split_type(comm, split_type, key, info, newcomm);
    if (!newcomm) return raise_error(errh_of(comm), ABI_ERR_ARG, "MPI_Comm_split_type: newcomm is NULL");
    MPI_Comm c = to_native(comm);
    if (c == MPI_COMM_NULL) return raise_error(errh_none(), ABI_ERR_COMM, "MPI_Comm_split_type: comm is MPI_COMM_NULL");
    auto out = c_hout_derived(newcomm, comm);
    MPI_Info i = to_native(info);
    if (split_type == ABI_COMM_TYPE_HW_UNGUIDED) return err_out(split_unguided(c, key, i, out));
    guide g{info_value(i, "mpi_hw_resource_type"),
            split_type == ABI_COMM_TYPE_RESOURCE_GUIDED ? info_value(i, "mpi_pset_name") : std::string()};
    if (!g.hw.empty() && !g.pset.empty())
        return raise_error(errh_of(comm), ABI_ERR_INFO_KEY,
                           "MPI_Comm_split_type: info has both mpi_hw_resource_type and mpi_pset_name (one at a time)");
    return err_out(split_guided(c, g, key, out));
}
