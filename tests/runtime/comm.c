/* Communicator management: dup, split, split_type, create, create_group,
 * compare (every result), idup, intercomm create/merge, names, info, free. */
#include "check.h"

static int rank, size;

static void test_compare_and_dup(void)
{
    int result = -1;
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
    CHECK_EQ(result, MPI_IDENT);

    MPI_Comm dup = MPI_COMM_NULL;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(dup != MPI_COMM_NULL);
    CHECK(dup != MPI_COMM_WORLD);
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
    CHECK_EQ(result, MPI_CONGRUENT);
    int r = -1, s = -1;
    MPI_OK(MPI_Comm_rank(dup, &r));
    MPI_OK(MPI_Comm_size(dup, &s));
    CHECK_EQ(r, rank);
    CHECK_EQ(s, size);

    /* The dup is a separate context: a message on it does not match on WORLD. */
    int token = rank * 7 + 1, got = -1, flag = 1;
    MPI_Request req;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, rank, 5, dup, &req));
    MPI_OK(MPI_Send(&token, 1, MPI_INT, rank, 5, dup));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_EQ(got, token);
    MPI_OK(MPI_Iprobe(rank, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK_EQ(flag, 0);

    /* World against self: same group only at size 1. */
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result));
    CHECK_EQ(result, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);

    MPI_Comm dup2 = MPI_COMM_NULL;
    MPI_OK(MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dup2));
    MPI_OK(MPI_Comm_compare(dup2, dup, &result));
    CHECK_EQ(result, MPI_CONGRUENT);

    MPI_OK(MPI_Comm_free(&dup2));
    CHECK(dup2 == MPI_COMM_NULL);
    MPI_OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL);
}

static void test_split(void)
{
    /* Colour by parity, key reverses the order within each colour. */
    int color = rank % 2;
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, size - rank, &sub));
    CHECK(sub != MPI_COMM_NULL);
    int members = 0, higher = 0;
    for (int r = 0; r < size; ++r)
        if (r % 2 == color) {
            ++members;
            if (r > rank) ++higher;
        }
    int r = -1, s = -1;
    MPI_OK(MPI_Comm_size(sub, &s));
    MPI_OK(MPI_Comm_rank(sub, &r));
    CHECK_EQ(s, members);
    CHECK_EQ(r, higher);
    /* The members of the new communicator are the right world ranks. */
    int world_of_me = -1;
    int *world_ranks = malloc(sizeof(int) * (size_t)members);
    MPI_OK(MPI_Allgather(&rank, 1, MPI_INT, world_ranks, 1, MPI_INT, sub));
    for (int i = 0; i < members; ++i) {
        CHECK_EQ(world_ranks[i] % 2, color);
        if (i == r) world_of_me = world_ranks[i];
        if (i > 0) CHECK(world_ranks[i] < world_ranks[i - 1]);
    }
    CHECK_EQ(world_of_me, rank);
    free(world_ranks);

    /* Same colour, key = rank: congruent; reversed keys: similar (unless 1 rank). */
    MPI_Comm all = MPI_COMM_NULL, rev = MPI_COMM_NULL;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 3, rank, &all));
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 3, -rank, &rev));
    int result = -1;
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, all, &result));
    CHECK_EQ(result, MPI_CONGRUENT);
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, rev, &result));
    CHECK_EQ(result, size == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
    MPI_OK(MPI_Comm_rank(rev, &r));
    CHECK_EQ(r, size - 1 - rank);
    MPI_OK(MPI_Comm_compare(sub, MPI_COMM_WORLD, &result));
    CHECK_EQ(result, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);

    /* MPI_UNDEFINED colour gives MPI_COMM_NULL. */
    MPI_Comm none = MPI_COMM_WORLD;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none));
    if (rank == 0)
        CHECK(none == MPI_COMM_NULL);
    else {
        CHECK(none != MPI_COMM_NULL);
        MPI_OK(MPI_Comm_size(none, &s));
        CHECK_EQ(s, size - 1);
        MPI_OK(MPI_Comm_free(&none));
    }
    MPI_OK(MPI_Comm_free(&sub));
    MPI_OK(MPI_Comm_free(&all));
    MPI_OK(MPI_Comm_free(&rev));
}

static void test_split_type(void)
{
    /* Shared-memory split: my communicator holds exactly the ranks whose
     * processor name is mine. */
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len = 0;
    MPI_OK(MPI_Get_processor_name(name, &len));
    char *names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_OK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                         MPI_CHAR, MPI_COMM_WORLD));
    int expected = 0;
    for (int r = 0; r < size; ++r)
        if (strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name) == 0) ++expected;
    free(names);

    MPI_Comm node = MPI_COMM_NULL;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    CHECK(node != MPI_COMM_NULL);
    int s = -1;
    MPI_OK(MPI_Comm_size(node, &s));
    CHECK_EQ(s, expected);
    MPI_OK(MPI_Comm_free(&node));

    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &node));
    CHECK(node == MPI_COMM_NULL);
}

static void test_create(void)
{
    MPI_Group world_group, evens;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    int n_even = (size + 1) / 2;
    int ranks[64];
    for (int i = 0; i < n_even; ++i) ranks[i] = 2 * i;
    MPI_OK(MPI_Group_incl(world_group, n_even, ranks, &evens));

    MPI_Comm c = MPI_COMM_WORLD;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
    if (rank % 2 == 0) {
        CHECK(c != MPI_COMM_NULL);
        int r = -1, s = -1;
        MPI_OK(MPI_Comm_rank(c, &r));
        MPI_OK(MPI_Comm_size(c, &s));
        CHECK_EQ(r, rank / 2);
        CHECK_EQ(s, n_even);
        MPI_Group g;
        int result = -1;
        MPI_OK(MPI_Comm_group(c, &g));
        MPI_OK(MPI_Group_compare(g, evens, &result));
        CHECK_EQ(result, MPI_IDENT);
        MPI_OK(MPI_Group_free(&g));
        MPI_OK(MPI_Comm_free(&c));
    } else {
        CHECK(c == MPI_COMM_NULL);
    }

    /* create_group: only the members call it. */
    if (rank % 2 == 0) {
        MPI_Comm cg = MPI_COMM_NULL;
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 17, &cg));
        CHECK(cg != MPI_COMM_NULL);
        int r = -1, sum = 0;
        MPI_OK(MPI_Comm_rank(cg, &r));
        CHECK_EQ(r, rank / 2);
        MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, cg));
        CHECK_EQ(sum, n_even * (n_even - 1)); /* 0 + 2 + 4 + ... */
        MPI_OK(MPI_Comm_free(&cg));
    }
    MPI_OK(MPI_Group_free(&evens));
    MPI_OK(MPI_Group_free(&world_group));
}

static void test_idup(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL);
    int result = -1;
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, c, &result));
    CHECK_EQ(result, MPI_CONGRUENT);
    int sum = 0;
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_EQ(sum, size * (size - 1) / 2);
    MPI_OK(MPI_Comm_free(&c));
}

static void test_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK_STREQ(name, "MPI_COMM_WORLD");
    CHECK_EQ(len, (int)strlen("MPI_COMM_WORLD"));
    MPI_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK_STREQ(name, "MPI_COMM_SELF");

    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_name(c, "anympi test comm"));
    MPI_OK(MPI_Comm_get_name(c, name, &len));
    CHECK_STREQ(name, "anympi test comm");
    CHECK_EQ(len, (int)strlen("anympi test comm"));
    /* the longest name the header allows comes back whole (the ABI allows 127 characters,
     * Open MPI 4.1 keeps 63), also for a datatype; a shorter one set after it replaces it */
    char longest[MPI_MAX_OBJECT_NAME];
    for (int i = 0; i < MPI_MAX_OBJECT_NAME - 1; ++i) longest[i] = (char)('a' + i % 26);
    longest[MPI_MAX_OBJECT_NAME - 1] = '\0';
    MPI_OK(MPI_Comm_set_name(c, longest));
    MPI_OK(MPI_Comm_get_name(c, name, &len));
    CHECK_STREQ(name, longest);
    CHECK_EQ(len, MPI_MAX_OBJECT_NAME - 1);
    MPI_OK(MPI_Comm_set_name(c, "short again"));
    MPI_OK(MPI_Comm_get_name(c, name, &len));
    CHECK_STREQ(name, "short again");
    MPI_Datatype t;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_set_name(t, longest));
    MPI_OK(MPI_Type_get_name(t, name, &len));
    CHECK_STREQ(name, longest);
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Comm_free(&c));
}

static void test_info(void)
{
    MPI_Info info, got = MPI_INFO_NULL;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "anympi_hint", "yes"));
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
    MPI_OK(MPI_Comm_get_info(c, &got));
    CHECK(got != MPI_INFO_NULL);
    int nkeys = -1;
    MPI_OK(MPI_Info_get_nkeys(got, &nkeys));
    CHECK(nkeys >= 0);
    MPI_OK(MPI_Info_free(&got));
    MPI_OK(MPI_Comm_set_info(c, info));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Comm_free(&c));
}

static void test_intercomm(void)
{
    if (size < 2) {
        int flag = 1;
        MPI_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
        CHECK_EQ(flag, 0);
        return;
    }
    int low_size = size / 2;
    int color = rank < low_size ? 0 : 1;
    MPI_Comm local;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
    int remote_leader = color == 0 ? low_size : 0;
    MPI_Comm inter = MPI_COMM_NULL;
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 42, &inter));
    CHECK(inter != MPI_COMM_NULL);

    int flag = 0, rsize = -1, lsize = -1, lrank = -1;
    MPI_OK(MPI_Comm_test_inter(inter, &flag));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Comm_remote_size(inter, &rsize));
    MPI_OK(MPI_Comm_size(inter, &lsize));
    MPI_OK(MPI_Comm_rank(inter, &lrank));
    int my_group = color == 0 ? low_size : size - low_size;
    CHECK_EQ(lsize, my_group);
    CHECK_EQ(rsize, size - my_group);
    CHECK_EQ(lrank, color == 0 ? rank : rank - low_size);

    MPI_Group rgroup;
    int gsize = -1;
    MPI_OK(MPI_Comm_remote_group(inter, &rgroup));
    MPI_OK(MPI_Group_size(rgroup, &gsize));
    CHECK_EQ(gsize, rsize);
    MPI_OK(MPI_Group_free(&rgroup));

    /* Point-to-point across: local rank i talks to remote rank i, for every i
     * both groups have. */
    int pairs = low_size < size - low_size ? low_size : size - low_size;
    if (lrank < pairs) {
        int out = rank, in = -1;
        int peer_world = color == 0 ? rank + low_size : rank - low_size;
        MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, lrank, 9, &in, 1, MPI_INT, lrank, 9, inter,
                            MPI_STATUS_IGNORE));
        CHECK_EQ(in, peer_world);
    }

    /* Merge with the high group last. */
    MPI_Comm merged = MPI_COMM_NULL;
    MPI_OK(MPI_Intercomm_merge(inter, color, &merged));
    int mrank = -1, msize = -1;
    MPI_OK(MPI_Comm_rank(merged, &mrank));
    MPI_OK(MPI_Comm_size(merged, &msize));
    CHECK_EQ(msize, size);
    CHECK_EQ(mrank, rank);
    int result = -1;
    MPI_OK(MPI_Comm_compare(merged, MPI_COMM_WORLD, &result));
    CHECK_EQ(result, MPI_CONGRUENT);
    MPI_OK(MPI_Comm_free(&merged));

    /* Merge with the high group first: ranks rotate. */
    MPI_OK(MPI_Intercomm_merge(inter, 1 - color, &merged));
    MPI_OK(MPI_Comm_rank(merged, &mrank));
    CHECK_EQ(mrank, color == 1 ? rank - low_size : rank + (size - low_size));
    MPI_OK(MPI_Comm_compare(merged, MPI_COMM_WORLD, &result));
    CHECK_EQ(result, MPI_SIMILAR);
    MPI_OK(MPI_Comm_free(&merged));

    /* Collective over the intercommunicator: rooted bcast from low rank 0. */
    int value = color == 0 && lrank == 0 ? 4242 : -1;
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_OK(MPI_Bcast(&value, 1, MPI_INT, root, inter));
    if (color == 1) CHECK_EQ(value, 4242);
    else if (lrank == 0) CHECK_EQ(value, 4242);
    else CHECK_EQ(value, -1);

    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "comm");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_compare_and_dup();
    test_split();
    test_split_type();
    test_create();
    test_idup();
    test_names();
    test_info();
    test_intercomm();
    return check_finish();
}
