/* MPI_Get_hw_resource_info and the communicator splits by hardware and process set
 * (MPI_COMM_TYPE_RESOURCE_GUIDED, MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED), judged
 * against the kernel's own view: the calling thread's CPU affinity (sched_getaffinity) and the
 * CPU topology in /sys.  Each rank first widens its affinity to every CPU it may use (whatever
 * the launcher bound), then binds itself to one CPU (rank modulo the CPUs): the info must follow
 * the binding at the moment of each call, and the splits must group exactly the ranks that share
 * what they name.  Neither MPI here has the function or MPI_COMM_TYPE_RESOURCE_GUIDED (MPI-4.1 and
 * MPI-5.0), and MPICH 4.0.2's own MPI_COMM_TYPE_HW_GUIDED answers MPI_COMM_NULL for every hwloc
 * type on unbound processes: this program runs over the ABI only. */
#define _GNU_SOURCE
#include "check.h"

#include <sched.h>

static int ncpus_online(void)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    sched_getaffinity(0, sizeof s, &s);
    return CPU_COUNT(&s);
}

/* One /sys/devices/system/cpu/cpuN/topology value, -1 when absent. */
static int topo_value(int cpu, const char *what)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    FILE *f = fopen(path, "r");
    int v = -1;
    if (f) {
        if (fscanf(f, "%d", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

/* Whether every CPU of the calling thread's affinity has the same value of `what` (NULL: the
 * same CPU). */
static int affinity_within_one(const char *what)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    sched_getaffinity(0, sizeof s, &s);
    int first = -2, n = 0;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (!CPU_ISSET(c, &s)) continue;
        ++n;
        int v = what ? topo_value(c, what) * 4096 + topo_value(c, "physical_package_id") : c;
        if (first == -2) first = v;
        else if (v != first) return 0;
    }
    return n > 0;
}

/* The info's value for `key` ("" when absent). */
static const char *value_of(MPI_Info info, const char *key, char *buf, int len)
{
    int flag = 0, l = len;
    buf[0] = '\0';
    MPI_OK(MPI_Info_get_string(info, key, &l, buf, &flag));
    if (!flag) buf[0] = '\0';
    return buf;
}

/* The hardware info as the kernel sees the calling thread: every key hwloc://<type> with
 * true or false; Machine always true; PU, Core and Package true exactly when the affinity lies
 * within one of them. */
static void check_info(const char *when)
{
    MPI_Info info = MPI_INFO_NULL;
    MPI_OK(MPI_Get_hw_resource_info(&info));
    CHECK(info != MPI_INFO_NULL);
    if (info == MPI_INFO_NULL) return;
    int nkeys = 0;
    MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK_MSG(nkeys >= 3, "%s: %d keys", when, nkeys);
    for (int i = 0; i < nkeys; ++i) {
        char key[MPI_MAX_INFO_KEY + 1] = "", v[16];
        MPI_OK(MPI_Info_get_nthkey(info, i, key));
        value_of(info, key, v, sizeof v);
        CHECK_MSG(strncmp(key, "hwloc://", 8) == 0, "%s: key %s", when, key);
        CHECK_MSG(!strcmp(v, "true") || !strcmp(v, "false"), "%s: %s=%s", when, key, v);
    }
    char v[16];
    CHECK_MSG(!strcmp(value_of(info, "hwloc://Machine", v, sizeof v), "true"), "%s: Machine=%s", when, v);
    struct { const char *key, *sys; } kinds[] = {{"hwloc://PU", NULL}, {"hwloc://Core", "core_id"}, {"hwloc://Package", "physical_package_id"}};
    for (int k = 0; k < 3; ++k) {
        const char *expect = affinity_within_one(kinds[k].sys) ? "true" : "false";
        CHECK_MSG(!strcmp(value_of(info, kinds[k].key, v, sizeof v), expect), "%s: %s=%s, the kernel says %s", when,
                  kinds[k].key, v, expect);
    }
    MPI_OK(MPI_Info_free(&info));
}

/* A split by one info key; MPI_COMM_NULL or the communicator. */
static MPI_Comm split_by(int type, const char *key, const char *value, int order)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key) {
        MPI_OK(MPI_Info_create(&info));
        MPI_OK(MPI_Info_set(info, key, value));
    }
    MPI_Comm c = MPI_COMM_NULL;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, type, order, info, &c));
    if (info != MPI_INFO_NULL) MPI_OK(MPI_Info_free(&info));
    return c;
}

/* `c` holds exactly the world ranks whose label equals this rank's, ranked by descending world
 * rank (the key each split was given). */
static void check_members(MPI_Comm c, const int *label, const char *what)
{
    int rank, size, n = 0, crank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MSG(c != MPI_COMM_NULL, "%s: no communicator", what);
    if (c == MPI_COMM_NULL) return;
    int members[64], expected = 0;
    MPI_OK(MPI_Comm_size(c, &n));
    MPI_OK(MPI_Comm_rank(c, &crank));
    for (int r = 0; r < size; ++r) expected += label[r] == label[rank];
    CHECK_MSG(n == expected, "%s: %d processes, expected %d", what, n, expected);
    if (n != expected || n > 64) return;
    MPI_OK(MPI_Allgather(&rank, 1, MPI_INT, members, 1, MPI_INT, c));
    for (int i = 0; i < n; ++i) {
        CHECK_MSG(label[members[i]] == label[rank], "%s: world rank %d does not belong", what, members[i]);
        if (i > 0) CHECK_MSG(members[i] < members[i - 1], "%s: not in key order at %d", what, i);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_program_ = "hw_resources";
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* every CPU the process may use */
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
    int ncpu = ncpus_online();
    int cpus[CPU_SETSIZE], n = 0;
    {
        cpu_set_t s;
        CPU_ZERO(&s);
        sched_getaffinity(0, sizeof s, &s);
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &s)) cpus[n++] = c;
    }
    check_info("unbound");
    char v[16];
    if (ncpu > 1) {
        MPI_Info info;
        MPI_OK(MPI_Get_hw_resource_info(&info));
        CHECK_MSG(!strcmp(value_of(info, "hwloc://PU", v, sizeof v), "false"), "unbound on %d CPUs: PU=%s", ncpu, v);
        MPI_OK(MPI_Info_free(&info));
        /* not restricted to one PU: in no communicator of PUs */
        MPI_Comm c = split_by(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", "hwloc://PU", size - rank);
        CHECK_MSG(c == MPI_COMM_NULL, "unbound: a communicator of PUs");
        if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    }

    /* one CPU each: rank modulo the CPUs */
    int mine = cpus[rank % n];
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(mine, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    check_info("bound");
    {
        MPI_Info info;
        MPI_OK(MPI_Get_hw_resource_info(&info));
        CHECK_MSG(!strcmp(value_of(info, "hwloc://PU", v, sizeof v), "true"), "bound to CPU %d: PU=%s", mine, v);
        CHECK_MSG(!strcmp(value_of(info, "hwloc://Core", v, sizeof v), "true"), "bound to CPU %d: Core=%s", mine, v);
        MPI_OK(MPI_Info_free(&info));
    }
    int label[64], shared_label[64];
    CHECK_FATAL(size <= 64);
    MPI_OK(MPI_Allgather(&mine, 1, MPI_INT, label, 1, MPI_INT, MPI_COMM_WORLD));

    /* the ranks on one CPU, by both guided types; ranked by the key (descending world rank) */
    MPI_Comm c = split_by(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", "hwloc://PU", size - rank);
    check_members(c, label, "RESOURCE_GUIDED hwloc://PU");
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    c = split_by(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "hwloc://pu", size - rank);
    check_members(c, label, "HW_GUIDED hwloc://pu");
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);

    /* the whole node: the machine, shared memory, the world's process set */
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &node));
    int node_leader = 0;
    {
        int first_world_rank = 0;
        MPI_Allreduce(&rank, &first_world_rank, 1, MPI_INT, MPI_MIN, node);
        node_leader = first_world_rank;
    }
    MPI_OK(MPI_Allgather(&node_leader, 1, MPI_INT, shared_label, 1, MPI_INT, MPI_COMM_WORLD));
    MPI_Comm_free(&node);
    const char *whole[][3] = {{"HW_GUIDED", "mpi_hw_resource_type", "hwloc://Machine"},
                              {"RESOURCE_GUIDED", "mpi_hw_resource_type", "hwloc://Machine"},
                              {"RESOURCE_GUIDED", "mpi_hw_resource_type", "mpi_shared_memory"}};
    for (int i = 0; i < 3; ++i) {
        c = split_by(whole[i][0][0] == 'H' ? MPI_COMM_TYPE_HW_GUIDED : MPI_COMM_TYPE_RESOURCE_GUIDED, whole[i][1], whole[i][2], size - rank);
        char what[96];
        snprintf(what, sizeof what, "%s %s", whole[i][0], whole[i][2]);
        check_members(c, shared_label, what);
        if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    }
    int everyone[64] = {0}, self[64];
    for (int r = 0; r < size; ++r) self[r] = r;
    c = split_by(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://WORLD", size - rank);
    check_members(c, everyone, "mpi://WORLD");
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    c = split_by(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://SELF", size - rank);
    check_members(c, self, "mpi://SELF");
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);

    /* nothing named, or nothing this machine or MPI has: MPI_COMM_NULL everywhere */
    const char *nothing[][2] = {{NULL, NULL}, {"other_key", "x"}, {"mpi_hw_resource_type", "hwloc://NoSuchThing"},
                                {"mpi_hw_resource_type", "Core"}, {"mpi_pset_name", "mpi://nowhere"}};
    for (int i = 0; i < 5; ++i) {
        c = split_by(MPI_COMM_TYPE_RESOURCE_GUIDED, nothing[i][0], nothing[i][1], rank);
        CHECK_MSG(c == MPI_COMM_NULL, "%s=%s: a communicator", nothing[i][0] ? nothing[i][0] : "MPI_INFO_NULL",
                  nothing[i][1] ? nothing[i][1] : "");
        if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    }
    /* HW_GUIDED knows no process sets */
    c = split_by(MPI_COMM_TYPE_HW_GUIDED, "mpi_pset_name", "mpi://WORLD", rank);
    CHECK_MSG(c == MPI_COMM_NULL, "HW_GUIDED by a process set: a communicator");
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);

    /* both keys at once is erroneous: MPI_ERR_INFO_KEY, named */
    {
        MPI_Info info;
        MPI_OK(MPI_Info_create(&info));
        MPI_OK(MPI_Info_set(info, "mpi_hw_resource_type", "hwloc://Machine"));
        MPI_OK(MPI_Info_set(info, "mpi_pset_name", "mpi://WORLD"));
        c = MPI_COMM_NULL;
        int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, rank, info, &c), cls = -1, len = 0;
        char msg[MPI_MAX_ERROR_STRING] = "";
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
        CHECK_MSG(cls == MPI_ERR_INFO_KEY, "both keys: class %d", cls);
        CHECK_MSG(strstr(msg, "mpi_pset_name") != NULL, "both keys: message \"%s\"", msg);
        CHECK(c == MPI_COMM_NULL);
        MPI_OK(MPI_Info_free(&info));
    }
    {
        int rc = MPI_Get_hw_resource_info(NULL), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK_MSG(cls == MPI_ERR_ARG, "MPI_Get_hw_resource_info(NULL): class %d", cls);
    }

    /* unguided: the highest level that divides the world into strict subsets.  On one node with
     * the ranks on more than one CPU, every communicator holds the ranks of its CPU (which share
     * every level) and none holds them all; the level it names in the info splits the same way. */
    {
        int distinct = 0, nodes = 0;
        for (int r = 0; r < size; ++r) {
            int seen = 0;
            for (int q = 0; q < r; ++q) seen |= label[q] == label[r] && shared_label[q] == shared_label[r];
            distinct += !seen;
            nodes += shared_label[r] == r;
        }
        MPI_Info info;
        MPI_OK(MPI_Info_create(&info));
        c = MPI_COMM_NULL;
        MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, size - rank, info, &c));
        if (distinct < 2) {
            CHECK_MSG(c == MPI_COMM_NULL, "unguided with every rank on one CPU: a communicator");
        } else if (nodes == 1) {
            CHECK_MSG(c != MPI_COMM_NULL, "unguided: no communicator (ranks on %d CPUs)", distinct);
        }
        char type[MPI_MAX_INFO_VAL + 1] = "", first[MPI_MAX_INFO_VAL + 1] = "";
        if (c != MPI_COMM_NULL) {
            int csize = 0, members[64];
            MPI_Comm_size(c, &csize);
            CHECK_MSG(csize < size, "unguided: %d of %d processes (not a strict subset)", csize, size);
            MPI_OK(MPI_Allgather(&rank, 1, MPI_INT, members, 1, MPI_INT, c));
            int same_cpu = 0, found = 0;
            for (int r = 0; r < size; ++r) same_cpu += label[r] == mine && shared_label[r] == shared_label[rank];
            for (int i = 0; i < csize; ++i) found += label[members[i]] == mine;
            CHECK_MSG(found == same_cpu, "unguided: %d of the %d ranks on CPU %d", found, same_cpu, mine);
            value_of(info, "mpi_hw_resource_type", type, sizeof type);
            CHECK_MSG(strncmp(type, "hwloc://", 8) == 0, "unguided: mpi_hw_resource_type=\"%s\"", type);
        }
        /* the same level everywhere, and asked for by name it splits the same way */
        int have = c != MPI_COMM_NULL, all_have = 0;
        MPI_OK(MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
        strcpy(first, type);
        MPI_OK(MPI_Bcast(first, sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD));
        if (all_have) {
            CHECK_MSG(!strcmp(first, type), "unguided: %s here, %s at rank 0", type, first);
            MPI_Comm again = split_by(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", first, size - rank);
            int result = MPI_UNEQUAL;
            if (again != MPI_COMM_NULL) MPI_Comm_compare(c, again, &result);
            CHECK_MSG(result == MPI_CONGRUENT, "unguided %s and guided by it differ (%d)", first, result);
            if (again != MPI_COMM_NULL) MPI_Comm_free(&again);
        }
        if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
        MPI_OK(MPI_Info_free(&info));
    }
    return check_finish();
}
