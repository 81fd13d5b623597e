/* The isolation test: exercise paths where MPI libraries call MPI_* by name internally
 * (MPI-IO: ROMIO dups communicators, builds datatypes, reduces, ...), with
 * isolation_probe.so preloaded, and require that the results are right and that the probe
 * saw exactly the program's own calls.  Such internal calls reach anympi's exports (the
 * backend is loaded without RTLD_DEEPBIND); unless anympi routes them straight back to the
 * native MPI (the native scope, abi/runtime/backend/backend.hpp), they are converted as if
 * they came from the program and the file view, the data or the process break. */
#define _GNU_SOURCE
#include <mpi.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* With --plugins: Open MPI's ROMIO component is a plugin Open MPI dlopens itself, and it calls
 * MPI_* (not PMPI_*) by name, which the probe would catch first; then the probe is not used
 * and the results must be right. */
int main(int argc, char **argv)
{
    int plugins = argc > 1 && strcmp(argv[1], "--plugins") == 0;
    long (*foreign)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "isolation_probe_foreign_calls");
    long (*own)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "isolation_probe_own_calls");
    const char *(*first)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "isolation_probe_first_foreign");
    if (!plugins && (!foreign || !own || !first)) {
        fprintf(stderr, "isolation: isolation_probe.so is not preloaded (LD_PRELOAD)\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char path[256];
    if (rank == 0) snprintf(path, sizeof path, "/tmp/anympi_isolation_%d.dat", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);

    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                           MPI_INFO_NULL, &fh);
    int failures = rc != MPI_SUCCESS;
    /* a subarray file view and collective I/O: ROMIO's two-phase path */
    int gsizes[1] = {4 * size}, subsizes[1] = {4}, starts[1] = {4 * rank};
    MPI_Datatype ft;
    MPI_Type_create_subarray(1, gsizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    failures += MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL) != MPI_SUCCESS;
    MPI_Offset vdisp = -1;
    MPI_Datatype vet = MPI_DATATYPE_NULL, vft = MPI_DATATYPE_NULL;
    char rep[MPI_MAX_DATAREP_STRING] = "";
    failures += MPI_File_get_view(fh, &vdisp, &vet, &vft, rep) != MPI_SUCCESS;
    if (vdisp != 0 || vet != MPI_INT || strcmp(rep, "native") != 0) {
        fprintf(stderr, "rank %d: MPI_File_get_view gave disp %lld, etype %s, datarep '%s'\n", rank, (long long)vdisp,
                vet == MPI_INT ? "MPI_INT" : "not MPI_INT", rep);
        ++failures;
    }
    int own_expected = 9;
    if (vft != MPI_DATATYPE_NULL && vft != MPI_INT) {
        MPI_Type_free(&vft);
        ++own_expected;
    }
    int out[4], in[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; ++i) out[i] = 10 * rank + i;
    MPI_Status st;
    failures += MPI_File_write_all(fh, out, 4, MPI_INT, &st) != MPI_SUCCESS;
    failures += MPI_File_seek(fh, 0, MPI_SEEK_SET) != MPI_SUCCESS;
    failures += MPI_File_read_all(fh, in, 4, MPI_INT, &st) != MPI_SUCCESS;
    for (int i = 0; i < 4; ++i) failures += in[i] != out[i];
    failures += MPI_File_close(&fh) != MPI_SUCCESS;
    MPI_Type_free(&ft);

    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int x = 1, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup);
    failures += sum != size;
    MPI_Comm_free(&dup);

    long f = plugins ? 0 : foreign(), o = plugins ? own_expected : own();
    if (f != 0) {
        fprintf(stderr, "rank %d: isolation broken: %ld MPI_* calls from inside the MPI reached the global scope (first: %s)\n",
                rank, f, first());
        ++failures;
    }
    /* the probe must have seen exactly the program's own calls of probed functions (rank, size,
     * bcast, subarray, commit, type free (x2), dup, allreduce, comm free), or it proves nothing */
    if (o != own_expected) {
        fprintf(stderr, "rank %d: the probe saw %ld of the program's own %d calls\n", rank, o, own_expected);
        ++failures;
    }
    if (failures) fprintf(stderr, "rank %d: %d failures\n", rank, failures);
    MPI_Finalize();
    return failures != 0;
}
