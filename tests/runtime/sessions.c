/* MPI-4 sessions beside the world model, exactly where the standard allows them:
 *  1. a session before MPI_Init (MPI_Initialized still 0), its process sets, their info, a
 *     communicator from mpi://WORLD used for an allreduce;
 *  2. MPI_Init; a second session while the first lives (two at once), pset mpi://WORLD's group
 *     equal to MPI_COMM_WORLD's, mpi://SELF's to MPI_COMM_SELF's; communicators from both
 *     sessions' groups; MPI_Intercomm_create_from_groups between the two halves;
 *  3. errors (while MPI_COMM_WORLD and MPI_COMM_SELF return errors, where MPICH 4.0.2 raises
 *     them): unknown process set names, bad arguments, each with MPICH's own class; a session's
 *     own error handler, called by MPI_Session_call_errhandler and by an error in a session call;
 *     the handler given to MPI_Session_init and MPI_Comm_create_from_group, called for their errors;
 *  4. MPI_Finalize with the first session still open: MPI_Finalized 1, the open session and a
 *     session begun after MPI_Finalize still work (collectives on new communicators);
 *  5. after every session and the world model have ended, sessions begun and ended again,
 *     three times.
 * The verdict is reduced over a communicator of the last live session, so it is collective
 * after MPI_Finalize too. */
#include "check.h"

#include <stdint.h>
#include <string.h>

/* MPICH 4.0.2 raises errors in session calls (and MPI_Comm_create_from_group) on
 * MPI_COMM_WORLD's handler, not the session's. */
#define QUIRK_MPICH_SESSION_ERRHANDLER (check_under() == CHECK_UNDER_MPICH)
/* MPICH 4.0.2's MPI_Session_init does not attach the handler it is given
 * (MPI_Session_get_errhandler answers MPI_ERRORS_ARE_FATAL); anympi attaches it. */
#define QUIRK_MPICH_SESSION_INIT_ERRHANDLER (check_under() == CHECK_UNDER_MPICH && !CHECK_OVER_ABI)
/* MPICH 4.0.2's MPI_Session_get_nth_pset faults for n at or past the number of sets. */
#define QUIRK_MPICH_NTH_PSET_RANGE (check_under() == CHECK_UNDER_MPICH)
/* MPICH 4.0.2 faults in MPI_Session_init once the world model and every session have ended
 * (starting again). */
#define QUIRK_MPICH_SESSION_RESTART (check_under() == CHECK_UNDER_MPICH)
/* MPICH 4.0.2 refuses MPI_Session_create_errhandler before it has started ("Attempting to use
 * an MPI routine before initializing"), which MPI-4.1 12.4.1 allows at any time. */
#define QUIRK_MPICH_ERRHANDLER_BEFORE_START (check_under() == CHECK_UNDER_MPICH)

static int world_rank = -1, world_size = 0;
static int handler_calls, handler_code;
static MPI_Session handler_session;

static void session_handler(MPI_Session *session, int *code, ...)
{
    ++handler_calls;
    handler_code = *code;
    handler_session = *session;
}

static int error_class(int rc)
{
    int cls = -1;
    if (rc == MPI_SUCCESS) return MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* A communicator of all processes from the session's mpi://WORLD, checked with an allreduce of
 * the ranks; its group is the set's. */
static MPI_Comm world_comm_of(MPI_Session s, const char *tag)
{
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    CHECK_FATAL(c != MPI_COMM_NULL);
    int size = 0, rank = -1, sum = -1, cmp = -1;
    MPI_OK(MPI_Comm_size(c, &size));
    MPI_OK(MPI_Comm_rank(c, &rank));
    CHECK_EQ(size, world_size);
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_EQ(sum, size * (size - 1) / 2);
    MPI_Group cg = MPI_GROUP_NULL;
    MPI_OK(MPI_Comm_group(c, &cg));
    MPI_OK(MPI_Group_compare(g, cg, &cmp));
    CHECK_EQ(cmp, MPI_IDENT);
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    MPI_OK(MPI_Comm_get_errhandler(c, &e));
    CHECK_HANDLE(e, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Group_free(&cg));
    MPI_OK(MPI_Group_free(&g));
    return c;
}

static void check_psets(MPI_Session s)
{
    int n = -1;
    MPI_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2);
    int seen_world = 0, seen_self = 0;
    for (int i = 0; i < n; ++i) {
        int len = 0;
        MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL)); /* 0: the length asked for */
        CHECK(len > 1);
        char name[256];
        int full = len;
        CHECK_FATAL(len <= (int)sizeof name);
        MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &full, name));
        CHECK_EQ(strlen(name), len - 1);
        if (strcmp(name, "mpi://WORLD") == 0) ++seen_world;
        if (strcmp(name, "mpi://SELF") == 0) ++seen_self;
        /* a buffer too short: the name truncated to len - 1 characters and the null */
        char cut[256];
        memset(cut, 'x', sizeof cut);
        int short_len = len - 1;
        MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &short_len, cut));
        CHECK_EQ(strlen(cut), len - 2);
        CHECK(strncmp(cut, name, (size_t)len - 2) == 0);

        MPI_Info info = MPI_INFO_NULL;
        MPI_OK(MPI_Session_get_pset_info(s, name, &info));
        char value[32] = "";
        int flag = 0;
        MPI_OK(MPI_Info_get(info, "mpi_size", (int)sizeof value - 1, value, &flag));
        CHECK(flag);
        MPI_Group g = MPI_GROUP_NULL;
        int gsize = -1;
        MPI_OK(MPI_Group_from_session_pset(s, name, &g));
        MPI_OK(MPI_Group_size(g, &gsize));
        CHECK_EQ(atoi(value), gsize);
        if (strcmp(name, "mpi://WORLD") == 0) CHECK_EQ(gsize, world_size);
        if (strcmp(name, "mpi://SELF") == 0) CHECK_EQ(gsize, 1);
        MPI_OK(MPI_Group_free(&g));
        MPI_OK(MPI_Info_free(&info));
    }
    CHECK_EQ(seen_world, 1);
    CHECK_EQ(seen_self, 1);

    MPI_Info used = MPI_INFO_NULL;
    MPI_OK(MPI_Session_get_info(s, &used));
    char level[64] = "";
    int flag = 0, provided = -1;
    MPI_OK(MPI_Info_get(used, "thread_level", (int)sizeof level - 1, level, &flag));
    CHECK(flag);
    MPI_OK(MPI_Query_thread(&provided));
    const char *names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
    int known = 0;
    for (int i = 0; i < 4; ++i)
        if (strcmp(level, names[i]) == 0) {
            known = 1;
            CHECK_EQ(provided, levels[i]); /* the level the MPI runs at */
        }
    CHECK_MSG(known, "thread_level is \"%s\"", level);
    MPI_OK(MPI_Info_free(&used));
}

/* Rank 0 sends its rank + 100 over an intercommunicator between {even} and {odd} ranks. */
static void check_intercomm(MPI_Session s)
{
    if (world_size < 2) return;
    MPI_Group world = MPI_GROUP_NULL, even = MPI_GROUP_NULL, odd = MPI_GROUP_NULL;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    int ranges[1][3] = {{0, world_size - 1, 2}};
    MPI_OK(MPI_Group_range_incl(world, 1, ranges, &even));
    MPI_OK(MPI_Group_range_excl(world, 1, ranges, &odd));
    MPI_Group mine = world_rank % 2 == 0 ? even : odd, other = world_rank % 2 == 0 ? odd : even;
    MPI_Comm inter = MPI_COMM_NULL;
    MPI_OK(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "anympi.sessions.inter", MPI_INFO_NULL,
                                            MPI_ERRORS_RETURN, &inter));
    CHECK_FATAL(inter != MPI_COMM_NULL);
    int flag = 0, local = 0, remote = 0;
    MPI_OK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag);
    MPI_OK(MPI_Comm_size(inter, &local));
    MPI_OK(MPI_Comm_remote_size(inter, &remote));
    CHECK_EQ(local + remote, world_size);
    CHECK_EQ(local, world_rank % 2 == 0 ? (world_size + 1) / 2 : world_size / 2);
    int value = world_rank == 0 ? 100 : -1;
    MPI_OK(MPI_Bcast(&value, 1, MPI_INT, world_rank == 0 ? MPI_ROOT : world_rank % 2 == 0 ? MPI_PROC_NULL : 0, inter));
    if (world_rank % 2 == 1) CHECK_EQ(value, 100);
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Group_free(&even));
    MPI_OK(MPI_Group_free(&odd));
    MPI_OK(MPI_Group_free(&world));
}

static void check_errors(MPI_Session s)
{
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Info info = MPI_INFO_NULL;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Session none = MPI_SESSION_NULL;
    int n = 0, len = 64;
    char name[64];

    CHECK_EQ(error_class(MPI_Group_from_session_pset(s, "mpi://NO-SUCH-SET", &g)), MPI_ERR_ARG);
    CHECK_EQ(error_class(MPI_Session_get_pset_info(s, "mpi://NO-SUCH-SET", &info)), MPI_ERR_ARG);
    CHECK_EQ(error_class(MPI_Group_from_session_pset(s, NULL, &g)), MPI_ERR_ARG);
    CHECK_EQ(error_class(MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL)), MPI_ERR_ARG);
    CHECK_EQ(error_class(MPI_Session_get_info(s, NULL)), MPI_ERR_ARG);
    CHECK_EQ(error_class(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, name)), MPI_ERR_ARG);
    if (!QUIRK_MPICH_NTH_PSET_RANGE) {
        int np = 0;
        MPI_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &np));
        CHECK_EQ(error_class(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, np, &len, name)), MPI_ERR_ARG);
    }
    CHECK_EQ(error_class(MPI_Session_set_errhandler(s, MPI_ERRHANDLER_NULL)), MPI_ERR_ARG);
    CHECK_EQ(error_class(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n)), MPI_ERR_SESSION);
    CHECK_EQ(error_class(MPI_Session_finalize(&none)), MPI_ERR_SESSION);
    CHECK_EQ(error_class(MPI_Session_init(MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &none)), MPI_ERR_ARG);
    CHECK_EQ(error_class(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL)), MPI_ERR_ARG);
    CHECK_EQ(error_class(MPI_Comm_create_from_group(MPI_GROUP_NULL, "anympi.bad", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c)),
             MPI_ERR_GROUP);
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
    CHECK_EQ(error_class(MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c)), MPI_ERR_ARG);
    CHECK_EQ(error_class(MPI_Comm_create_from_group(g, "anympi.bad", MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &c)),
             MPI_ERR_ARG);
    MPI_OK(MPI_Group_free(&g));

    /* the session's own handler */
    MPI_Errhandler mine = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
    MPI_OK(MPI_Session_create_errhandler(session_handler, &mine));
    MPI_OK(MPI_Session_set_errhandler(s, mine));
    MPI_OK(MPI_Session_get_errhandler(s, &got));
    CHECK_HANDLE(got, mine);
    MPI_OK(MPI_Errhandler_free(&got));
    handler_calls = 0;
    MPI_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK_EQ(handler_calls, 1);
    CHECK_EQ(error_class(handler_code), MPI_ERR_OTHER);
    CHECK_HANDLE(handler_session, s);
    handler_calls = 0;
    int rc = MPI_Group_from_session_pset(s, "mpi://NO-SUCH-SET", &g);
    if (QUIRK_MPICH_SESSION_ERRHANDLER) {
        CHECK_EQ(error_class(rc), MPI_ERR_ARG); /* through MPI_COMM_WORLD's handler */
    } else {
        CHECK_EQ(handler_calls, 1);
        CHECK_EQ(error_class(handler_code), MPI_ERR_ARG);
        CHECK_HANDLE(handler_session, s);
    }
    /* a call given a handler for its own errors raises through it (MPI_SESSION_NULL: no session
     * is the object); anympi raised through MPI_COMM_SELF's */
    if (!QUIRK_MPICH_SESSION_ERRHANDLER) {
        MPI_OK(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
        handler_calls = 0, handler_session = s;
        rc = MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, mine, &c);
        CHECK_EQ(error_class(rc), MPI_ERR_ARG);
        CHECK_EQ(handler_calls, 1);
        CHECK_EQ(error_class(handler_code), MPI_ERR_ARG);
        CHECK_HANDLE(handler_session, MPI_SESSION_NULL);
        MPI_OK(MPI_Group_free(&g));
        handler_calls = 0;
        CHECK_EQ(error_class(MPI_Session_init(MPI_INFO_NULL, mine, NULL)), MPI_ERR_ARG);
        CHECK_EQ(handler_calls, 1);
    }
    MPI_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_free(&mine)); /* the session had its own reference */
    handler_calls = 0;
    CHECK_EQ(error_class(MPI_Group_from_session_pset(s, "mpi://NO-SUCH-SET", &g)), MPI_ERR_ARG);
    CHECK_EQ(handler_calls, 0);
}

/* The verdict, collective over a session's communicator (usable after MPI_Finalize). */
static int verdict(MPI_Comm c)
{
    int local = check_failures_, global = 0;
    long checks = check_count_, all = 0;
    MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_SUM, c);
    MPI_Allreduce(&checks, &all, 1, MPI_LONG, MPI_SUM, c);
    if (world_rank == 0) printf("%s: %ld checks, %d failures\n", check_program_, all, global);
    fflush(stdout);
    return global;
}

int main(int argc, char **argv)
{
    check_program_ = "sessions";
    int init = -1, fin = -1;

    /* 1. before MPI_Init: the functions MPI-4.1 12.4.1 allows at any time (Open MPI 4.1 aborts
     * in them before its MPI_Init), then a session asking for a thread level in its info */
    char text[MPI_MAX_ERROR_STRING];
    int text_len = 0, cls = -1;
    MPI_OK(MPI_Error_class(MPI_ERR_TRUNCATE, &cls));
    CHECK_EQ(cls, MPI_ERR_TRUNCATE);
    MPI_OK(MPI_Error_string(MPI_ERR_TRUNCATE, text, &text_len));
    CHECK(text_len > 0);
    MPI_Info asked = MPI_INFO_NULL, copy = MPI_INFO_NULL;
    MPI_OK(MPI_Info_create(&asked));
    MPI_OK(MPI_Info_set(asked, "thread_level", "MPI_THREAD_MULTIPLE"));
    MPI_OK(MPI_Info_dup(asked, &copy));
    {
        char v[64];
        int len = sizeof v, flag = 0, nkeys = 0;
        MPI_OK(MPI_Info_get_string(copy, "thread_level", &len, v, &flag));
        CHECK(flag && strcmp(v, "MPI_THREAD_MULTIPLE") == 0);
        MPI_OK(MPI_Info_get_nkeys(copy, &nkeys));
        CHECK_EQ(nkeys, 1);
        MPI_OK(MPI_Info_free(&copy));
    }
    MPI_Errhandler early_handler = MPI_ERRHANDLER_NULL;
    if (!QUIRK_MPICH_ERRHANDLER_BEFORE_START) {
        MPI_OK(MPI_Session_create_errhandler(session_handler, &early_handler));
        CHECK(early_handler != MPI_ERRHANDLER_NULL);
    }
    MPI_Session first = MPI_SESSION_NULL;
    if (MPI_Session_init(asked, MPI_ERRORS_RETURN, &first) != MPI_SUCCESS) {
        fprintf(stderr, "sessions: MPI_Session_init before MPI_Init failed\n");
        return 2;
    }
    MPI_OK(MPI_Info_free(&asked));
    {
        MPI_Info got = MPI_INFO_NULL;
        char v[64];
        int len = sizeof v, flag = 0;
        MPI_OK(MPI_Session_get_info(first, &got));
        MPI_OK(MPI_Info_get_string(got, "thread_level", &len, v, &flag));
        CHECK_MSG(flag && strcmp(v, "MPI_THREAD_MULTIPLE") == 0, "the session asked for MPI_THREAD_MULTIPLE: %s",
                  flag ? v : "(no thread_level)");
        MPI_OK(MPI_Info_free(&got));
    }
    if (early_handler != MPI_ERRHANDLER_NULL) MPI_OK(MPI_Errhandler_free(&early_handler));
    CHECK(first != MPI_SESSION_NULL);
    MPI_OK(MPI_Initialized(&init));
    MPI_OK(MPI_Finalized(&fin));
    CHECK_EQ(init, 0);
    CHECK_EQ(fin, 0);
    if (!QUIRK_MPICH_SESSION_INIT_ERRHANDLER) {
        MPI_Errhandler e = MPI_ERRHANDLER_NULL;
        MPI_OK(MPI_Session_get_errhandler(first, &e));
        CHECK_HANDLE(e, MPI_ERRORS_RETURN);
    }
    {
        MPI_Group g = MPI_GROUP_NULL;
        MPI_OK(MPI_Group_from_session_pset(first, "mpi://WORLD", &g));
        MPI_OK(MPI_Group_size(g, &world_size));
        MPI_OK(MPI_Group_rank(g, &world_rank));
        MPI_OK(MPI_Group_free(&g));
    }
    check_psets(first);
    MPI_Comm early = world_comm_of(first, "anympi.sessions.early");

    /* 2. the world model beside it, and a second session */
    check_init(&argc, &argv, "sessions");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Initialized(&init));
    MPI_OK(MPI_Finalized(&fin));
    CHECK_EQ(init, 1);
    CHECK_EQ(fin, 0);
    int main_thread = 0;
    MPI_OK(MPI_Is_thread_main(&main_thread));
    CHECK_EQ(main_thread, 1);
    {
        int r = -1, n = 0;
        MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
        CHECK_EQ(r, world_rank);
        CHECK_EQ(n, world_size);
    }
    MPI_Session second = MPI_SESSION_NULL;
    MPI_Info hints = MPI_INFO_NULL;
    MPI_OK(MPI_Info_create(&hints));
    MPI_OK(MPI_Info_set(hints, "thread_level", "MPI_THREAD_SINGLE")); /* the MPI may provide more */
    MPI_OK(MPI_Session_init(hints, MPI_ERRORS_RETURN, &second));
    MPI_OK(MPI_Info_free(&hints));
    CHECK(second != MPI_SESSION_NULL && second != first);
    check_psets(second);
    {
        MPI_Group pset = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
        int cmp = -1;
        MPI_OK(MPI_Group_from_session_pset(second, "mpi://WORLD", &pset));
        MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        MPI_OK(MPI_Group_compare(pset, wg, &cmp));
        CHECK_EQ(cmp, MPI_IDENT);
        MPI_OK(MPI_Group_free(&pset));
        MPI_OK(MPI_Group_free(&wg));
        MPI_OK(MPI_Group_from_session_pset(second, "mpi://SELF", &pset));
        MPI_OK(MPI_Comm_group(MPI_COMM_SELF, &wg));
        MPI_OK(MPI_Group_compare(pset, wg, &cmp));
        CHECK_EQ(cmp, MPI_IDENT);
        MPI_OK(MPI_Group_free(&pset));
        MPI_OK(MPI_Group_free(&wg));
    }
    MPI_Comm from_second = world_comm_of(second, "anympi.sessions.second");
    MPI_Comm again = world_comm_of(first, "anympi.sessions.early"); /* one string tag, used twice */
    {   /* the three communicators and MPI_COMM_WORLD carry their own messages */
        int a = world_rank, b = -1, c = -1, d = -1;
        MPI_OK(MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_MAX, from_second));
        MPI_OK(MPI_Allreduce(&a, &c, 1, MPI_INT, MPI_MIN, again));
        MPI_OK(MPI_Allreduce(&a, &d, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK_EQ(b, world_size - 1);
        CHECK_EQ(c, 0);
        CHECK_EQ(d, world_size * (world_size - 1) / 2);
    }
    MPI_OK(MPI_Comm_free(&again));
    check_intercomm(second);

    /* 3. errors */
    check_errors(second);

    /* 4. MPI_Finalize with sessions open; one more session after it */
    MPI_OK(MPI_Comm_free(&from_second));
    MPI_OK(MPI_Session_finalize(&second));
    CHECK(second == MPI_SESSION_NULL);
    {
        int local = check_failures_, global = 0;
        MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_OK(MPI_Finalize());
    MPI_OK(MPI_Initialized(&init));
    MPI_OK(MPI_Finalized(&fin));
    CHECK_EQ(init, 1);
    CHECK_EQ(fin, 1);
    {
        int a = 1, sum = 0;
        MPI_OK(MPI_Allreduce(&a, &sum, 1, MPI_INT, MPI_SUM, early));
        CHECK_EQ(sum, world_size);
    }
    MPI_Session late = MPI_SESSION_NULL;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &late));
    check_psets(late);
    MPI_Comm late_comm = world_comm_of(late, "anympi.sessions.late");
    MPI_OK(MPI_Comm_free(&early));
    MPI_OK(MPI_Session_finalize(&first));
    CHECK(first == MPI_SESSION_NULL);
    {
        int a = 2, sum = 0;
        MPI_OK(MPI_Allreduce(&a, &sum, 1, MPI_INT, MPI_SUM, late_comm));
        CHECK_EQ(sum, 2 * world_size);
    }
    int failed = verdict(late_comm);
    MPI_OK(MPI_Comm_free(&late_comm));
    MPI_OK(MPI_Session_finalize(&late));

    /* 5. nothing open: begin again, three times */
    if (!QUIRK_MPICH_SESSION_RESTART) {
        for (int round = 0; round < 3; ++round) {
            MPI_Session s = MPI_SESSION_NULL;
            if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS) {
                fprintf(stderr, "sessions: MPI_Session_init after everything ended failed\n");
                return 1;
            }
            MPI_Comm c = world_comm_of(s, "anympi.sessions.restart");
            int bad = verdict(c);
            failed += bad;
            MPI_OK(MPI_Comm_free(&c));
            MPI_OK(MPI_Session_finalize(&s));
            MPI_OK(MPI_Finalized(&fin));
            CHECK_EQ(fin, 1);
            if (check_failures_) return 1;
        }
    } else if (world_rank == 0) {
        printf("note: MPICH 4.0.2 cannot begin a session once everything has ended: not checked\n");
    }
    return failed == 0 && check_failures_ == 0 ? 0 : 1;
}
