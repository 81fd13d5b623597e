/* Groups: size/rank, incl/excl, range_incl/range_excl, union, intersection,
 * difference, translate_ranks (incl. MPI_UNDEFINED and MPI_PROC_NULL), compare,
 * MPI_GROUP_EMPTY, free.  Every result group is checked member by member against
 * a list of world ranks computed here. */
#include "check.h"

#define MAXP 64
static int rank, size;
static MPI_Group world;

/* The group must hold exactly these world ranks, in this order. */
static void expect_members(MPI_Group g, const int *members, int n, int line)
{
    int gsize = -1, grank = -2;
    MPI_OK(MPI_Group_size(g, &gsize));
    CHECK_MSG(gsize == n, "line %d: group size %d, expected %d", line, gsize, n);
    if (gsize != n) return;
    int idx[MAXP], out[MAXP];
    for (int i = 0; i < n; ++i) { idx[i] = i; out[i] = -7; }
    if (n > 0) MPI_OK(MPI_Group_translate_ranks(g, n, idx, world, out));
    int expected_rank = MPI_UNDEFINED;
    for (int i = 0; i < n; ++i) {
        CHECK_MSG(out[i] == members[i], "line %d: member %d is world rank %d, expected %d",
                  line, i, out[i], members[i]);
        if (members[i] == rank) expected_rank = i;
    }
    MPI_OK(MPI_Group_rank(g, &grank));
    CHECK_MSG(grank == expected_rank, "line %d: my rank in group %d, expected %d", line,
              grank, expected_rank);
}

/* What MPI_Group_compare must say about two member lists. */
static int expected_compare(const int *a, int na, const int *b, int nb)
{
    if (na != nb) return MPI_UNEQUAL;
    int same_order = 1;
    for (int i = 0; i < na; ++i)
        if (a[i] != b[i]) same_order = 0;
    if (same_order) return MPI_IDENT;
    for (int i = 0; i < na; ++i) {
        int found = 0;
        for (int j = 0; j < nb; ++j)
            if (a[i] == b[j]) found = 1;
        if (!found) return MPI_UNEQUAL;
    }
    return MPI_SIMILAR;
}

static int contains(const int *a, int n, int x)
{
    for (int i = 0; i < n; ++i)
        if (a[i] == x) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "group");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_FATAL(size <= MAXP);
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));

    int all[MAXP];
    for (int i = 0; i < size; ++i) all[i] = i;
    expect_members(world, all, size, __LINE__);

    /* Empty group. */
    int n = -1, r = -1;
    MPI_OK(MPI_Group_size(MPI_GROUP_EMPTY, &n));
    CHECK_EQ(n, 0);
    MPI_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &r));
    CHECK_EQ(r, MPI_UNDEFINED);

    /* Evens in reverse order, odds in order. */
    int evens[MAXP], odds[MAXP], ne = 0, no = 0;
    for (int i = size - 1; i >= 0; --i)
        if (i % 2 == 0) evens[ne++] = i;
    for (int i = 0; i < size; ++i)
        if (i % 2 == 1) odds[no++] = i;
    MPI_Group ge, go;
    MPI_OK(MPI_Group_incl(world, ne, evens, &ge));
    MPI_OK(MPI_Group_incl(world, no, odds, &go));
    expect_members(ge, evens, ne, __LINE__);
    expect_members(go, odds, no, __LINE__);

    /* Union: members of the first in order, then the new ones of the second. */
    int u[MAXP], nu = 0;
    for (int i = 0; i < ne; ++i) u[nu++] = evens[i];
    for (int i = 0; i < no; ++i)
        if (!contains(u, nu, odds[i])) u[nu++] = odds[i];
    MPI_Group gu;
    MPI_OK(MPI_Group_union(ge, go, &gu));
    expect_members(gu, u, nu, __LINE__);
    int result = -1;
    MPI_OK(MPI_Group_compare(gu, world, &result));
    CHECK_EQ(result, expected_compare(u, nu, all, size));
    CHECK_EQ(result, size <= 2 ? MPI_IDENT : MPI_SIMILAR);

    /* Intersection of the world with the evens keeps the world's order. */
    int in[MAXP], nin = 0;
    for (int i = 0; i < size; ++i)
        if (contains(evens, ne, i)) in[nin++] = i;
    MPI_Group gi;
    MPI_OK(MPI_Group_intersection(world, ge, &gi));
    expect_members(gi, in, nin, __LINE__);
    MPI_OK(MPI_Group_compare(gi, ge, &result));
    CHECK_EQ(result, expected_compare(in, nin, evens, ne));

    /* Intersection of evens and odds is empty. */
    MPI_Group gnone;
    MPI_OK(MPI_Group_intersection(ge, go, &gnone));
    expect_members(gnone, NULL, 0, __LINE__);
    MPI_OK(MPI_Group_compare(gnone, MPI_GROUP_EMPTY, &result));
    CHECK_EQ(result, MPI_IDENT);

    /* Difference world \ odds = evens in world order. */
    MPI_Group gd;
    MPI_OK(MPI_Group_difference(world, go, &gd));
    expect_members(gd, in, nin, __LINE__);

    /* Excl: drop rank 0. */
    int zero = 0, rest[MAXP], nrest = 0;
    for (int i = 1; i < size; ++i) rest[nrest++] = i;
    MPI_Group gx;
    MPI_OK(MPI_Group_excl(world, 1, &zero, &gx));
    expect_members(gx, rest, nrest, __LINE__);
    MPI_OK(MPI_Group_compare(gx, world, &result));
    CHECK_EQ(result, MPI_UNEQUAL);

    /* Range incl: {size-1 down to 0 step -2} and {0 .. size-1 step 3}. */
    int ranges[2][3] = {{size - 1, 0, -2}, {0, size - 1, 3}};
    /* The ranges must be disjoint for range_incl: use the second only when it is. */
    int disjoint = 1;
    for (int i = 0; i <= size - 1; i += 3)
        for (int j = size - 1; j >= 0; j -= 2)
            if (i == j) disjoint = 0;
    MPI_Group gr;
    if (disjoint) {
        MPI_OK(MPI_Group_range_incl(world, 2, ranges, &gr));
        int full[MAXP], nfull = 0;
        for (int i = size - 1; i >= 0; i -= 2) full[nfull++] = i;
        for (int i = 0; i <= size - 1; i += 3) full[nfull++] = i;
        expect_members(gr, full, nfull, __LINE__);
    } else {
        MPI_OK(MPI_Group_range_incl(world, 1, ranges, &gr));
        int half[MAXP], nhalf = 0;
        for (int i = size - 1; i >= 0; i -= 2) half[nhalf++] = i;
        expect_members(gr, half, nhalf, __LINE__);
    }
    MPI_OK(MPI_Group_free(&gr));

    /* Range excl: drop every second rank starting at 1. */
    MPI_Group gre;
    if (size > 1) {
        int ex[1][3] = {{1, size - 1, 2}};
        MPI_OK(MPI_Group_range_excl(world, 1, ex, &gre));
        int keep[MAXP], nk = 0;
        for (int i = 0; i < size; i += 2) keep[nk++] = i;
        expect_members(gre, keep, nk, __LINE__);
        MPI_OK(MPI_Group_free(&gre));
    }

    /* Translate: non-members give MPI_UNDEFINED, MPI_PROC_NULL stays. */
    int q[MAXP + 1], out[MAXP + 1];
    for (int i = 0; i < size; ++i) q[i] = i;
    q[size] = MPI_PROC_NULL;
    MPI_OK(MPI_Group_translate_ranks(world, size, q, go, out));
    for (int i = 0; i < size; ++i)
        CHECK_MSG(out[i] == (i % 2 == 1 ? i / 2 : MPI_UNDEFINED), "world %d -> %d", i, out[i]);
    int pn = MPI_PROC_NULL, pout = -7;
    MPI_OK(MPI_Group_translate_ranks(world, 1, &pn, world, &pout));
    CHECK_EQ(pout, MPI_PROC_NULL);
    /* Evens are reversed: world rank evens[k] is rank k. */
    MPI_OK(MPI_Group_translate_ranks(world, size, q, ge, out));
    for (int i = 0; i < size; ++i) {
        int expect = MPI_UNDEFINED;
        for (int k = 0; k < ne; ++k)
            if (evens[k] == i) expect = k;
        CHECK_EQ(out[i], expect);
    }

    /* Compare: dup'ed group is IDENT, evens vs world UNEQUAL unless 1 rank. */
    MPI_Group same;
    MPI_OK(MPI_Group_incl(world, size, all, &same));
    MPI_OK(MPI_Group_compare(same, world, &result));
    CHECK_EQ(result, MPI_IDENT);
    MPI_OK(MPI_Group_compare(ge, world, &result));
    CHECK_EQ(result, expected_compare(evens, ne, all, size));

    /* The group of a communicator built from a group compares IDENT. */
    MPI_Comm c;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, ge, &c));
    if (rank % 2 == 0) {
        MPI_Group cg;
        MPI_OK(MPI_Comm_group(c, &cg));
        MPI_OK(MPI_Group_compare(cg, ge, &result));
        CHECK_EQ(result, MPI_IDENT);
        MPI_OK(MPI_Group_free(&cg));
        MPI_OK(MPI_Comm_free(&c));
    } else {
        CHECK(c == MPI_COMM_NULL);
    }

    MPI_Group *gs[] = {&same, &ge, &go, &gu, &gi, &gnone, &gd, &gx, &world};
    for (size_t i = 0; i < sizeof gs / sizeof gs[0]; ++i) {
        MPI_OK(MPI_Group_free(gs[i]));
        CHECK(*gs[i] == MPI_GROUP_NULL);
    }
    return check_finish();
}
