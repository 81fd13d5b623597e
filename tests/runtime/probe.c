/* Probing and matched receives: Probe/Iprobe with specific and wildcard
 * envelopes, Mprobe/Improbe + Mrecv/Imrecv, MPI_MESSAGE_NO_PROC for
 * MPI_PROC_NULL, MPI_ANY_SOURCE collection at a root. */
#include "check.h"

static int rank, size, left, right;

/* Rank r sends r+1 ints tagged 100+r to its right neighbour. */
static void send_to_right(int base_tag, MPI_Request *req, int *buf)
{
    for (int i = 0; i <= rank; ++i) buf[i] = rank * 1000 + i;
    MPI_OK(MPI_Isend(buf, rank + 1, MPI_INT, right, base_tag + rank, MPI_COMM_WORLD, req));
}

static void expect_from_left(const MPI_Status *st, const int *in, int base_tag, int line)
{
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    CHECK_MSG(st->MPI_SOURCE == left && st->MPI_TAG == base_tag + left && count == left + 1,
              "line %d: source %d tag %d count %d", line, st->MPI_SOURCE, st->MPI_TAG, count);
    if (in)
        for (int i = 0; i <= left; ++i)
            CHECK_MSG(in[i] == left * 1000 + i, "line %d: in[%d] = %d", line, i, in[i]);
}

static void test_probe(void)
{
    int out[64], in[64];
    MPI_Request req;
    MPI_Status st;

    /* Wildcard Probe, then receive exactly what it announced. */
    send_to_right(100, &req, out);
    MPI_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    expect_from_left(&st, NULL, 100, __LINE__);
    int count = 0;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    MPI_OK(MPI_Recv(in, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
    expect_from_left(&st, in, 100, __LINE__);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Specific Probe. */
    send_to_right(200, &req, out);
    MPI_OK(MPI_Probe(left, 200 + left, MPI_COMM_WORLD, &st));
    expect_from_left(&st, NULL, 200, __LINE__);
    MPI_OK(MPI_Recv(in, 64, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    expect_from_left(&st, in, 200, __LINE__);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));

    /* Iprobe: nothing is ever sent on tag 7777. */
    int flag = -1;
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 7777, MPI_COMM_WORLD, &flag, &st));
    CHECK_EQ(flag, 0);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    send_to_right(300, &req, out);
    flag = 0;
    SPIN(MPI_Iprobe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), flag);
    expect_from_left(&st, NULL, 300, __LINE__);
    MPI_OK(MPI_Recv(in, 64, MPI_INT, MPI_ANY_SOURCE, 300 + left, MPI_COMM_WORLD, &st));
    expect_from_left(&st, in, 300, __LINE__);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));

    /* Probe of MPI_PROC_NULL returns at once with the null status. */
    MPI_OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    flag = 0;
    MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
    CHECK_EQ(flag, 1);
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_mprobe(void)
{
    int out[64], in[64];
    MPI_Request req, rreq;
    MPI_Status st;
    MPI_Message msg = MPI_MESSAGE_NULL;

    send_to_right(400, &req, out);
    MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg != MPI_MESSAGE_NULL);
    CHECK(msg != MPI_MESSAGE_NO_PROC);
    expect_from_left(&st, NULL, 400, __LINE__);
    /* A matched message is gone from the queue. */
    int flag = -1;
    MPI_OK(MPI_Iprobe(left, 400 + left, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK_EQ(flag, 0);
    MPI_OK(MPI_Mrecv(in, 64, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL);
    expect_from_left(&st, in, 400, __LINE__);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    send_to_right(500, &req, out);
    flag = 0;
    SPIN(MPI_Improbe(left, 500 + left, MPI_COMM_WORLD, &flag, &msg, &st), flag);
    expect_from_left(&st, NULL, 500, __LINE__);
    memset(in, 0, sizeof in);
    MPI_OK(MPI_Imrecv(in, 64, MPI_INT, &msg, &rreq));
    CHECK(msg == MPI_MESSAGE_NULL);
    MPI_OK(MPI_Wait(&rreq, &st));
    expect_from_left(&st, in, 500, __LINE__);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));

    /* Improbe with nothing pending. */
    flag = -1;
    MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, 7778, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK_EQ(flag, 0);

    /* MPI_PROC_NULL: MPI_MESSAGE_NO_PROC, and receiving it gives the null status. */
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC);
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    in[0] = 31;
    MPI_OK(MPI_Mrecv(in, 1, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL);
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    CHECK_EQ(in[0], 31);
    flag = 0;
    MPI_OK(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK_EQ(flag, 1);
    CHECK(msg == MPI_MESSAGE_NO_PROC);
    MPI_OK(MPI_Imrecv(in, 1, MPI_INT, &msg, &rreq));
    MPI_OK(MPI_Wait(&rreq, &st));
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, 0);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_any_source_collection(void)
{
    /* Every rank sends its rank (tag 600 + rank) to rank 0, which takes them with
     * MPI_ANY_SOURCE / MPI_ANY_TAG and must see each sender exactly once. */
    MPI_Request req;
    int mine = rank * 3;
    MPI_OK(MPI_Isend(&mine, 1, MPI_INT, 0, 600 + rank, MPI_COMM_WORLD, &req));
    if (rank == 0) {
        int seen[64] = {0};
        for (int i = 0; i < size; ++i) {
            int v = -1;
            MPI_Status st;
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < size && st.MPI_SOURCE < 64);
            if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < 64) {
                ++seen[st.MPI_SOURCE];
                CHECK_EQ(st.MPI_TAG, 600 + st.MPI_SOURCE);
                CHECK_EQ(v, st.MPI_SOURCE * 3);
            }
        }
        for (int i = 0; i < size && i < 64; ++i) CHECK_EQ(seen[i], 1);
    }
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "probe");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    test_probe();
    test_mprobe();
    test_any_source_collection();
    return check_finish();
}
