/* Topologies: dims_create, cart create/get/rank/coords/shift/sub/cartdim,
 * topo_test, graph create/get/dims/neighbors, dist_graph create_adjacent and
 * create (weighted and MPI_UNWEIGHTED), dist_graph_neighbors(_count), and the
 * neighbour collectives allgather(v), alltoall(v,w), blocking and nonblocking,
 * on a periodic ring, a non-periodic line (MPI_PROC_NULL neighbours leave their
 * slots untouched) and a distributed graph. */
#include "check.h"

static int rank, size;

static void test_dims_create(void)
{
    int totals[] = {1, 2, 4, 6, 12, 16, 30};
    for (size_t k = 0; k < sizeof totals / sizeof totals[0]; ++k) {
        int n = totals[k], dims[3] = {0, 0, 0};
        MPI_OK(MPI_Dims_create(n, 3, dims));
        CHECK_EQ(dims[0] * dims[1] * dims[2], n);
        CHECK(dims[0] >= dims[1] && dims[1] >= dims[2] && dims[2] >= 1);
    }
    int dims[2] = {0, 0};
    MPI_OK(MPI_Dims_create(12, 2, dims));
    CHECK(dims[0] == 4 && dims[1] == 3);
    int fixed[3] = {0, 3, 0};
    MPI_OK(MPI_Dims_create(24, 3, fixed));
    CHECK_EQ(fixed[1], 3);
    CHECK_EQ(fixed[0] * fixed[1] * fixed[2], 24);
    CHECK(fixed[0] >= fixed[2]);
}

static void test_cart(void)
{
    int status = -1;
    MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
    CHECK_EQ(status, MPI_UNDEFINED);

    int dims[2] = {0, 0}, periods[2] = {1, 0};
    MPI_OK(MPI_Dims_create(size, 2, dims));
    MPI_Comm cart;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    CHECK(cart != MPI_COMM_NULL);
    MPI_OK(MPI_Topo_test(cart, &status));
    CHECK_EQ(status, MPI_CART);
    int ndims = -1;
    MPI_OK(MPI_Cartdim_get(cart, &ndims));
    CHECK_EQ(ndims, 2);
    int gd[2], gp[2], gc[2], crank = -1;
    MPI_OK(MPI_Cart_get(cart, 2, gd, gp, gc));
    MPI_OK(MPI_Comm_rank(cart, &crank));
    CHECK(gd[0] == dims[0] && gd[1] == dims[1]);
    CHECK(gp[0] == 1 && gp[1] == 0);
    /* Row-major numbering. */
    CHECK_EQ(gc[0] * dims[1] + gc[1], crank);
    for (int r = 0; r < size; ++r) {
        int coords[2] = {-1, -1}, back = -1;
        MPI_OK(MPI_Cart_coords(cart, r, 2, coords));
        CHECK(coords[0] == r / dims[1] && coords[1] == r % dims[1]);
        MPI_OK(MPI_Cart_rank(cart, coords, &back));
        CHECK_EQ(back, r);
    }
    /* Periodic dimension wraps, including out-of-range coordinates. */
    int wrap[2] = {gc[0] + dims[0], gc[1]}, wr = -1;
    MPI_OK(MPI_Cart_rank(cart, wrap, &wr));
    CHECK_EQ(wr, crank);

    int src = -2, dst = -2;
    MPI_OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK_EQ(src, ((gc[0] - 1 + dims[0]) % dims[0]) * dims[1] + gc[1]);
    CHECK_EQ(dst, ((gc[0] + 1) % dims[0]) * dims[1] + gc[1]);
    MPI_OK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
    CHECK_EQ(src, gc[1] == 0 ? MPI_PROC_NULL : crank - 1);
    CHECK_EQ(dst, gc[1] == dims[1] - 1 ? MPI_PROC_NULL : crank + 1);

    /* Sub: keep dimension 1 -> rows. */
    int remain[2] = {0, 1};
    MPI_Comm row;
    MPI_OK(MPI_Cart_sub(cart, remain, &row));
    int rsize = -1, rrank = -1;
    MPI_OK(MPI_Comm_size(row, &rsize));
    MPI_OK(MPI_Comm_rank(row, &rrank));
    CHECK_EQ(rsize, dims[1]);
    CHECK_EQ(rrank, gc[1]);
    MPI_OK(MPI_Cartdim_get(row, &ndims));
    CHECK_EQ(ndims, 1);
    MPI_OK(MPI_Comm_free(&row));

    int newrank = -1;
    MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank));
    CHECK(newrank >= 0 && newrank < size);
    MPI_OK(MPI_Comm_free(&cart));
}

static void test_graph(void)
{
    /* A ring as a graph: node i's neighbours are i-1 and i+1 (deduplicated). */
    int index[64], edges[128], nedges = 0;
    int expect_n[64][2], expect_c[64];
    for (int i = 0; i < size; ++i) {
        int l = (i + size - 1) % size, r = (i + 1) % size;
        expect_c[i] = 0;
        if (size > 1) expect_n[i][expect_c[i]++] = l;
        if (size > 2) expect_n[i][expect_c[i]++] = r;
        for (int k = 0; k < expect_c[i]; ++k) edges[nedges++] = expect_n[i][k];
        index[i] = nedges;
    }
    MPI_Comm g;
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    int status = -1;
    MPI_OK(MPI_Topo_test(g, &status));
    CHECK_EQ(status, MPI_GRAPH);
    int nn = -1, ne = -1;
    MPI_OK(MPI_Graphdims_get(g, &nn, &ne));
    CHECK_EQ(nn, size);
    CHECK_EQ(ne, nedges);
    int gi[64], ge[128];
    MPI_OK(MPI_Graph_get(g, size, nedges > 0 ? nedges : 1, gi, ge));
    for (int i = 0; i < size; ++i) CHECK_EQ(gi[i], index[i]);
    for (int i = 0; i < nedges; ++i) CHECK_EQ(ge[i], edges[i]);
    int count = -1, nb[2] = {-1, -1};
    MPI_OK(MPI_Graph_neighbors_count(g, rank, &count));
    CHECK_EQ(count, expect_c[rank]);
    MPI_OK(MPI_Graph_neighbors(g, rank, 2, nb));
    for (int k = 0; k < expect_c[rank]; ++k) CHECK_EQ(nb[k], expect_n[rank][k]);
    int mapped = -1;
    MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &mapped));
    MPI_OK(MPI_Comm_free(&g));

    /* 24 edges a node, asked for one or four: MPICH 4.0.2 writes all 24 past maxneighbors, into
     * the caller's array natively -- and over anympi into its staging of maxneighbors, which it
     * overran (a fault).  The first maxneighbors are the node's first neighbours. */
    enum { many = 24 };
    int mindex[64], medges[64 * many], me = 0;
    for (int i = 0; i < size; ++i) {
        for (int k = 0; k < many; ++k) medges[me++] = (i + 1 + k) % size;
        mindex[i] = me;
    }
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, size, mindex, medges, 0, &g));
    MPI_OK(MPI_Graph_neighbors_count(g, rank, &count));
    CHECK_EQ(count, many);
    for (int max = 1; max <= 4; max += 3) {
        int got[many + 8];
        for (int k = 0; k < many + 8; ++k) got[k] = -77;
        MPI_OK(MPI_Graph_neighbors(g, rank, max, got));
        for (int k = 0; k < max; ++k) CHECK_EQ(got[k], (rank + 1 + k) % size);
    }
    CHECK(mapped >= 0 && mapped < size);
    MPI_OK(MPI_Comm_free(&g));
}

static void test_dist_graph(void)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    /* Adjacent, weighted: I hear from left (weight 10+left), talk to right. */
    int srcs[1] = {left}, sw[1] = {10 + left}, dsts[1] = {right}, dw[1] = {20 + rank};
    MPI_Comm dg;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, sw, 1, dsts, dw,
                                          MPI_INFO_NULL, 0, &dg));
    int status = -1;
    MPI_OK(MPI_Topo_test(dg, &status));
    CHECK_EQ(status, MPI_DIST_GRAPH);
    int indeg = -1, outdeg = -1, weighted = -1;
    MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
    CHECK_EQ(indeg, 1);
    CHECK_EQ(outdeg, 1);
    CHECK_EQ(weighted, 1);
    int gs[1] = {-1}, gsw[1] = {-1}, gd[1] = {-1}, gdw[1] = {-1};
    MPI_OK(MPI_Dist_graph_neighbors(dg, 1, gs, gsw, 1, gd, gdw));
    CHECK_EQ(gs[0], left);
    CHECK_EQ(gsw[0], 10 + left);
    CHECK_EQ(gd[0], right);
    CHECK_EQ(gdw[0], 20 + rank);

    /* Neighbour alltoall over it: one value from my left. */
    int out = rank * 3 + 1, in = -1;
    MPI_OK(MPI_Neighbor_alltoall(&out, 1, MPI_INT, &in, 1, MPI_INT, dg));
    CHECK_EQ(in, left * 3 + 1);
    MPI_OK(MPI_Comm_free(&dg));

    /* Unweighted. */
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
    CHECK_EQ(weighted, 0);
    CHECK(indeg == 1 && outdeg == 1);
    MPI_OK(MPI_Comm_free(&dg));

    /* General create: every rank declares the edge rank -> right (weight rank). */
    int src1[1] = {rank}, deg[1] = {1}, dst1[1] = {right}, w1[1] = {rank};
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, src1, deg, dst1, w1, MPI_INFO_NULL, 0, &dg));
    MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
    CHECK_EQ(indeg, 1);
    CHECK_EQ(outdeg, 1);
    CHECK_EQ(weighted, 1);
    MPI_OK(MPI_Dist_graph_neighbors(dg, 1, gs, gsw, 1, gd, gdw));
    CHECK_EQ(gs[0], left);
    CHECK_EQ(gsw[0], left);
    CHECK_EQ(gd[0], right);
    CHECK_EQ(gdw[0], rank);
    MPI_OK(MPI_Comm_free(&dg));

    /* One process gives every edge, again and again: Open MPI 4.1.4's treematch component hung
     * in it now and then once a few communicators exist (natively too), anympi's own among them. */
    for (int round = 0; round < 20; ++round) {
        int esrc[64], edeg[64], edst[64], ew[64], en = 0;
        if (rank == 0)
            for (int i = 0; i < size; ++i) esrc[en] = i, edeg[en] = 1, edst[en] = (i + 1) % size, ew[en++] = 100 + i;
        MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, en, esrc, edeg, edst, ew, MPI_INFO_NULL, 0, &dg));
        MPI_OK(MPI_Dist_graph_neighbors(dg, 1, gs, gsw, 1, gd, gdw));
        CHECK_EQ(gs[0], left);
        CHECK_EQ(gsw[0], 100 + left);
        CHECK_EQ(gd[0], right);
        MPI_OK(MPI_Comm_free(&dg));
    }

    /* Empty graph with MPI_WEIGHTS_EMPTY. */
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, srcs, MPI_WEIGHTS_EMPTY, 0, dsts,
                                          MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg));
    MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
    CHECK(indeg == 0 && outdeg == 0);
    MPI_OK(MPI_Comm_free(&dg));
}

/* Neighbour collectives on a 1-D cart: neighbours are [source, dest] of shift 1. */
static void test_neighbor_collectives(int periodic, int nb)
{
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {periodic};
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int nbr[2];
    MPI_OK(MPI_Cart_shift(ring, 0, 1, &nbr[0], &nbr[1]));
    if (periodic) {
        CHECK_EQ(nbr[0], (rank + size - 1) % size);
        CHECK_EQ(nbr[1], (rank + 1) % size);
    } else {
        CHECK_EQ(nbr[0], rank == 0 ? MPI_PROC_NULL : rank - 1);
        CHECK_EQ(nbr[1], rank == size - 1 ? MPI_PROC_NULL : rank + 1);
    }

    /* allgather: two values from each neighbour. */
    int out[2] = {rank * 10, rank * 10 + 1}, in[4] = {-1, -1, -1, -1};
    COLL(nb, MPI_Neighbor_allgather(out, 2, MPI_INT, in, 2, MPI_INT, ring),
          MPI_Ineighbor_allgather(out, 2, MPI_INT, in, 2, MPI_INT, ring, req));
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j)
            CHECK_EQ(in[2 * k + j], nbr[k] == MPI_PROC_NULL ? -1 : nbr[k] * 10 + j);

    /* allgatherv: 1 from the left neighbour at offset 3, 1 from the right at 0 (a collective's
     * receive signature must equal the send's, so the counts are the sender's). */
    int counts[2] = {1, 1}, displs[2] = {3, 0}, vin[4] = {-1, -1, -1, -1};
    COLL(nb, MPI_Neighbor_allgatherv(out, 1, MPI_INT, vin, counts, displs, MPI_INT, ring),
          MPI_Ineighbor_allgatherv(out, 1, MPI_INT, vin, counts, displs, MPI_INT, ring, req));
    CHECK_EQ(vin[3], nbr[0] == MPI_PROC_NULL ? -1 : nbr[0] * 10);
    CHECK_EQ(vin[0], nbr[1] == MPI_PROC_NULL ? -1 : nbr[1] * 10);

    /* With 1 or 2 processes a periodic ring has the same process as both
     * neighbours, and which message lands in which slot is ambiguous in the
     * standard; the personalised exchanges run only where it is not. */
    if (periodic && size < 3) {
        MPI_OK(MPI_Comm_free(&ring));
        return;
    }

    /* alltoall: block k goes to neighbour k; from neighbour k I get its block for me. */
    int aout[2] = {rank * 100 + 0, rank * 100 + 1}, ain[2] = {-1, -1};
    COLL(nb, MPI_Neighbor_alltoall(aout, 1, MPI_INT, ain, 1, MPI_INT, ring),
          MPI_Ineighbor_alltoall(aout, 1, MPI_INT, ain, 1, MPI_INT, ring, req));
    /* My left neighbour sent me its block 1 (to its right), my right its block 0. */
    CHECK_EQ(ain[0], nbr[0] == MPI_PROC_NULL ? -1 : nbr[0] * 100 + 1);
    CHECK_EQ(ain[1], nbr[1] == MPI_PROC_NULL ? -1 : nbr[1] * 100 + 0);

    /* alltoallv with per-neighbour counts and displacements. */
    int vout[3] = {rank * 7, rank * 7 + 1, rank * 7 + 2}, vin2[3] = {-1, -1, -1};
    int sc[2] = {1, 2}, sd[2] = {0, 1}, rc[2] = {2, 1}, rd[2] = {0, 2};
    COLL(nb, MPI_Neighbor_alltoallv(vout, sc, sd, MPI_INT, vin2, rc, rd, MPI_INT, ring),
          MPI_Ineighbor_alltoallv(vout, sc, sd, MPI_INT, vin2, rc, rd, MPI_INT, ring, req));
    /* From the left: its 2 values to its right (vout[1..2]); from the right: its vout[0]. */
    CHECK_EQ(vin2[0], nbr[0] == MPI_PROC_NULL ? -1 : nbr[0] * 7 + 1);
    CHECK_EQ(vin2[1], nbr[0] == MPI_PROC_NULL ? -1 : nbr[0] * 7 + 2);
    CHECK_EQ(vin2[2], nbr[1] == MPI_PROC_NULL ? -1 : nbr[1] * 7);

    /* alltoallw: byte displacements and per-neighbour types. */
    double wout[2] = {rank + 0.5, rank + 0.75}, win[2] = {-1, -1};
    int wc[2] = {1, 1};
    MPI_Aint wd[2] = {0, sizeof(double)};
    MPI_Datatype wt[2] = {MPI_DOUBLE, MPI_DOUBLE};
    COLL(nb, MPI_Neighbor_alltoallw(wout, wc, wd, wt, win, wc, wd, wt, ring),
          MPI_Ineighbor_alltoallw(wout, wc, wd, wt, win, wc, wd, wt, ring, req));
    CHECK_NEAR(win[0], nbr[0] == MPI_PROC_NULL ? -1 : nbr[0] + 0.75, 0);
    CHECK_NEAR(win[1], nbr[1] == MPI_PROC_NULL ? -1 : nbr[1] + 0.5, 0);

    MPI_OK(MPI_Comm_free(&ring));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "topo");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_FATAL(size <= 64);
    test_dims_create();
    test_cart();
    test_graph();
    test_dist_graph();
    for (int nb = 0; nb < 2; ++nb) {
        test_neighbor_collectives(1, nb);
        test_neighbor_collectives(0, nb);
    }
    return check_finish();
}
