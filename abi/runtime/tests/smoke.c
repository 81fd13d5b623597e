/* Smoke test of libmpi_abi over the standard header: the common calls, with their
 * conversions checked (constants come back as the standard's values), on any backend. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "rank %d: %s:%d: CHECK failed: %s\n", rank, __FILE__, __LINE__, #cond); \
            ++failures;                                                                    \
        }                                                                                  \
    } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS)

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    /* the op must receive the standard's handle */
    if (*dt != MPI_INT) { fprintf(stderr, "user op got a non-standard datatype handle\n"); abort(); }
    for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

static int handler_calls, handler_class;
static MPI_Comm handler_comm;
static void my_handler(MPI_Comm *comm, int *code, ...)
{
    ++handler_calls;
    handler_comm = *comm;
    MPI_Error_class(*code, &handler_class);
}

static int query_calls, free_calls;
static int my_query(void *extra, MPI_Status *st)
{
    ++query_calls;
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = *(int *)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 3);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}
static int my_free(void *extra) { (void)extra; ++free_calls; return MPI_SUCCESS; }
static int my_cancel(void *extra, int complete) { (void)extra; (void)complete; return MPI_SUCCESS; }

static int copy_calls, delete_calls;
static MPI_Comm copied_from;
static int my_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)keyval; (void)extra;
    ++copy_calls;
    copied_from = comm;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int my_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm; (void)keyval; (void)val; (void)extra;
    ++delete_calls;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int flag = -1;
    OK(MPI_Initialized(&flag));
    CHECK(flag == 0);
    int v = 0, sv = -1;
    OK(MPI_Get_version(&v, &sv));
    CHECK(v == 5 && sv == 0);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    OK(MPI_Get_library_version(lib, &len));
    CHECK(strncmp(lib, "anympi", 6) == 0 && (int)strlen(lib) == len);

    int provided = -1;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED || provided == MPI_THREAD_SERIALIZED ||
          provided == MPI_THREAD_MULTIPLE);
    OK(MPI_Initialized(&flag));
    CHECK(flag == 1);
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(rank >= 0 && rank < size);

    /* point to point around a ring, with the status converted */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = 100 + rank, in = -1;
    MPI_Status st;
    OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 7, &in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(in == 100 + left);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7);
    int count = -1;
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 1);
    OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == (int)sizeof(int));

    /* large-count forms (Open MPI 4.1 has none: they go through the int forms) */
    MPI_Count ccount = -1, csize = -1;
    OK(MPI_Get_count_c(&st, MPI_INT, &ccount));
    CHECK(ccount == 1);
    OK(MPI_Type_size_c(MPI_DOUBLE, &csize));
    CHECK(csize == 8);
    OK(MPI_Sendrecv_c(&out, 1, MPI_INT, right, 8, &in, 1, MPI_INT, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in == 100 + left);

    /* MPI_PROC_NULL: the status says MPI_PROC_NULL / MPI_ANY_TAG in the standard's values */
    OK(MPI_Recv(&in, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 0);

    /* nonblocking with a request array and statuses */
    MPI_Request reqs[2];
    int got = -1;
    OK(MPI_Irecv(&got, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Isend(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &reqs[1]));
    MPI_Status sts[2];
    OK(MPI_Waitall(2, reqs, sts));
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
    CHECK(got == 100 + left && sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 9);

    /* collectives: predefined op, user op, in place */
    int sum = 0;
    OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size - 1) / 2);
    int val = rank;
    OK(MPI_Allreduce(MPI_IN_PLACE, &val, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(val == size - 1);
    MPI_Op op;
    OK(MPI_Op_create(my_sum, 1, &op));
    CHECK(op != MPI_OP_NULL);
    int one = 1, r = 0;
    OK(MPI_Allreduce(&one, &r, 1, MPI_INT, op, MPI_COMM_WORLD));
    CHECK(r == size);
    OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL);
    int root_val = rank == 0 ? 42 : 0;
    OK(MPI_Bcast(&root_val, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(root_val == 42);
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* communicators and their constants */
    MPI_Comm dup, split;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int cmp = -1;
    OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp));
    CHECK(cmp == MPI_CONGRUENT);
    OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_IDENT);
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &split));
    CHECK(rank == 0 ? split == MPI_COMM_NULL : split != MPI_COMM_NULL);
    if (split != MPI_COMM_NULL) OK(MPI_Comm_free(&split));
    CHECK(split == MPI_COMM_NULL);
    MPI_Group g;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    int r0 = MPI_PROC_NULL, tr = -7;
    OK(MPI_Group_translate_ranks(g, 1, &r0, g, &tr));
    CHECK(tr == MPI_PROC_NULL);
    OK(MPI_Group_free(&g));
    CHECK(g == MPI_GROUP_NULL);
    int topo = 0;
    OK(MPI_Topo_test(MPI_COMM_WORLD, &topo));
    CHECK(topo == MPI_UNDEFINED);

    /* attributes */
    int *tag_ub = NULL;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && tag_ub && *tag_ub >= 32767);

    /* datatypes: handles returned by the MPI are the standard constants */
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED);
    MPI_Datatype vec, back[1];
    OK(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &vec));
    OK(MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && nd == 1);
    int ints[3];
    MPI_Aint addrs[1];
    OK(MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, back));
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 3 && back[0] == MPI_DOUBLE);
    int tsize = 0;
    OK(MPI_Type_size(vec, &tsize));
    CHECK(tsize == 16);
    OK(MPI_Type_free(&vec));
    CHECK(vec == MPI_DATATYPE_NULL);

    /* the integer arguments of a subarray come back as standard constants */
    int gs[2] = {4, 6}, ss[2] = {2, 3}, st0[2] = {1, 2};
    MPI_Datatype sub;
    OK(MPI_Type_create_subarray(2, gs, ss, st0, MPI_ORDER_FORTRAN, MPI_INT, &sub));
    int sints[8];
    MPI_Datatype sold[1];
    OK(MPI_Type_get_envelope(sub, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && nd == 1);
    OK(MPI_Type_get_contents(sub, 8, 0, 1, sints, addrs, sold));
    CHECK(sints[0] == 2 && sints[7] == MPI_ORDER_FORTRAN && sold[0] == MPI_INT);
    OK(MPI_Type_free(&sub));

    /* a generalized request: the query callback writes a standard status */
    int gtag = 77;
    MPI_Request greq;
    OK(MPI_Grequest_start(my_query, my_free, my_cancel, &gtag, &greq));
    OK(MPI_Grequest_complete(greq));
    OK(MPI_Wait(&greq, &st));
    CHECK(query_calls == 1 && free_calls == 1 && greq == MPI_REQUEST_NULL);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == 77);
    OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 3);

    /* attribute callbacks receive standard handles */
    int kv = MPI_KEYVAL_INVALID;
    static int attr_value = 5;
    OK(MPI_Comm_create_keyval(my_copy, my_delete, &kv, NULL));
    CHECK(kv != MPI_KEYVAL_INVALID);
    OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, &attr_value));
    MPI_Comm withattr;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &withattr));
    CHECK(copy_calls == 1 && copied_from == MPI_COMM_WORLD);
    int *got_attr = NULL;
    OK(MPI_Comm_get_attr(withattr, kv, &got_attr, &flag));
    CHECK(flag && got_attr == &attr_value);
    OK(MPI_Comm_free(&withattr));
    CHECK(delete_calls == 1);
    OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv));
    CHECK(delete_calls == 2);
    OK(MPI_Comm_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID);

    /* error handling: returned codes keep the standard class */
    MPI_Errhandler eh;
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    OK(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);
    int rc = MPI_Send(&out, 1, MPI_INT, size + 5, 0, dup);
    int cls = -1;
    OK(MPI_Error_class(rc, &cls));
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_RANK);
    char msg[MPI_MAX_ERROR_STRING];
    int mlen = 0;
    OK(MPI_Error_string(rc, msg, &mlen));
    CHECK(mlen > 0 && (int)strlen(msg) == mlen);
    rc = MPI_Send(&out, 1, MPI_DATATYPE_NULL, 0, 0, dup);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_TYPE);

    /* an unsupported function reports MPI_ERR_UNSUPPORTED_OPERATION and names itself */
    /* (it names no object: MPI_COMM_WORLD's handler is raised, as the MPIs raise theirs) */
    MPI_Info fortran = MPI_INFO_NULL;
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Abi_get_fortran_info(&fortran);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION);
    OK(MPI_Error_string(rc, msg, &mlen));
    CHECK(strstr(msg, "MPI_Abi_get_fortran_info") != NULL);

    /* a user error handler receives the standard handle and class */
    MPI_Errhandler mine;
    OK(MPI_Comm_create_errhandler(my_handler, &mine));
    OK(MPI_Comm_set_errhandler(dup, mine));
    rc = MPI_Send(&out, 1, MPI_INT, size + 5, 0, dup);
    CHECK(handler_calls == 1 && handler_comm == dup && handler_class == MPI_ERR_RANK);
    OK(MPI_Errhandler_free(&mine));
    CHECK(mine == MPI_ERRHANDLER_NULL);
    OK(MPI_Comm_free(&dup));

    OK(MPI_Finalize());
    OK(MPI_Finalized(&flag));
    CHECK(flag == 1);
    if (failures) {
        fprintf(stderr, "rank %d: %d checks failed\n", rank, failures);
        return 1;
    }
    return 0;
}
