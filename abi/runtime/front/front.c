/* libmpi_abi.so.1's own code: find and load the backend, and the few functions that must
 * answer before one is loaded.  Everything else is the generated dispatch in front.gen.c. */
#define _GNU_SOURCE
#include "front.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *const *anympi_table;
__thread void *const *anympi_thread_table = anympi_loader_table;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* Which MPI to load: ANYMPI_BACKEND, else whatever launcher started us, else MPICH. */
static const char *choose_backend(void)
{
    const char *b = getenv("ANYMPI_BACKEND");
    if (b && *b) return b;
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("OMPI_COMM_WORLD_RANK") || getenv("PMIX_RANK") ||
        getenv("OMPI_UNIVERSE_SIZE"))
        return "openmpi";
    /* hydra (MPICH's launcher) sets PMI_RANK/PMI_FD/PMI_SIZE; a singleton gets MPICH too */
    return "mpich";
}

/* Which MPI a backend choice names: "mpich", "openmpi", or NULL for a library path whose file
 * name does not say (the same rule as anympi's mpiexec). */
static const char *backend_mpi(const char *choice)
{
    const char *base = strrchr(choice, '/');
    base = base ? base + 1 : choice;
    if (strstr(base, "openmpi") || strstr(base, "ompi")) return "openmpi";
    if (strstr(base, "mpich")) return "mpich";
    return 0;
}

/* A backend that cannot join the job its launcher started would run every rank as a job of
 * one and exit 0: stop instead, with one message (from the launcher's rank 0) naming both and
 * the fix.  The launcher is known by what only it sets: hydra (MPICH's) hands each rank its PMI
 * connection (PMI_FD, or PMI_PORT), Open MPI's sets OMPI_COMM_WORLD_SIZE.  Both set (a job
 * started from inside another) or neither (a singleton): not judged. */
static void check_launcher(const char *choice)
{
    const char *mpi = backend_mpi(choice);
    int hydra = getenv("PMI_FD") || getenv("PMI_PORT");
    int ompi = getenv("OMPI_COMM_WORLD_SIZE") != 0;
    if (!mpi || hydra == ompi) return;
    const char *launcher = hydra ? "mpich" : "openmpi";
    if (strcmp(mpi, launcher) == 0) return;
    const char *rank = getenv(hydra ? "PMI_RANK" : "OMPI_COMM_WORLD_RANK");
    if (!rank || strcmp(rank, "0") == 0) {
        const char *name = strcmp(mpi, "mpich") == 0 ? "MPICH" : "Open MPI";
        const char *lname = hydra ? "MPICH" : "Open MPI";
        const char *why = hydra ? (getenv("PMI_FD") ? "PMI_FD" : "PMI_PORT") : "OMPI_COMM_WORLD_SIZE";
        fprintf(stderr,
                "anympi: ANYMPI_BACKEND=%s runs %s, but %s's launcher started this job (%s is set): %s cannot "
                "join it and every rank would run alone, so every rank stops.\n"
                "anympi: fix: start it with anympi's mpiexec (for ANYMPI_BACKEND=%s it uses mpiexec.%s), or run it "
                "on %s: ANYMPI_BACKEND=%s, or ANYMPI_BACKEND unset (the runtime then follows the launcher).\n",
                choice, name, lname, why, name, choice, mpi, lname, launcher);
    }
    exit(1);
}

static void append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* The folders this library was loaded from, where the backends and the checker live beside it:
 * the one of the name it was loaded by, and, where that name is a link (a library installed
 * elsewhere and linked to), the one of the file itself.  Returns how many (1 or 2). */
enum { dir_cap = 4096 };
static void dir_of(char *dir, const char *file)
{
    snprintf(dir, dir_cap, "%s", file);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0; else snprintf(dir, dir_cap, ".");
}
static int library_dirs(char dirs[2][dir_cap])
{
    Dl_info info;
    snprintf(dirs[0], dir_cap, ".");
    if (!dladdr((void *)&library_dirs, &info) || !info.dli_fname) return 1;
    dir_of(dirs[0], info.dli_fname);
    char *real = realpath(info.dli_fname, 0);
    int n = 1;
    if (real) {
        dir_of(dirs[1], real);
        if (strcmp(dirs[0], dirs[1]) != 0) n = 2;
        free(real);
    }
    return n;
}

/* dlopen that keeps the program's signal handlers.  Natively the MPI's libraries are loaded
 * before main, so a handler the program then installs replaces any a library's constructor set
 * (UCX's for SIGSEGV, SIGBUS, SIGFPE and SIGILL, under MPICH); loaded here, inside MPI_Init,
 * those constructors would replace the program's.  So every handler the program had set
 * (anything but SIG_DFL) is put back; where it had none, the library's stays, as natively. */
static void *dlopen_keeping_signals(const char *path, int flags)
{
    static struct sigaction before[NSIG]; /* under load_once, as its callers */
    for (int s = 1; s < NSIG; ++s)
        if (sigaction(s, 0, &before[s]) != 0) before[s].sa_handler = SIG_DFL;
    void *h = dlopen(path, flags);
    if (!h) return h;
    for (int s = 1; s < NSIG; ++s) {
        struct sigaction now;
        if (before[s].sa_handler == SIG_DFL || sigaction(s, 0, &now) != 0) continue;
        if (now.sa_handler != before[s].sa_handler) sigaction(s, &before[s], 0);
    }
    return h;
}

/* ANYMPI_CHECK (abi/check, docs/check.md): wrap the backend's table in the checking module's.
 * Runs once, while the backend is loaded; with ANYMPI_CHECK unset the table stays the
 * backend's and no call costs an instruction more (bench/check/measure compares with a front
 * built with ANYMPI_FRONT_WITHOUT_CHECK_HOOK). anympi_check_wrap calls no MPI function (we
 * are inside pthread_once here). */
static void *const *check_hook(void *const *t)
{
#ifdef ANYMPI_FRONT_WITHOUT_CHECK_HOOK
    return t;
#endif
    const char *spec = getenv("ANYMPI_CHECK");
    if (!spec || !*spec) return t;
    char dirs[2][dir_cap], path[dir_cap + 64] = "";
    const int ndirs = library_dirs(dirs);
    static const char *const where[] = {"%s/anympi/anympi_check.so", "%s/../lib/anympi/anympi_check.so"};
    void *h = 0;
    for (int i = 0; i < 2 * ndirs && !h; ++i) {
        snprintf(path, sizeof path, where[i % 2], dirs[i / 2]);
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    void *const *(*wrap)(void *const *, const char *) =
        h ? (void *const *(*)(void *const *, const char *))dlsym(h, "anympi_check_wrap") : 0;
    if (!wrap) {
        const char *e = dlerror();
        fprintf(stderr, "anympi: ANYMPI_CHECK='%s' but the checking module %s cannot be loaded: %s\n", spec, path,
                e ? e : "no anympi_check_wrap in it");
        exit(1);
    }
    return wrap(t, spec);
}

static void load_backend(void)
{
    const char *choice = choose_backend();
    check_launcher(choice);
    /* static: run once (pthread_once), and a thread's stack may be small */
    static char tried[4 * dir_cap], paths[4][dir_cap + 64];
    int npaths = 0;
    if (strchr(choice, '/')) {
        snprintf(paths[npaths++], sizeof paths[0], "%s", choice);
    } else if (strcmp(choice, "mpich") == 0 || strcmp(choice, "openmpi") == 0) {
        /* relative to this library: build tree (lib/anympi/) and install tree (lib/anympi/) */
        char dirs[2][dir_cap];
        for (int d = 0, n = library_dirs(dirs); d < n; ++d) {
            snprintf(paths[npaths++], sizeof paths[0], "%s/anympi/anympi_backend_%s.so", dirs[d], choice);
            snprintf(paths[npaths++], sizeof paths[0], "%s/../lib/anympi/anympi_backend_%s.so", dirs[d], choice);
        }
    } else {
        fprintf(stderr,
                "anympi: ANYMPI_BACKEND='%s' is not a backend; use ANYMPI_BACKEND=mpich, "
                "ANYMPI_BACKEND=openmpi or ANYMPI_BACKEND=/path/to/anympi_backend_<mpi>.so\n",
                choice);
        exit(1);
    }
    for (int i = 0; i < npaths; ++i) {
        /* No RTLD_DEEPBIND: it binds the native MPI's libraries to the C library's own copy of
         * environ instead of the program's (a program that names environ crashes in MPI_Init)
         * and the sanitizers refuse it.  The native MPI's calls of MPI_* by name reach our
         * exports instead, and the backend routes them back (backend.hpp: native scope). */
        void *h = dlopen_keeping_signals(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            append(tried, sizeof tried, "\n  %s: %s", paths[i], e ? e : "unknown error");
            continue;
        }
        /* where this thread's table lives, as an offset from the thread pointer: the same in
         * every thread for an initial-exec TLS variable */
        long tls_offset = (long)((char *)&anympi_thread_table - (char *)__builtin_thread_pointer());
        typedef void *const *(*entry_fn)(int, long, void *const *const *);
        entry_fn entry = (entry_fn)dlsym(h, "anympi_backend_table");
        void *const *t = entry ? entry(ANYMPI_TABLE_VERSION, tls_offset, (void *const *const *)&anympi_table) : 0;
        if (!t) {
            append(tried, sizeof tried, "\n  %s: %s", paths[i],
                   entry ? "backend built for another anympi version" : "not an anympi backend");
            continue;
        }
        t = check_hook(t);
        __atomic_store_n(&anympi_table, t, __ATOMIC_RELEASE);
        return;
    }
    fprintf(stderr,
            "anympi: cannot load the MPI backend '%s'. Tried:%s\n"
            "anympi: set ANYMPI_BACKEND=mpich|openmpi|/path/to/anympi_backend_<mpi>.so and make sure "
            "that MPI's library is installed.\n",
            choice, tried);
    exit(1);
}

void *const *anympi_load(void)
{
    pthread_once(&load_once, load_backend);
    anympi_thread_table = anympi_table;
    return anympi_table;
}

#pragma GCC visibility push(default)

/* Answered here, before any MPI is loaded, so no error handler can be called: a null output is
 * MPI_ERR_ARG returned (both MPIs' class), never silent success. */
int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion) return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    if (!abi_major || !abi_minor) return MPI_ERR_ARG;
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}

int PMPI_Pcontrol(const int level, ...)
{
    (void)level; /* a no-op unless a profiling tool interposes MPI_Pcontrol */
    return MPI_SUCCESS;
}

int PMPI_Initialized(int *flag)
{
    if (!__atomic_load_n(&anympi_table, __ATOMIC_ACQUIRE)) {
        if (!flag) return MPI_ERR_ARG;
        *flag = 0; /* no MPI loaded yet: certainly not initialized */
        return MPI_SUCCESS;
    }
    ANYMPI_DISPATCH(int, MPI_Initialized, (int *), (flag));
}

int PMPI_Finalized(int *flag)
{
    if (!__atomic_load_n(&anympi_table, __ATOMIC_ACQUIRE)) {
        if (!flag) return MPI_ERR_ARG;
        *flag = 0;
        return MPI_SUCCESS;
    }
    ANYMPI_DISPATCH(int, MPI_Finalized, (int *), (flag));
}

#pragma GCC visibility pop

#pragma GCC visibility push(default)
ANYMPI_ALIAS(MPI_Get_version)
ANYMPI_ALIAS(MPI_Abi_get_version)
ANYMPI_ALIAS(MPI_Pcontrol)
ANYMPI_ALIAS(MPI_Initialized)
ANYMPI_ALIAS(MPI_Finalized)
#pragma GCC visibility pop
