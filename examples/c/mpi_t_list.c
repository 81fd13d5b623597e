/* mpi_t_list: what the MPI underneath exposes through the tool interface (MPI_T), the first
 * thing a profiler or tuning tool looks at -- every control variable, performance variable,
 * category, event type and event source by name, listed before MPI_Init (MPI_T works before
 * and after the MPI itself) -- then one performance variable read around a communication.
 *
 *   mpiexec -n 2 ./mpi_t_list            the listing and the reading (rank 0 prints)
 *   mpiexec -n 2 ./mpi_t_list --summary  the counts and the reading only
 *
 * Over anympi, run it once per backend to see what each MPI has.  It checks what it reads as
 * it goes (each name leads back to its own index, the counts hold after MPI_Finalize) and
 * exits with 1 if anything does not. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI-4's events and sources: an MPI-3.1 mpi.h (Open MPI 4.1) has neither. */
#define HAVE_EVENTS (MPI_VERSION >= 4)

static int failures;
static FILE *out; /* the listing, printed by rank 0 once MPI has started */

static void expect(int ok, const char *what, const char *name)
{
    if (ok) return;
    fprintf(stderr, "mpi_t_list: %s: %s\n", what, name);
    ++failures;
}
static int ok(int rc, const char *call)
{
    if (rc == MPI_SUCCESS) return 1;
    fprintf(stderr, "mpi_t_list: %s returned %d\n", call, rc);
    ++failures;
    return 0;
}

static const char *class_name(int c)
{
    switch (c) {
    case MPI_T_PVAR_CLASS_STATE: return "state";
    case MPI_T_PVAR_CLASS_LEVEL: return "level";
    case MPI_T_PVAR_CLASS_SIZE: return "size";
    case MPI_T_PVAR_CLASS_PERCENTAGE: return "percentage";
    case MPI_T_PVAR_CLASS_HIGHWATERMARK: return "highwatermark";
    case MPI_T_PVAR_CLASS_LOWWATERMARK: return "lowwatermark";
    case MPI_T_PVAR_CLASS_COUNTER: return "counter";
    case MPI_T_PVAR_CLASS_AGGREGATE: return "aggregate";
    case MPI_T_PVAR_CLASS_TIMER: return "timer";
    case MPI_T_PVAR_CLASS_GENERIC: return "generic";
    default: return "?";
    }
}
static const char *bind_name(int b)
{
    switch (b) {
    case MPI_T_BIND_NO_OBJECT: return "-";
    case MPI_T_BIND_MPI_COMM: return "comm";
    case MPI_T_BIND_MPI_DATATYPE: return "datatype";
    case MPI_T_BIND_MPI_ERRHANDLER: return "errhandler";
    case MPI_T_BIND_MPI_FILE: return "file";
    case MPI_T_BIND_MPI_GROUP: return "group";
    case MPI_T_BIND_MPI_OP: return "op";
    case MPI_T_BIND_MPI_REQUEST: return "request";
    case MPI_T_BIND_MPI_WIN: return "win";
    case MPI_T_BIND_MPI_MESSAGE: return "message";
    case MPI_T_BIND_MPI_INFO: return "info";
    default: return "?";
    }
}

static int list_cvars(void)
{
    int n = 0;
    if (!ok(MPI_T_cvar_get_num(&n), "MPI_T_cvar_get_num")) return 0;
    fprintf(out, "control variables: %d\n", n);
    for (int i = 0; i < n; ++i) {
        char name[256];
        int len = sizeof name, verbosity, bind, scope, back = -1;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        if (!ok(MPI_T_cvar_get_info(i, name, &len, &verbosity, &type, &enumtype, NULL, NULL, &bind, &scope),
                "MPI_T_cvar_get_info"))
            continue;
        fprintf(out, "  cvar %4d  %-48s bound to %s\n", i, name, bind_name(bind));
        expect(MPI_T_cvar_get_index(name, &back) == MPI_SUCCESS && back == i, "cvar not found again by its name", name);
    }
    return n;
}

static int list_pvars(void)
{
    int n = 0;
    if (!ok(MPI_T_pvar_get_num(&n), "MPI_T_pvar_get_num")) return 0;
    fprintf(out, "performance variables: %d\n", n);
    for (int i = 0; i < n; ++i) {
        char name[256];
        int len = sizeof name, verbosity, var_class, bind, readonly, continuous, atomic, back = -1;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        if (!ok(MPI_T_pvar_get_info(i, name, &len, &verbosity, &var_class, &type, &enumtype, NULL, NULL, &bind,
                                    &readonly, &continuous, &atomic),
                "MPI_T_pvar_get_info"))
            continue;
        fprintf(out, "  pvar %4d  %-48s %-13s bound to %s\n", i, name, class_name(var_class), bind_name(bind));
        expect(MPI_T_pvar_get_index(name, var_class, &back) == MPI_SUCCESS && back == i,
               "pvar not found again by its name and class", name);
    }
    return n;
}

static int list_categories(void)
{
    int n = 0;
    if (!ok(MPI_T_category_get_num(&n), "MPI_T_category_get_num")) return 0;
    fprintf(out, "categories: %d\n", n);
    for (int i = 0; i < n; ++i) {
        char name[256];
        int len = sizeof name, cvars, pvars, cats, back = -1;
        if (!ok(MPI_T_category_get_info(i, name, &len, NULL, NULL, &cvars, &pvars, &cats), "MPI_T_category_get_info"))
            continue;
        fprintf(out, "  category %4d  %-44s %d cvars, %d pvars, %d categories\n", i, name, cvars, pvars, cats);
        expect(MPI_T_category_get_index(name, &back) == MPI_SUCCESS && back == i, "category not found again by its name",
               name);
    }
    return n;
}

#if HAVE_EVENTS
static int list_events(int *sources)
{
    int n = 0;
    if (!ok(MPI_T_event_get_num(&n), "MPI_T_event_get_num")) return 0;
    fprintf(out, "event types: %d\n", n);
    for (int i = 0; i < n; ++i) {
        char name[256];
        int len = sizeof name, verbosity, elements = 0, bind, back = -1;
        MPI_T_enum enumtype;
        if (!ok(MPI_T_event_get_info(i, name, &len, &verbosity, NULL, NULL, &elements, &enumtype, NULL, NULL, NULL, &bind),
                "MPI_T_event_get_info"))
            continue;
        fprintf(out, "  event %4d  %-47s %d elements\n", i, name, elements);
        expect(MPI_T_event_get_index(name, &back) == MPI_SUCCESS && back == i, "event not found again by its name", name);
    }
    *sources = 0;
    if (!ok(MPI_T_source_get_num(sources), "MPI_T_source_get_num")) return n;
    fprintf(out, "event sources: %d\n", *sources);
    for (int i = 0; i < *sources; ++i) {
        char name[256];
        int len = sizeof name;
        MPI_T_source_order order;
        MPI_Count ticks = 0, max_ticks = 0;
        if (ok(MPI_T_source_get_info(i, name, &len, NULL, NULL, &order, &ticks, &max_ticks, NULL),
               "MPI_T_source_get_info"))
            fprintf(out, "  source %4d  %-46s %lld ticks/s\n", i, name, (long long)ticks);
    }
    return n;
}
#endif

/* A pvar's value as a number, for the basic types MPI_T uses (numeric() says which): the sum
 * of its count values (a variable bound to a communicator may have one per process). */
static int numeric(MPI_Datatype t)
{
    return t == MPI_UNSIGNED_LONG_LONG || t == MPI_UNSIGNED_LONG || t == MPI_UNSIGNED || t == MPI_INT ||
           t == MPI_COUNT || t == MPI_DOUBLE;
}
static double as_number(MPI_Datatype t, const void *v, int count)
{
    double sum = 0;
    for (int i = 0; i < count; ++i) {
        if (t == MPI_UNSIGNED_LONG_LONG) sum += (double)((const unsigned long long *)v)[i];
        else if (t == MPI_UNSIGNED_LONG) sum += (double)((const unsigned long *)v)[i];
        else if (t == MPI_UNSIGNED) sum += (double)((const unsigned *)v)[i];
        else if (t == MPI_INT) sum += (double)((const int *)v)[i];
        else if (t == MPI_COUNT) sum += (double)((const MPI_Count *)v)[i];
        else sum += ((const double *)v)[i];
    }
    return sum;
}

/* One communication: a ring of messages and a few reductions. */
static void communicate(void)
{
    int rank, size, token = 0, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 20; ++i) {
        MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
}

/* The counter-like variables (counter, aggregate, level, size, timer) bound to nothing or to
 * MPI_COMM_WORLD, each read before and after communicate(): the first that moves is reported,
 * else the last read.  0 when the MPI has none. */
static int read_around_communication(char *report, size_t cap)
{
    int n = 0, found = 0;
    snprintf(report, cap, "no counter-like performance variable to read");
    if (!ok(MPI_T_pvar_get_num(&n), "MPI_T_pvar_get_num")) return 0;
    MPI_T_pvar_session session;
    if (!ok(MPI_T_pvar_session_create(&session), "MPI_T_pvar_session_create")) return 0;
    MPI_Comm world = MPI_COMM_WORLD;
    for (int i = 0; i < n; ++i) {
        char name[256];
        int len = sizeof name, verbosity, var_class, bind, readonly, continuous, atomic, count = 0;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        if (MPI_T_pvar_get_info(i, name, &len, &verbosity, &var_class, &type, &enumtype, NULL, NULL, &bind, &readonly,
                                &continuous, &atomic) != MPI_SUCCESS)
            continue;
        if ((var_class != MPI_T_PVAR_CLASS_COUNTER && var_class != MPI_T_PVAR_CLASS_AGGREGATE &&
             var_class != MPI_T_PVAR_CLASS_LEVEL && var_class != MPI_T_PVAR_CLASS_SIZE &&
             var_class != MPI_T_PVAR_CLASS_TIMER) ||
            (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM))
            continue;
        MPI_T_pvar_handle h;
        if (MPI_T_pvar_handle_alloc(session, i, bind == MPI_T_BIND_MPI_COMM ? (void *)&world : NULL, &h, &count) !=
            MPI_SUCCESS)
            continue;
        union { unsigned long long u; double d; char room[16]; } before[64], after[64];
        int good = count >= 1 && count <= 64 && numeric(type) &&
                   (continuous || MPI_T_pvar_start(session, h) == MPI_SUCCESS) &&
                   MPI_T_pvar_read(session, h, before) == MPI_SUCCESS;
        if (good) {
            communicate();
            good = MPI_T_pvar_read(session, h, after) == MPI_SUCCESS;
        }
        if (!continuous) MPI_T_pvar_stop(session, h);
        MPI_T_pvar_handle_free(session, &h);
        if (!good) continue;
        found = 1;
        const double b = as_number(type, before, count), a = as_number(type, after, count);
        snprintf(report, cap, "pvar %s (%s): %.0f before, %.0f after%s", name, class_name(var_class), b, a,
                 a != b ? " (moved)" : "");
        if (a != b) break;
    }
    MPI_T_pvar_session_free(&session);
    return found;
}

int main(int argc, char **argv)
{
    const int summary = argc > 1 && strcmp(argv[1], "--summary") == 0;
    char *text = NULL;
    size_t text_len = 0;
    out = open_memstream(&text, &text_len);
    int provided = 0, sources = 0, events = 0;
    /* Before MPI_Init: the tool interface on its own. */
    if (!ok(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), "MPI_T_init_thread")) return 1;
    const int cvars = list_cvars(), pvars = list_pvars(), categories = list_categories();
#if HAVE_EVENTS
    events = list_events(&sources);
#endif
    fclose(out);

    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char report[400];
    read_around_communication(report, sizeof report);
    if (rank == 0) {
        if (!summary) fputs(text, stdout);
        printf("mpi_t_list: %d cvars, %d pvars, %d categories, %d event types, %d event sources (before MPI_Init)\n",
               cvars, pvars, categories, events, sources);
        printf("mpi_t_list: %s\n", report);
    }
    free(text);
    MPI_Finalize();

    /* After MPI_Finalize: still there, with at least what it had before MPI_Init. */
    int n = -1;
    expect(MPI_T_cvar_get_num(&n) == MPI_SUCCESS && n >= cvars, "cvars after MPI_Finalize", "MPI_T_cvar_get_num");
    expect(MPI_T_category_get_num(&n) == MPI_SUCCESS && n >= categories, "categories after MPI_Finalize",
           "MPI_T_category_get_num");
    ok(MPI_T_finalize(), "MPI_T_finalize");
    return failures ? 1 : 0;
}
