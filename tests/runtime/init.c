/* Init/finalize and the environment queries: Init_thread, Initialized, Finalized,
 * Query_thread, Is_thread_main, Get_version, Get_library_version,
 * Get_processor_name, Wtime/Wtick, Alloc_mem/Free_mem, Get_address/Aint_*; signal handlers
 * the program sets before MPI_Init are still its own after it. */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include "check.h"
#include <signal.h>

/* The signals UCX (under MPICH) takes for its error reports when its library is loaded:
 * natively at program start, so a program's own handlers, set later, win; anympi loads the
 * MPI inside MPI_Init, after them, and the program's were replaced. */
static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
enum { n_fault_signals = sizeof fault_signals / sizeof fault_signals[0] };
static void on_fault(int sig) { (void)sig; }
static void set_fault_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < n_fault_signals; ++i) sigaction(fault_signals[i], &sa, NULL);
}
static void check_fault_handlers(void)
{
    for (int i = 0; i < n_fault_signals; ++i) {
        struct sigaction now;
        CHECK(sigaction(fault_signals[i], NULL, &now) == 0);
        CHECK_MSG(now.sa_handler == on_fault, "signal %d: the program's handler was replaced in MPI_Init",
                  fault_signals[i]);
    }
}

static int is_thread_level(int level)
{
    return level == MPI_THREAD_SINGLE || level == MPI_THREAD_FUNNELED ||
           level == MPI_THREAD_SERIALIZED || level == MPI_THREAD_MULTIPLE;
}

int main(int argc, char **argv)
{
    int flag = -1, version = 0, subversion = 0, len = -1;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];

    set_fault_handlers(); /* before any MPI call: anympi loads the MPI at the first */

    /* Allowed before MPI_Init. */
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS);
    CHECK_EQ(flag, 0);
    flag = -1;
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS);
    CHECK_EQ(flag, 0);
    CHECK(MPI_Get_version(&version, &subversion) == MPI_SUCCESS);
    CHECK_EQ(version, MPI_VERSION);
    CHECK_EQ(subversion, MPI_SUBVERSION);
    memset(lib, 0x7f, sizeof lib);
    CHECK(MPI_Get_library_version(lib, &len) == MPI_SUCCESS);
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING);
    CHECK(len >= 0 && len < (int)sizeof lib &&
          ((int)strlen(lib) == len ||
           (QUIRK_OPENMPI_LIBRARY_VERSION_LEN && (int)strlen(lib) + 1 == len)));

    /* The thread levels are ordered and the one provided is one of them. */
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED);
    CHECK(MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED);
    CHECK(MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE);
    int provided = -12345;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "init: MPI_Init_thread failed\n");
        return 2;
    }
    check_program_ = "init";
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_MSG(is_thread_level(provided), "provided = %d", provided);
    check_fault_handlers();

    int queried = -12345;
    MPI_OK(MPI_Query_thread(&queried));
    CHECK_EQ(queried, provided);
    flag = 0;
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK_EQ(flag, 1);
    flag = 0;
    MPI_OK(MPI_Initialized(&flag));
    CHECK_EQ(flag, 1);
    flag = 1;
    MPI_OK(MPI_Finalized(&flag));
    CHECK_EQ(flag, 0);

    int size = 0, rank = -1;
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(size >= 1);
    CHECK(rank >= 0 && rank < size);
    int self_size = 0, self_rank = -1;
    MPI_OK(MPI_Comm_size(MPI_COMM_SELF, &self_size));
    MPI_OK(MPI_Comm_rank(MPI_COMM_SELF, &self_rank));
    CHECK_EQ(self_size, 1);
    CHECK_EQ(self_rank, 0);

    /* Every rank sees the same version and the same library string. */
    int v2[2] = {version, subversion}, vmax[2], vmin[2];
    MPI_OK(MPI_Allreduce(v2, vmax, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(v2, vmin, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    CHECK(vmax[0] == vmin[0] && vmax[1] == vmin[1]);
    char lib0[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    memcpy(lib0, lib, sizeof lib0);
    MPI_OK(MPI_Bcast(lib0, (int)sizeof lib0, MPI_CHAR, 0, MPI_COMM_WORLD));
    CHECK_STREQ(lib, lib0);

    char name[MPI_MAX_PROCESSOR_NAME + 1];
    memset(name, 0x7f, sizeof name);
    len = -1;
    MPI_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME);
    CHECK(len >= 0 && len <= MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len);

    /* Wtime is monotonic here and Wtick a plausible resolution. */
    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    double t1 = t0;
    for (int i = 0; i < 1000 && t1 <= t0; ++i) {
        volatile double x = 0;
        for (int j = 0; j < 10000; ++j) x += j;
        t1 = MPI_Wtime();
    }
    CHECK(t1 > t0);
    CHECK(t1 - t0 < 100.0);
    CHECK(tick > 0.0 && tick < 1.0);

    /* Memory and addresses. */
    void *mem = NULL;
    MPI_OK(MPI_Alloc_mem(1024, MPI_INFO_NULL, &mem));
    CHECK(mem != NULL);
    if (mem) {
        memset(mem, 1, 1024);
        MPI_OK(MPI_Free_mem(mem));
    }
    double arr[4];
    MPI_Aint a0 = 0, a3 = 0;
    MPI_OK(MPI_Get_address(&arr[0], &a0));
    MPI_OK(MPI_Get_address(&arr[3], &a3));
    CHECK_EQ(a3 - a0, 3 * (long)sizeof(double));
    CHECK_EQ(MPI_Aint_diff(a3, a0), 3 * (long)sizeof(double));
    CHECK_EQ(MPI_Aint_add(a0, 3 * (MPI_Aint)sizeof(double)), a3);

    /* The collective verdict, then Finalized must say so. */
    int local = check_failures_, global = 0;
    MPI_OK(MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (rank == 0)
        printf("init: %ld checks on rank 0, %d failures\n", check_count_, global);
    fflush(stdout);
    if (MPI_Finalize() != MPI_SUCCESS) {
        fprintf(stderr, "init: MPI_Finalize failed\n");
        return 1;
    }
    flag = 0;
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag != 1) {
        fprintf(stderr, "%s:%d: [rank %d] MPI_Finalized after MPI_Finalize gave %d\n",
                __FILE__, __LINE__, rank, flag);
        return 1;
    }
    flag = 0;
    if (MPI_Initialized(&flag) != MPI_SUCCESS || flag != 1) {
        fprintf(stderr, "%s:%d: [rank %d] MPI_Initialized after MPI_Finalize gave %d\n",
                __FILE__, __LINE__, rank, flag);
        return 1;
    }
    return global == 0 ? 0 : 1;
}
