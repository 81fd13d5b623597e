/* 2^31 + 7 MPI_INTs (8 GiB) through the _c functions, every element checked: a send/receive, a
 * broadcast and an allreduce whose count passes INT_MAX in elements of four bytes, where over
 * Open MPI 4.1 anympi's derived datatypes and reduction chunks must offset by the element's
 * extent, not by bytes.  Natively the program runs on MPICH (MPI-4.0), which proves it.
 *
 * Memory: the data sent is periodic -- one memfd of P bytes mapped again and again, so 8 GiB of
 * it costs P -- and only a receiving process holds a real 8 GiB buffer.  P is 4096 * 3^9 bytes,
 * which no power of two divides beyond the page: an element landing a chunk (2^30 elements)
 * away from where it belongs still reads wrong.  So at 2 ranks one process holds 8 GiB, at 1
 * rank one does; the allreduce, which needs a receive buffer at every process, runs at 1 rank. */
#define _GNU_SOURCE
#include "check.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#if MPI_VERSION >= 4
static const MPI_Count N = ((MPI_Count)1 << 31) + 7;
static const size_t PERIOD = (size_t)4096 * 19683; /* bytes: 4096 * 3^9 */

static int value(size_t j) { return (int)(uint32_t)(j * 2654435761u + 0x9e3779b9u); }

/* At least n ints of the periodic pattern, read-write, at shift ints into its period: element i
 * is value((i + shift) % (PERIOD / 4)). */
static int *periodic(MPI_Count n, size_t shift)
{
    const int fd = memfd_create("anympi-large-ints", 0);
    CHECK_FATAL(fd >= 0 && ftruncate(fd, (off_t)PERIOD) == 0);
    int *one = mmap(NULL, PERIOD, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK_FATAL(one != MAP_FAILED);
    for (size_t j = 0; j < PERIOD / sizeof(int); ++j) one[j] = value(j);
    munmap(one, PERIOD);
    const size_t bytes = (size_t)n * sizeof(int) + shift * sizeof(int), copies = bytes / PERIOD + 1;
    char *base = mmap(NULL, copies * PERIOD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK_FATAL(base != MAP_FAILED);
    for (size_t c = 0; c < copies; ++c)
        CHECK_FATAL(mmap(base + c * PERIOD, PERIOD, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED);
    close(fd);
    return (int *)base + shift;
}

/* How many of r's n ints differ from the pattern at shift (the first few are reported). */
static MPI_Count differences(const int *r, MPI_Count n, size_t shift, const char *what)
{
    const size_t q = PERIOD / sizeof(int);
    MPI_Count bad = 0;
    size_t j = shift % q;
    for (MPI_Count i = 0; i < n; ++i) {
        if (r[i] != value(j) && bad++ < 4)
            fprintf(stderr, "large_ints: %s: element %lld is %d, expected %d\n", what, (long long)i, r[i], value(j));
        if (++j == q) j = 0;
    }
    return bad;
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "large_ints");
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int last = size - 1;
    int *s = periodic(N, 0), *t = periodic(N, 12345);
    int *r = rank == last ? malloc((size_t)(N + 1) * sizeof(int)) : NULL;
    CHECK_FATAL(rank != last || r != NULL);
    if (r) r[N] = -7; /* past the end: must stay */

    /* send/receive, rank 0 to the last one (to itself at 1 rank) */
    MPI_Status st;
    MPI_Request q = MPI_REQUEST_NULL;
    if (rank == 0) MPI_OK(MPI_Isend_c(s, N, MPI_INT, last, 1, MPI_COMM_WORLD, &q));
    if (rank == last) {
        MPI_OK(MPI_Recv_c(r, N, MPI_INT, 0, 1, MPI_COMM_WORLD, &st));
        MPI_Count c = 0;
        MPI_OK(MPI_Get_count_c(&st, MPI_INT, &c));
        CHECK_EQ(c, N);
        CHECK_EQ(differences(r, N, 0, "send/receive"), 0);
        CHECK_EQ(r[N], -7);
    }
    MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));

    /* broadcast from rank 0 of the pattern at another shift (so no element is left over from
     * the receive); at 1 rank the root's buffer itself */
    MPI_OK(MPI_Bcast_c(rank == 0 ? t : r, N, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == last && size > 1) {
        CHECK_EQ(differences(r, N, 12345, "bcast"), 0);
        CHECK_EQ(r[N], -7);
    }

    /* allreduce (sum) of one process's pattern: the pattern, through anympi's chunks over
     * Open MPI (every chunk at its element offset) */
    if (size == 1) {
        MPI_OK(MPI_Allreduce_c(t, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK_EQ(differences(r, N, 12345, "allreduce"), 0);
        CHECK_EQ(r[N], -7);
    }
    free(r);
    return check_finish();
}
#else
int main(int argc, char **argv)
{
    check_init(&argc, &argv, "large_ints");
    CHECK_MSG(0, "this MPI is older than MPI-4.0: build the program natively on MPICH only");
    return check_finish();
}
#endif
