/* MPI_Register_datarep and file views in a user data representation, judged by the bytes in the
 * file.  The representation "anympi-be64" keeps every int as 8 bytes, big-endian: its
 * conversion functions pack the caller's data (any datatype made of ints) with MPI_Pack and
 * widen each int, or narrow and MPI_Unpack.  So a write must leave exactly the widened values at
 * the places the view names, with element displacements scaled to 8-byte ints and byte
 * displacements kept as written; a read must give the ints back, through every positioning and
 * form (explicit offsets, individual and shared pointers, collective, nonblocking, split), into
 * memory types with holes the conversion must not touch, and a read cut short by the end of the
 * file must count only what it read.  Also: the _c registration, MPI_CONVERSION_FN_NULL (data as they
 * are), MPI_File_get_view and MPI_File_get_type_extent under the view, the errors
 * (MPI_ERR_DUP_DATAREP, MPI_ERR_ARG, MPI_ERR_CONVERSION from a failing function), raised through
 * MPI_FILE_NULL's handler, a program's own too, and not MPI_COMM_WORLD's.  Neither MPI
 * here accepts a registered representation in MPI_File_set_view: over the ABI only. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "check.h"
#include <stdint.h>
#include <unistd.h>

static int rank, size;
static char dir[256];
static int fail_conversion; /* the next conversion fails */
static long conversions;    /* conversion calls made */

static int error_class_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void path(char *out, size_t n, const char *name)
{
    const char *suffix = strrchr(dir, '_');
    snprintf(out, n, "%s/%s%s", dir, suffix ? suffix + 1 : "", name);
}

static int be64_extent(MPI_Datatype t, MPI_Aint *extent, void *extra)
{
    CHECK(extra == &conversions);
    if (t != MPI_INT) return MPI_ERR_TYPE;
    *extent = 8;
    return MPI_SUCCESS;
}

/* What a conversion starts with: the call counted, the ints per element of t (a datatype made
 * of ints), where the element at int `position` begins in the caller's buffer. */
static int conversion_begins(MPI_Datatype t, MPI_Offset position, void *extra, void *userbuf, char **at)
{
    CHECK(extra == &conversions);
    ++conversions;
    int tsize = 0;
    MPI_Aint lb, ext;
    MPI_OK(MPI_Type_size(t, &tsize));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    const int per = tsize / (int)sizeof(int);
    CHECK(per > 0 && position % per == 0);
    *at = (char *)userbuf + (position / (per > 0 ? per : 1)) * ext;
    return per > 0 ? per : 1;
}

/* count ints of the (tiled) datatype, from int number `position` on: packed, then each widened. */
static int be64_write_c(void *userbuf, MPI_Datatype t, MPI_Count count, void *filebuf, MPI_Offset position, void *extra)
{
    char *at;
    const int per = conversion_begins(t, position, extra, userbuf, &at);
    if (fail_conversion) return MPI_ERR_OTHER;
    CHECK(count % per == 0);
    int *packed = malloc((size_t)count * sizeof(int) + 1);
    int pos = 0;
    MPI_OK(MPI_Pack(at, (int)(count / per), t, packed,
                    (int)(count * sizeof(int)), &pos, MPI_COMM_SELF));
    unsigned char *f = filebuf;
    for (MPI_Count i = 0; i < count; ++i) {
        int64_t v = packed[i];
        for (int b = 0; b < 8; ++b) f[8 * i + b] = (unsigned char)((uint64_t)v >> (56 - 8 * b));
    }
    free(packed);
    return MPI_SUCCESS;
}
static int be64_read_c(void *userbuf, MPI_Datatype t, MPI_Count count, void *filebuf, MPI_Offset position, void *extra)
{
    char *at;
    const int per = conversion_begins(t, position, extra, userbuf, &at);
    if (fail_conversion) return MPI_ERR_OTHER;
    int *packed = malloc((size_t)count * sizeof(int) + 1);
    const unsigned char *f = filebuf;
    for (MPI_Count i = 0; i < count; ++i) {
        uint64_t v = 0;
        for (int b = 0; b < 8; ++b) v = v << 8 | f[8 * i + b];
        packed[i] = (int)(int64_t)v;
    }
    CHECK_EQ(count % per, 0); /* this test cuts reads short only of plain ints */
    int pos = 0;
    MPI_OK(MPI_Unpack(packed, (int)(count * sizeof(int)), &pos, at, (int)(count / per), t, MPI_COMM_SELF));
    free(packed);
    return MPI_SUCCESS;
}
static int be64_write(void *u, MPI_Datatype t, int count, void *f, MPI_Offset position, void *extra)
{
    return be64_write_c(u, t, count, f, position, extra);
}
static int be64_read(void *u, MPI_Datatype t, int count, void *f, MPI_Offset position, void *extra)
{
    return be64_read_c(u, t, count, f, position, extra);
}
static int native_extent(MPI_Datatype t, MPI_Aint *extent, void *extra)
{
    (void)extra;
    int s = 0;
    MPI_Type_size(t, &s);
    *extent = s;
    return MPI_SUCCESS;
}

static int64_t be64_at(const unsigned char *p)
{
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v = v << 8 | p[b];
    return (int64_t)v;
}

static void test_register(void)
{
    MPI_OK(MPI_Register_datarep("anympi-be64", be64_read, be64_write, be64_extent, &conversions));
    MPI_OK(MPI_Register_datarep_c("anympi-be64-c", be64_read_c, be64_write_c, be64_extent, &conversions));
    MPI_OK(MPI_Register_datarep("anympi-as-is", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, native_extent, NULL));
    CHECK_EQ(error_class_of(MPI_Register_datarep("anympi-be64", be64_read, be64_write, be64_extent, NULL)),
             MPI_ERR_DUP_DATAREP);
    CHECK_EQ(error_class_of(MPI_Register_datarep_c("anympi-be64", be64_read_c, be64_write_c, be64_extent, NULL)),
             MPI_ERR_DUP_DATAREP);
    CHECK_EQ(error_class_of(MPI_Register_datarep("external32", be64_read, be64_write, be64_extent, NULL)),
             MPI_ERR_DUP_DATAREP);
    CHECK_EQ(error_class_of(MPI_Register_datarep("native", be64_read, be64_write, be64_extent, NULL)),
             MPI_ERR_DUP_DATAREP);
    CHECK_EQ(error_class_of(MPI_Register_datarep("anympi-no-extent", be64_read, be64_write, NULL, NULL)), MPI_ERR_ARG);
    CHECK_EQ(error_class_of(MPI_Register_datarep("", be64_read, be64_write, be64_extent, NULL)), MPI_ERR_ARG);
}

static int handler_calls, handler_class;
static MPI_File handler_file;
static void on_file_error(MPI_File *f, int *code, ...)
{
    ++handler_calls;
    handler_file = *f;
    MPI_Error_class(*code, &handler_class);
}

/* Errors without a file (MPI_Register_datarep's) go to MPI_FILE_NULL's handler alone: with
 * MPI_COMM_WORLD's fatal, as by default, a program whose handler there returns, or is its own,
 * carries on (over Open MPI, which refuses MPI_File_call_errhandler on MPI_FILE_NULL, the
 * refusal was raised on MPI_COMM_WORLD and aborted the program). */
static void test_default_file_handler(void)
{
    MPI_Errhandler mine;
    MPI_OK(MPI_File_create_errhandler(on_file_error, &mine));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
    int rc = MPI_Register_datarep("anympi-be64", be64_read, be64_write, be64_extent, NULL);
    CHECK_EQ(error_class_of(rc), MPI_ERR_DUP_DATAREP);
    CHECK_EQ(handler_calls, 1);
    CHECK_EQ(handler_class, MPI_ERR_DUP_DATAREP);
    CHECK(handler_file == MPI_FILE_NULL);
    MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    rc = MPI_Register_datarep("", be64_read, be64_write, be64_extent, NULL);
    CHECK_EQ(error_class_of(rc), MPI_ERR_ARG);
    CHECK_EQ(handler_calls, 1);
    MPI_OK(MPI_Errhandler_free(&mine));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

/* What every process wrote, visible to every process (MPI-IO's sync-barrier-sync). */
/* The count of a status, in elements of t. */
static int count_of(const MPI_Status *st, MPI_Datatype t)
{
    int n = -1;
    MPI_OK(MPI_Get_count(st, t, &n));
    return n;
}

static void settle(MPI_File fh)
{
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
}

/* The whole file as bytes, through a native view. */
static long raw(MPI_File fh, unsigned char *out, long cap)
{
    MPI_Status st;
    memset(&st, 0, sizeof st); /* ROMIO writes only the count */
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_read_at(fh, 0, out, (int)cap, MPI_BYTE, &st));
    return count_of(&st, MPI_BYTE);
}

/* Ranks interleaved int by int: rank r's i-th int at file int i*size + r, the filetype's extent
 * written in the file's bytes (8 per int), as the standard asks of byte displacements. */
static void test_interleaved(const char *rep)
{
    char fname[300];
    path(fname, sizeof fname, rep);
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Datatype slot;
    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)size * 8, &slot));
    MPI_OK(MPI_Type_commit(&slot));
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)rank * 8, MPI_INT, slot, rep, MPI_INFO_NULL));
    MPI_OK(MPI_Type_free(&slot)); /* the view keeps what it needs */

    /* What the view says of itself: the representation and the caller's types. */
    MPI_Offset disp = -1;
    MPI_Datatype et, ft;
    char name[MPI_MAX_DATAREP_STRING + 1] = "";
    MPI_OK(MPI_File_get_view(fh, &disp, &et, &ft, name));
    CHECK_EQ(disp, (MPI_Offset)rank * 8);
    CHECK_STREQ(name, rep);
    CHECK(et == MPI_INT);
    int ni, na, nd, combiner = -1;
    MPI_OK(MPI_Type_get_envelope(ft, &ni, &na, &nd, &combiner));
    CHECK(combiner != MPI_COMBINER_NAMED); /* a type of the caller's own (or a duplicate) */
    MPI_Aint lb = -1, ext = -1;
    MPI_OK(MPI_Type_get_extent(ft, &lb, &ext));
    CHECK_EQ(ext, (MPI_Aint)size * 8);
    MPI_OK(MPI_Type_free(&ft));
    MPI_Aint fext = 0;
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_OK(MPI_File_get_type_extent(fh, MPI_INT, &fext));
    CHECK_EQ(fext, 8);
    MPI_OK(MPI_File_get_type_extent(fh, vec, &fext)); /* 4 ints' span, scaled */
    CHECK_EQ(fext, 32);
    MPI_Count fext_c = 0;
    MPI_OK(MPI_File_get_type_extent_c(fh, vec, &fext_c));
    CHECK_EQ(fext_c, 32);

    /* Collective write of 6 ints: 4 through the individual pointer, 2 at an explicit offset. */
    enum { N = 6 };
    int out[N], in[N];
    for (int i = 0; i < N; ++i) out[i] = (i % 2 ? -1 : 1) * (i * 1000 + rank * 10 + 7);
    MPI_Status st;
    memset(&st, 0, sizeof st); /* ROMIO writes only the count */
    int count = -1;
    MPI_OK(MPI_File_write_all(fh, out, 4, MPI_INT, &st));
    CHECK_EQ(count_of(&st, MPI_INT), 4);
    MPI_Offset pos = -1;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK_EQ(pos, 4);
    MPI_OK(MPI_File_write_at(fh, 4, out + 4, 2, MPI_INT, MPI_STATUS_IGNORE));
    settle(fh);

    /* The bytes: rank r's i-th int, widened, big-endian, at 8 * (i * size + r). */
    const long want = 8L * N * size;
    unsigned char *bytes = malloc((size_t)want + 64);
    CHECK_EQ(raw(fh, bytes, want + 64), want);
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < N; ++i)
            CHECK_EQ(be64_at(bytes + 8 * (i * size + r)), (int64_t)((i % 2 ? -1 : 1) * (i * 1000 + r * 10 + 7)));
    free(bytes);

    /* Read back: explicit offsets, then the individual pointer into a vector with holes, then
     * collective into plain ints. */
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)rank * 8, MPI_INT, MPI_INT, rep, MPI_INFO_NULL));
    /* (a contiguous filetype now: this rank's ints are at rank*8 + 8*k in the file's bytes) */
    MPI_Datatype slot2;
    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)size * 8, &slot2));
    MPI_OK(MPI_Type_commit(&slot2));
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)rank * 8, MPI_INT, slot2, rep, MPI_INFO_NULL));
    MPI_OK(MPI_Type_free(&slot2));
    memset(in, 0, sizeof in);
    MPI_OK(MPI_File_read_at(fh, 2, in, 4, MPI_INT, &st));
    CHECK_EQ(count_of(&st, MPI_INT), 4);
    for (int i = 0; i < 4; ++i) CHECK_EQ(in[i], out[2 + i]);
    int holes[2 * N];
    for (int i = 0; i < 2 * N; ++i) holes[i] = -555;
    MPI_Datatype gaps3, gaps; /* 3 ints, every other one of memory, each element 6 ints apart */
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &gaps3));
    MPI_OK(MPI_Type_create_resized(gaps3, 0, 6 * (MPI_Aint)sizeof(int), &gaps));
    MPI_OK(MPI_Type_free(&gaps3));
    MPI_OK(MPI_Type_commit(&gaps));
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_read(fh, holes, 2, gaps, &st));
    CHECK_EQ(count_of(&st, gaps), 2);
    MPI_OK(MPI_Get_elements(&st, MPI_INT, &count));
    CHECK_EQ(count, 6);
    for (int i = 0; i < 2 * N; ++i) CHECK_EQ(holes[i], i % 2 ? -555 : out[i / 2]);
    memset(in, 0, sizeof in);
    MPI_OK(MPI_File_read_at_all(fh, 0, in, N, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; ++i) CHECK_EQ(in[i], out[i]);

    /* Nonblocking: the memory datatype freed before the read completes. */
    for (int i = 0; i < 2 * N; ++i) holes[i] = -555;
    MPI_Request req;
    MPI_OK(MPI_File_iread_at(fh, 0, holes, 2, gaps, &req));
    MPI_OK(MPI_Type_free(&gaps));
    MPI_OK(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL);
    MPI_OK(MPI_Get_elements(&st, MPI_INT, &count));
    CHECK_EQ(count, 6);
    for (int i = 0; i < 2 * N; ++i) CHECK_EQ(holes[i], i % 2 ? -555 : out[i / 2]);
    int again[2] = {rank + 11, rank + 12};
    MPI_OK(MPI_File_iwrite_at(fh, N, again, 2, MPI_INT, &req)); /* (Open MPI's ROMIO faults in iwrite_at_all) */
    int flag = 0;
    SPIN(MPI_Test(&req, &flag, &st), flag);
    CHECK_EQ(count_of(&st, MPI_INT), 2);
    settle(fh);

    /* Split collective: the ints written last. */
    int two[2] = {0, 0};
    MPI_OK(MPI_File_read_at_all_begin(fh, N, two, 2, MPI_INT));
    MPI_OK(MPI_File_read_at_all_end(fh, two, &st));
    CHECK_EQ(count_of(&st, MPI_INT), 2);
    CHECK_EQ(two[0], rank + 11);
    CHECK_EQ(two[1], rank + 12);

    /* A failing conversion: MPI_ERR_CONVERSION through the file's handler. */
    fail_conversion = 1;
    CHECK_EQ(error_class_of(MPI_File_read_at(fh, 0, in, 1, MPI_INT, MPI_STATUS_IGNORE)), MPI_ERR_CONVERSION);
    CHECK_EQ(error_class_of(MPI_File_write_at(fh, 0, in, 1, MPI_INT, MPI_STATUS_IGNORE)), MPI_ERR_CONVERSION);
    fail_conversion = 0;
    /* A type the representation has no extent for: refused, the view unchanged. */
    CHECK_EQ(error_class_of(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, rep, MPI_INFO_NULL)), MPI_ERR_CONVERSION);
    MPI_OK(MPI_File_get_view(fh, &disp, &et, &ft, name));
    CHECK_STREQ(name, rep);
    CHECK(et == MPI_INT);
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_Type_free(&vec));

    /* Back to native: the data access is the MPI's own again. */
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_get_view(fh, &disp, &et, &ft, name));
    CHECK_STREQ(name, "native");
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) MPI_OK(MPI_File_delete(fname, MPI_INFO_NULL));
}

/* The shared file pointer: write_ordered in rank order, read back by the split read_ordered. */
static void test_ordered(void)
{
    char fname[300];
    path(fname, sizeof fname, "ordered");
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "anympi-be64", MPI_INFO_NULL));
    int mine[2] = {100 * rank + 1, -(100 * rank + 2)}, back[2] = {0, 0};
    MPI_Status st;
    memset(&st, 0, sizeof st); /* ROMIO writes only the count */
    MPI_OK(MPI_File_write_ordered(fh, mine, 2, MPI_INT, &st));
    CHECK_EQ(count_of(&st, MPI_INT), 2);
    settle(fh);
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_ordered_begin(fh, back, 2, MPI_INT));
    MPI_OK(MPI_File_read_ordered_end(fh, back, &st));
    CHECK_EQ(count_of(&st, MPI_INT), 2);
    CHECK_EQ(back[0], mine[0]);
    CHECK_EQ(back[1], mine[1]);
    /* In the file: rank r's two ints, widened, at 16 * r. */
    const long want = 16L * size;
    unsigned char *bytes = malloc((size_t)want + 16);
    CHECK_EQ(raw(fh, bytes, want + 16), want);
    for (int r = 0; r < size; ++r) {
        CHECK_EQ(be64_at(bytes + 16 * r), (int64_t)(100 * r + 1));
        CHECK_EQ(be64_at(bytes + 16 * r + 8), (int64_t)(-(100 * r + 2)));
    }
    free(bytes);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) MPI_OK(MPI_File_delete(fname, MPI_INFO_NULL));
}

/* One process: a read past the end counts what it read; MPI_CONVERSION_FN_NULL keeps the data
 * as they are in memory. */
static void test_self(void)
{
    char fname[300];
    char name[64];
    snprintf(name, sizeof name, "self%d", rank);
    path(fname, sizeof fname, name);
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "anympi-be64", MPI_INFO_NULL));
    int three[3] = {rank + 1, -(rank + 2), rank + 3}, five[5] = {-9, -9, -9, -9, -9};
    MPI_OK(MPI_File_write_at(fh, 0, three, 3, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Offset fsize = 0;
    MPI_OK(MPI_File_get_size(fh, &fsize));
    CHECK_EQ(fsize, 24);
    MPI_Status st;
    memset(&st, 0, sizeof st); /* ROMIO writes only the count */
    const long before = conversions;
    MPI_OK(MPI_File_read_at(fh, 0, five, 5, MPI_INT, &st));
    CHECK(conversions > before);
    CHECK_EQ(count_of(&st, MPI_INT), 3);
    for (int i = 0; i < 5; ++i) CHECK_EQ(five[i], i < 3 ? three[i] : -9);

    /* The same data, as they are: native ints at 4-byte slots. */
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "anympi-as-is", MPI_INFO_NULL));
    const long quiet = conversions;
    MPI_OK(MPI_File_write_at(fh, 0, three, 3, MPI_INT, MPI_STATUS_IGNORE));
    int back[3] = {0, 0, 0};
    MPI_OK(MPI_File_read_at(fh, 0, back, 3, MPI_INT, &st));
    CHECK_EQ(count_of(&st, MPI_INT), 3);
    CHECK_EQ(conversions, quiet);
    int raw_ints[3] = {0, 0, 0};
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_read_at(fh, 0, raw_ints, 12, MPI_BYTE, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; ++i) {
        CHECK_EQ(back[i], three[i]);
        CHECK_EQ(raw_ints[i], three[i]);
    }
    MPI_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "datarep");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/anympi_datarep_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) dir[0] = '\0';
    }
    MPI_OK(MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD));
    CHECK_FATAL(dir[0] != '\0');
    test_register();
    test_default_file_handler();
    test_interleaved("anympi-be64");
    test_interleaved("anympi-be64-c");
    test_ordered();
    test_self();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) rmdir(dir);
    return check_finish();
}
