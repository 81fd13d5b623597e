/* Checking helpers for the runtime behavioural tests.
 *
 * The programs use only the MPI standard API, so they compile against MPICH's,
 * Open MPI's and anympi's standard mpi.h alike.  Handles are opaque: they are only
 * ever compared with == against other handles, never printed as integers.
 *
 * A failed check prints file:line, the rank and what differed, and counts; the
 * verdict (check_finish) is collective over MPI_COMM_WORLD, so every rank exits
 * non-zero when any rank failed.  CHECK_FATAL aborts the job when continuing would
 * only hang (e.g. a message that never arrives).
 */
#ifndef ANYMPI_TESTS_RUNTIME_CHECK_H
#define ANYMPI_TESTS_RUNTIME_CHECK_H

#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures_;
static long check_count_;
static const char *check_program_ = "test";

static inline int check_world_rank_(void)
{
    int init = 0, fin = 0, rank = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static inline void check_report_(const char *file, int line, const char *what)
{
    ++check_failures_;
    fprintf(stderr, "%s:%d: [rank %d] FAILED: %s\n", file, line, check_world_rank_(), what);
    fflush(stderr);
}

#define CHECK_STR_(x) #x

/* CHECK(cond): cond must hold. */
#define CHECK(cond)                                                            \
    do {                                                                       \
        ++check_count_;                                                        \
        if (!(cond))                                                           \
            check_report_(__FILE__, __LINE__, "CHECK(" #cond ")");             \
    } while (0)

/* CHECK_MSG(cond, fmt, ...): like CHECK with a printf-style explanation. */
#define CHECK_MSG(cond, ...)                                                   \
    do {                                                                       \
        ++check_count_;                                                        \
        if (!(cond)) {                                                         \
            char check_buf_[1024];                                              \
            int check_n_ = snprintf(check_buf_, sizeof check_buf_,             \
                                    "CHECK(%s): ", #cond);                     \
            if (check_n_ > 0 && check_n_ < (int)sizeof check_buf_)             \
                snprintf(check_buf_ + check_n_,                                \
                         sizeof check_buf_ - (size_t)check_n_, __VA_ARGS__);   \
            check_report_(__FILE__, __LINE__, check_buf_);                     \
        }                                                                      \
    } while (0)

/* Integer equality, both values printed. */
#define CHECK_EQ(actual, expected)                                             \
    do {                                                                       \
        long long check_a_ = (long long)(actual);                              \
        long long check_e_ = (long long)(expected);                            \
        CHECK_MSG(check_a_ == check_e_, "%s = %lld, expected %s = %lld",       \
                  #actual, check_a_, #expected, check_e_);                     \
    } while (0)

/* Floating-point equality within an absolute tolerance. */
#define CHECK_NEAR(actual, expected, tol)                                      \
    do {                                                                       \
        double check_a_ = (double)(actual);                                    \
        double check_e_ = (double)(expected);                                  \
        CHECK_MSG(fabs(check_a_ - check_e_) <= (tol),                          \
                  "%s = %.17g, expected %s = %.17g", #actual, check_a_,        \
                  #expected, check_e_);                                        \
    } while (0)

/* String equality. */
#define CHECK_STREQ(actual, expected)                                          \
    do {                                                                       \
        const char *check_a_ = (actual);                                       \
        const char *check_e_ = (expected);                                     \
        CHECK_MSG(check_a_ && check_e_ && strcmp(check_a_, check_e_) == 0,     \
                  "%s = \"%s\", expected \"%s\"", #actual,                     \
                  check_a_ ? check_a_ : "(null)",                              \
                  check_e_ ? check_e_ : "(null)");                             \
    } while (0)

/* Handle equality: handles are opaque, so only the expressions are printed. */
#define CHECK_HANDLE(actual, expected)                                         \
    CHECK_MSG((actual) == (expected), "handle %s differs from %s", #actual,    \
              #expected)

static inline void check_mpi_failed_(const char *file, int line, const char *call, int rc)
{
    char msg[MPI_MAX_ERROR_STRING + 1] = "";
    char what[MPI_MAX_ERROR_STRING + 1024];
    int len = 0, cls = -1;
    MPI_Error_string(rc, msg, &len);
    MPI_Error_class(rc, &cls);
    snprintf(what, sizeof what, "%s returned %d (class %d): %s", call, rc, cls, msg);
    check_report_(file, line, what);
}

/* MPI_OK(call): the call must return MPI_SUCCESS (with MPI_ERRORS_RETURN set). */
#define MPI_OK(call)                                                           \
    do {                                                                       \
        int check_rc_ = (call);                                                \
        ++check_count_;                                                        \
        if (check_rc_ != MPI_SUCCESS)                                          \
            check_mpi_failed_(__FILE__, __LINE__, #call, check_rc_);           \
    } while (0)

/* SPIN(call_setting_flag, flag): repeat a Test-like call until flag is set; an
 * error ends the loop (and is reported) instead of spinning forever. */
#define SPIN(call, flag)                                                       \
    do {                                                                       \
        (flag) = 0;                                                            \
        while (!(flag)) {                                                      \
            int check_rc_ = (call);                                            \
            if (check_rc_ != MPI_SUCCESS) {                                    \
                check_mpi_failed_(__FILE__, __LINE__, #call, check_rc_);       \
                break;                                                         \
            }                                                                  \
        }                                                                      \
    } while (0)

/* COLL(nb, blocking, nonblocking): the blocking call, or the nonblocking one (which sets
 * *req) plus a wait that must leave the request null. */
#define COLL(nb, blocking, nonblocking)                                        \
    do {                                                                       \
        if (nb) {                                                              \
            MPI_Request req_ = MPI_REQUEST_NULL;                               \
            MPI_Request *req = &req_;                                          \
            MPI_OK(nonblocking);                                               \
            MPI_OK(MPI_Wait(req, MPI_STATUS_IGNORE));                          \
            CHECK(req_ == MPI_REQUEST_NULL);                                   \
        } else {                                                               \
            MPI_OK(blocking);                                                  \
        }                                                                      \
    } while (0)

/* CHECK_FATAL(cond): a failure that would make the rest hang aborts the job. */
#define CHECK_FATAL(cond)                                                      \
    do {                                                                       \
        ++check_count_;                                                        \
        if (!(cond)) {                                                         \
            check_report_(__FILE__, __LINE__, "FATAL CHECK(" #cond ")");       \
            MPI_Abort(MPI_COMM_WORLD, 3);                                      \
        }                                                                      \
    } while (0)

/* Known defects of the MPI underneath, tolerated only where they show and each
 * with its reason.  Detected at run time from MPI_Get_library_version (allowed
 * before MPI_Init), so a binary built once over the standard ABI tolerates exactly
 * what the native build tolerates on the same MPI, and nothing on any other. */
enum { CHECK_UNDER_OTHER = 0, CHECK_UNDER_MPICH = 1, CHECK_UNDER_OPENMPI = 2 };
static inline int check_under(void)
{
    static int under = -1;
    if (under < 0) {
        char s[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
        int len = 0;
        MPI_Get_library_version(s, &len);
        under = strstr(s, "MPICH") ? CHECK_UNDER_MPICH
              : strstr(s, "Open MPI") ? CHECK_UNDER_OPENMPI
                                      : CHECK_UNDER_OTHER;
    }
    return under;
}
/* MPICH 4.0.2 completes a nonblocking receive from MPI_PROC_NULL (and the receive
 * half of MPI_Sendrecv / MPI_Isendrecv) with source 0 / tag 0 instead of
 * MPI_PROC_NULL / MPI_ANY_TAG. */
#define QUIRK_MPICH_PROC_NULL_STATUS (check_under() == CHECK_UNDER_MPICH)
/* Whether the program is built against the standard ABI (anympi's mpi.h). */
#ifdef MPI_ABI_VERSION
#define CHECK_OVER_ABI 1
#else
#define CHECK_OVER_ABI 0
#endif
/* Debian's MPICH 4.0.2 under Hydra fails every MPI_Comm_spawn ("Error in spawn call"). */
#define QUIRK_MPICH_SPAWN (check_under() == CHECK_UNDER_MPICH)
/* Debian's MPICH 4.0.2 (ch4:ucx) has no ports: MPI_Open_port fails ("not supported with ucx netmod"). */
#define QUIRK_MPICH_PORTS (check_under() == CHECK_UNDER_MPICH)
/* MPICH 4.0.2 leaves the status of MPI_Isendrecv unset (anympi uses its own over MPICH). */
#define QUIRK_MPICH_ISENDRECV_STATUS (check_under() == CHECK_UNDER_MPICH && !CHECK_OVER_ABI)
/* MPICH 4.0.2's MPI_Isendrecv_replace of a noncontiguous datatype receives wrong data, and the
 * next call crashes; to MPI_PROC_NULL it crashes (anympi uses its own over MPICH). */
#define QUIRK_MPICH_ISENDRECV_REPLACE (check_under() == CHECK_UNDER_MPICH && !CHECK_OVER_ABI)
/* MPICH 4.0.2's MPI_Reduce_scatter_c with a count past INT_MAX gives the other processes wrong
 * data and crashes in place (anympi uses its own over MPICH). */
#define QUIRK_MPICH_REDUCE_SCATTER_LARGE (check_under() == CHECK_UNDER_MPICH && !CHECK_OVER_ABI)
/* MPICH 4.0.2's partitioned communication: MPI_Parrived fails on an inactive request
 * (MPI_ERR_REQUEST) and faults on MPI_REQUEST_NULL (the standard: flag = true for both),
 * MPI_Psend_init to MPI_PROC_NULL faults, and nothing is sent before every partition is ready
 * (anympi uses its own over MPICH). */
#define QUIRK_MPICH_PARTITIONED (check_under() == CHECK_UNDER_MPICH && !CHECK_OVER_ABI)
/* MPICH 4.0.2 ignores the displacement of a 1-process MPI_Allgatherv. */
#define QUIRK_MPICH_ALLGATHERV_NP1 (check_under() == CHECK_UNDER_MPICH)
/* MPICH 4.0.2 rejects MPI_Info_get with valuelen shorter than the value
 * (the standard says the value is truncated). */
#define QUIRK_MPICH_INFO_GET_TRUNCATE (check_under() == CHECK_UNDER_MPICH)
/* MPICH 4.0.2's MPI_LASTUSEDCODE does not cover codes from MPI_Add_error_code. */
#define QUIRK_MPICH_LASTUSEDCODE (check_under() == CHECK_UNDER_MPICH)
/* MPICH 4.0.2 faults in a blocking MPI_Reduce with MPI_IN_PLACE at a root other than 0
 * once the message exceeds 2048 bytes: its ch4 "composition alpha" passes MPI_IN_PLACE on
 * as the send buffer of a non-root in the node-local reduce (pmodels/mpich#6540, fixed in
 * 4.1.2 by pmodels/mpich#6543). */
#define QUIRK_MPICH_REDUCE_IN_PLACE_ROOT (check_under() == CHECK_UNDER_MPICH)
/* MPICH 4.0.2's persistent collectives read some inputs at MPI_*_init and restart wrongly:
 * gather leaves the root's own block unset, allgather at 2 processes gives stale data, scatter
 * at 4 fails with "Invalid communicator".  Over MPICH anympi uses its own (these two quirks and
 * the next). */
#define QUIRK_MPICH_PERSISTENT_COLL_RESTART (check_under() == CHECK_UNDER_MPICH && !CHECK_OVER_ABI)
/* MPICH 4.0.2 reports a persistent collective never started as not complete in
 * MPI_Request_get_status, and MPI_Waitany/Testsome complete an inactive one again (the
 * standard: an inactive request is ignored, or answers at once with an empty status). */
#define QUIRK_MPICH_PERSISTENT_COLL_INACTIVE (check_under() == CHECK_UNDER_MPICH && !CHECK_OVER_ABI)
/* Open MPI 4.1.4 counts the terminating NUL in MPI_Get_library_version's resultlen. */
#define QUIRK_OPENMPI_LIBRARY_VERSION_LEN (check_under() == CHECK_UNDER_OPENMPI)
/* Open MPI 4.1.4 reports no truncation for a too-long message to self. */
#define QUIRK_OPENMPI_SELF_TRUNCATE (check_under() == CHECK_UNDER_OPENMPI)

/* MPI-4 functions over an MPI-3.1 library (Open MPI 4.1.4): until anympi emulates
 * them, the only acceptable alternative to doing the job is saying so clearly, with
 * MPI_ERR_UNSUPPORTED_OPERATION and a message.  True when rc is exactly that under
 * Open MPI (the caller then skips the checks of the result, and says so). */
#if MPI_VERSION >= 4
static inline int check_mpi4_unsupported(int rc, const char *what)
{
    int cls = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    if (rc == MPI_SUCCESS || check_under() != CHECK_UNDER_OPENMPI) return 0;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_UNSUPPORTED_OPERATION) return 0;
    MPI_Error_string(rc, msg, &len);
    ++check_count_;
    if (len <= 0) check_report_(__FILE__, __LINE__, "unsupported operation without a message");
    if (check_world_rank_() == 0) printf("note: %s unsupported on this MPI: %s\n", what, msg);
    return 1;
}
#endif

/* MPI_Init_thread-free start used by most programs: errors return, so MPI_OK
 * reports them instead of the default handler aborting without a line number. */
static inline void check_init(int *argc, char ***argv, const char *program)
{
    check_program_ = program;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "%s: MPI_Init failed\n", program);
        exit(2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

/* The collective verdict: every rank learns whether any rank failed, rank 0
 * prints one summary line, and the exit status is non-zero on any failure. */
static inline int check_finish(void)
{
    int local = check_failures_, global = 0, rank = 0;
    long checks = check_count_, all_checks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) {
        fprintf(stderr, "%s: verdict allreduce failed\n", check_program_);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    MPI_Reduce(&checks, &all_checks, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %ld checks, %d failures\n", check_program_, all_checks, global);
    fflush(stdout);
    MPI_Finalize();
    return global == 0 ? 0 : 1;
}

#endif
