/* What the checking mode's C tests share: the rank, the failure count, and the expectations
 * (an error of a class whose message holds the given pieces). Include once per program. */
#ifndef ANYMPI_CHECK_TEST_UTIL_H
#define ANYMPI_CHECK_TEST_UTIL_H

#include <mpi.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int rank, size, failures;

#define EXPECT(cond, ...)                                                  \
    do {                                                                   \
        if (!(cond)) {                                                     \
            ++failures;                                                    \
            fprintf(stderr, "FAIL rank %d line %d: ", rank, __LINE__);    \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
        }                                                                  \
    } while (0)
#define OK(call)                                                                   \
    do {                                                                           \
        int rc_ = (call);                                                          \
        EXPECT(rc_ == MPI_SUCCESS, "%s returned %d: %s", #call, rc_, text(rc_));   \
    } while (0)

static const char *text(int rc)
{
    static char buf[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    buf[0] = 0;
    MPI_Error_string(rc, buf, &len);
    return buf;
}

/* rc must be an error of class `cls` whose string contains every one of the NULL-ended pieces */
static void expect_error(int line, int rc, int cls, ...)
{
    int got = -1;
    if (rc == MPI_SUCCESS) {
        ++failures;
        fprintf(stderr, "FAIL rank %d line %d: expected an error of class %d, got MPI_SUCCESS\n", rank, line, cls);
        return;
    }
    MPI_Error_class(rc, &got);
    const char *s = text(rc);
    if (got != cls) {
        ++failures;
        fprintf(stderr, "FAIL rank %d line %d: error class %d, expected %d (%s)\n", rank, line, got, cls, s);
    }
    va_list ap;
    va_start(ap, cls);
    for (const char *piece; (piece = va_arg(ap, const char *));)
        if (!strstr(s, piece)) {
            ++failures;
            fprintf(stderr, "FAIL rank %d line %d: message \"%s\" lacks \"%s\"\n", rank, line, s, piece);
        }
    va_end(ap);
}
#define EXPECT_ERROR(rc, cls, ...) expect_error(__LINE__, (rc), (cls), __VA_ARGS__, (const char *)0)

/* Every rank's failures summed: the verdict, printed once, is the exit status. */
static int finish(const char *scenario)
{
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %s (%d failures)\n", scenario, all ? "FAILED" : "passed", all);
    MPI_Finalize();
    return all ? 1 : 0;
}

#endif
