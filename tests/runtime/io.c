/* MPI-IO in a fresh temporary directory: open/close/delete, MPI_MODE_* flags
 * (CREATE, EXCL, RDONLY, WRONLY, RDWR, DELETE_ON_CLOSE, APPEND), set_view with
 * an interleaving filetype, get_view giving back the standard constants,
 * read/write _at, _at_all, _all, _shared, _ordered, iwrite_at/iread_at,
 * seek/get_position, get_size/set_size/preallocate, get_amode, get_group,
 * sync, error classes of file errors, and integer handles of files. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, access */
#include "check.h"
#include <unistd.h>

static int rank, size;
static char dir[256];

/* The file names carry the unique directory suffix too: Open MPI's shared file
 * pointer segments are named after the file's base name, so two jobs with the
 * same base names in different directories would collide. */
static void path(char *out, size_t n, const char *name)
{
    const char *suffix = strrchr(dir, '_');
    snprintf(out, n, "%s/%s%s", dir, suffix ? suffix + 1 : "", name);
}

static void test_basic(void)
{
    char fname[300];
    path(fname, sizeof fname, "basic.dat");
    MPI_File fh = MPI_FILE_NULL;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                         &fh));
    CHECK(fh != MPI_FILE_NULL);
    int amode = -1;
    MPI_OK(MPI_File_get_amode(fh, &amode));
    CHECK_EQ(amode, MPI_MODE_CREATE | MPI_MODE_RDWR);
    MPI_Group g, wg;
    int result = -1;
    MPI_OK(MPI_File_get_group(fh, &g));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_compare(g, wg, &result));
    CHECK_EQ(result, MPI_IDENT);
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Group_free(&wg));

    /* Explicit offsets: each rank writes 4 ints at rank*16 bytes. */
    int out[4], in[4];
    for (int i = 0; i < 4; ++i) out[i] = rank * 100 + i;
    /* Both MPIs' ROMIO write only the count of a file status: the caller's other fields stay,
     * which anympi's status staging must not lose or convert. */
    MPI_Status st;
    st.MPI_SOURCE = -77;
    st.MPI_TAG = -88;
    st.MPI_ERROR = -99;
    MPI_OK(MPI_File_write_at(fh, (MPI_Offset)rank * 16, out, 4, MPI_INT, &st));
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, 4);
    CHECK_EQ(st.MPI_SOURCE, -77);
    CHECK_EQ(st.MPI_TAG, -88);
    CHECK_EQ(st.MPI_ERROR, -99);
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    MPI_Offset fsize = -1;
    MPI_OK(MPI_File_get_size(fh, &fsize));
    CHECK_EQ(fsize, 16 * size);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* nobody grows the file before all looked */
    /* Read what the right neighbour wrote. */
    int right = (rank + 1) % size;
    MPI_OK(MPI_File_read_at(fh, (MPI_Offset)right * 16, in, 4, MPI_INT, &st));
    for (int i = 0; i < 4; ++i) CHECK_EQ(in[i], right * 100 + i);

    /* Collective variants at explicit offsets, after the first block. */
    MPI_Offset base = 16 * size;
    for (int i = 0; i < 4; ++i) out[i] = rank * 1000 + i;
    MPI_OK(MPI_File_write_at_all(fh, base + rank * 16, out, 4, MPI_INT, MPI_STATUS_IGNORE));
    /* Another process's writes are visible after sync-barrier-sync. */
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_File_read_at_all(fh, base + right * 16, in, 4, MPI_INT, &st));
    for (int i = 0; i < 4; ++i) CHECK_EQ(in[i], right * 1000 + i);

    /* Nonblocking. */
    MPI_Request req;
    MPI_Offset nbase = 2 * base;
    for (int i = 0; i < 4; ++i) out[i] = rank * 7 + i;
    MPI_OK(MPI_File_iwrite_at(fh, nbase + rank * 16, out, 4, MPI_INT, &req));
    MPI_OK(MPI_Wait(&req, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, 4);
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    memset(in, 0, sizeof in);
    MPI_OK(MPI_File_iread_at(fh, nbase + right * 16, in, 4, MPI_INT, &req));
    MPI_OK(MPI_Wait(&req, &st));
    for (int i = 0; i < 4; ++i) CHECK_EQ(in[i], right * 7 + i);

    /* Individual file pointer: seek + read + position. */
    MPI_OK(MPI_File_seek(fh, (MPI_Offset)right * 16 + 4, MPI_SEEK_SET));
    MPI_OK(MPI_File_read(fh, in, 2, MPI_INT, &st));
    CHECK_EQ(in[0], right * 100 + 1);
    CHECK_EQ(in[1], right * 100 + 2);
    MPI_Offset pos = -1;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK_EQ(pos, (MPI_Offset)right * 16 + 12);
    MPI_OK(MPI_File_seek(fh, -8, MPI_SEEK_CUR));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK_EQ(pos, (MPI_Offset)right * 16 + 4);
    /* Reading past the end gives a count of 0. */
    MPI_OK(MPI_File_read_at(fh, 3 * base + 1000, in, 4, MPI_INT, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, 0);

    /* Sizes (collective; checked once every process is done). */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_set_size(fh, 1000));
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_get_size(fh, &fsize));
    CHECK_EQ(fsize, 1000);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_preallocate(fh, 2000));
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_get_size(fh, &fsize));
    CHECK_EQ(fsize, 2000);
    MPI_OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL);

    /* EXCL on an existing file fails with MPI_ERR_FILE_EXISTS.  The failing opens
     * run on MPI_COMM_SELF of one rank: Open MPI 4.1.4 hangs at 4 processes when a
     * collective open fails on some ranks only. */
    int rc = MPI_SUCCESS, cls = -1;
    if (rank == 0) {
        rc = MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh);
        MPI_Error_class(rc, &cls);
        CHECK_EQ(cls, MPI_ERR_FILE_EXISTS);
    }
    /* Read-only: a write fails with MPI_ERR_READ_ONLY or MPI_ERR_ACCESS. */
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    rc = MPI_File_write_at(fh, 0, out, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_READ_ONLY || cls == MPI_ERR_ACCESS, "write on RDONLY: class %d", cls);
    MPI_OK(MPI_File_close(&fh));

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) MPI_OK(MPI_File_delete(fname, MPI_INFO_NULL));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(access(fname, F_OK) != 0);
    /* Opening a missing file without CREATE fails with MPI_ERR_NO_SUCH_FILE. */
    if (rank == 0) {
        rc = MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        MPI_Error_class(rc, &cls);
        CHECK_MSG(cls == MPI_ERR_NO_SUCH_FILE, "open of a missing file: class %d", cls);
    }
}

static void test_view(void)
{
    char fname[300];
    path(fname, sizeof fname, "view.dat");
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE | MPI_MODE_RDWR |
                         MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    /* Filetype: one int out of every `size`, so rank r owns ints r, r+size, ... */
    MPI_Datatype contig, filetype;
    MPI_OK(MPI_Type_contiguous(1, MPI_INT, &contig));
    MPI_OK(MPI_Type_create_resized(contig, 0, (MPI_Aint)sizeof(int) * size, &filetype));
    MPI_OK(MPI_Type_commit(&filetype));
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)rank * sizeof(int), MPI_INT, filetype, "native",
                             MPI_INFO_NULL));
    MPI_Offset disp = -1;
    MPI_Datatype etype = MPI_DATATYPE_NULL, ftype = MPI_DATATYPE_NULL;
    char rep[MPI_MAX_DATAREP_STRING + 1] = "";
    MPI_OK(MPI_File_get_view(fh, &disp, &etype, &ftype, rep));
    CHECK_EQ(disp, (MPI_Offset)rank * (MPI_Offset)sizeof(int));
    CHECK_HANDLE(etype, MPI_INT);
    CHECK_STREQ(rep, "native");
    /* The filetype comes back as an equivalent type (its combiner may differ). */
    int fts = -1;
    MPI_Aint ftlb = -1, ftext = -1;
    MPI_OK(MPI_Type_size(ftype, &fts));
    MPI_OK(MPI_Type_get_extent(ftype, &ftlb, &ftext));
    CHECK_EQ(fts, (int)sizeof(int));
    CHECK_EQ(ftlb, 0);
    CHECK_EQ(ftext, (MPI_Aint)sizeof(int) * size);
    int ni, na, nd, comb = -1;
    MPI_OK(MPI_Type_get_envelope(ftype, &ni, &na, &nd, &comb));
    if (comb != MPI_COMBINER_NAMED) MPI_OK(MPI_Type_free(&ftype));

    enum { PER = 5 };
    int out[PER], in[PER];
    for (int i = 0; i < PER; ++i) out[i] = rank + size * i; /* = global index */
    MPI_OK(MPI_File_write_all(fh, out, PER, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    /* Through a byte view, the file is 0, 1, 2, ... size*PER-1. */
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int *all = malloc(sizeof(int) * (size_t)(size * PER));
    MPI_OK(MPI_File_read_at_all(fh, 0, all, size * PER, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < size * PER; ++i) CHECK_EQ(all[i], i);
    free(all);
    /* Back to the strided view: read_all gives each rank its own ints. */
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)rank * sizeof(int), MPI_INT, filetype, "native",
                             MPI_INFO_NULL));
    MPI_OK(MPI_File_read_all(fh, in, PER, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < PER; ++i) CHECK_EQ(in[i], rank + size * i);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&filetype));
    MPI_OK(MPI_Type_free(&contig));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(access(fname, F_OK) != 0); /* deleted on close */
}

static void test_shared_ordered(void)
{
    char fname[300];
    path(fname, sizeof fname, "shared.dat");
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                         &fh));
    /* Ordered: rank r writes r+1 ints of value r, in rank order. */
    int buf[64];
    for (int i = 0; i <= rank; ++i) buf[i] = rank;
    MPI_OK(MPI_File_write_ordered(fh, buf, rank + 1, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Offset spos = -1;
    MPI_OK(MPI_File_get_position_shared(fh, &spos));
    CHECK_EQ(spos, (MPI_Offset)sizeof(int) * size * (size + 1) / 2);
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    int expect_off = rank * (rank + 1) / 2;
    int got[64];
    MPI_OK(MPI_File_read_at(fh, (MPI_Offset)sizeof(int) * expect_off, got, rank + 1, MPI_INT,
                            MPI_STATUS_IGNORE));
    for (int i = 0; i <= rank; ++i) CHECK_EQ(got[i], rank);
    /* read_ordered from the start gives the same blocks back. */
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    memset(got, -1, sizeof got);
    MPI_OK(MPI_File_read_ordered(fh, got, rank + 1, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i <= rank; ++i) CHECK_EQ(got[i], rank);

    /* Shared pointer, any order: after everyone wrote 2 ints tagged with its rank,
     * the tail holds exactly two of each. */
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    MPI_Offset tail = -1;
    MPI_OK(MPI_File_get_position_shared(fh, &tail));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* all read the pointer before anyone moves it */
    int two[2] = {rank + 500, rank + 500};
    MPI_OK(MPI_File_write_shared(fh, two, 2, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    int *t = malloc(sizeof(int) * (size_t)(2 * size));
    MPI_OK(MPI_File_read_at(fh, tail, t, 2 * size, MPI_INT, MPI_STATUS_IGNORE));
    int seen[64] = {0};
    for (int i = 0; i < 2 * size; ++i)
        if (t[i] >= 500 && t[i] < 500 + size) ++seen[t[i] - 500];
    for (int r = 0; r < size; ++r) CHECK_EQ(seen[r], 2);
    free(t);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_seek_shared(fh, tail, MPI_SEEK_SET));
    int back[2] = {-1, -1};
    MPI_OK(MPI_File_read_shared(fh, back, 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(back[0] >= 500 && back[0] < 500 + size && back[0] == back[1]);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) MPI_OK(MPI_File_delete(fname, MPI_INFO_NULL));
}

/* A file's integer handle gives the file back, distinct per file (Fortran layers keep files as
 * integers); over MPICH the ABI's MPI_File_fromint gave a predefined handle instead.  Natively
 * MPI_File_c2f/f2c. */
#if CHECK_OVER_ABI
#define FILE_TO_INT(f) MPI_File_toint(f)
#define FILE_FROM_INT(i) MPI_File_fromint(i)
#else
#define FILE_TO_INT(f) ((int)MPI_File_c2f(f))
#define FILE_FROM_INT(i) MPI_File_f2c(i)
#endif
static void test_integer_handles(void)
{
    char name[32], fname[300];
    snprintf(name, sizeof name, "ints%d.dat", rank);
    path(fname, sizeof fname, name);
    MPI_File a, b;
    MPI_OK(MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &a));
    MPI_OK(MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_RDWR, MPI_INFO_NULL, &b));
    const int ia = FILE_TO_INT(a), ib = FILE_TO_INT(b);
    CHECK(ia != ib);
    CHECK_EQ(FILE_TO_INT(a), ia);
    CHECK(FILE_FROM_INT(ia) == a);
    CHECK(FILE_FROM_INT(ib) == b);
    MPI_Offset n = -1;
    MPI_OK(MPI_File_set_size(FILE_FROM_INT(ia), 24));
    MPI_OK(MPI_File_get_size(FILE_FROM_INT(ib), &n));
    CHECK_EQ(n, 24);
    CHECK(FILE_FROM_INT(FILE_TO_INT(MPI_FILE_NULL)) == MPI_FILE_NULL);
    MPI_OK(MPI_File_close(&b));
    MPI_OK(MPI_File_close(&a));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "io");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_FATAL(size <= 64);
    MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    /* Rank 0 makes a fresh directory and tells the others. */
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/anympi_io_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) dir[0] = '\0';
    }
    MPI_OK(MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD));
    CHECK_FATAL(dir[0] != '\0');
    test_basic();
    test_view();
    test_shared_ordered();
    test_integer_handles();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        /* Leftovers of a shared file pointer implementation are allowed; remove them. */
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        CHECK(system(cmd) == 0);
    }
    return check_finish();
}
