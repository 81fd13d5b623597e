/* MPI_T events and sources (MPI-4.0): where the MPI has none (Open MPI 4.1), anympi answers
 * that there are zero of them, as an MPI without events does, never "unsupported": the counts
 * are 0 and every index and name is invalid, and only while MPI_T is initialized.  Every
 * expectation holds natively on MPICH, whatever events it has. */
#include "check.h"

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "tool_events");
#if MPI_VERSION >= 4
    int n = -1, provided = 0;
    /* before MPI_T_init_thread: not initialized */
    CHECK_EQ(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_EQ(MPI_T_source_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));

    int events = -1, sources = -1, categories = -1;
    MPI_OK(MPI_T_event_get_num(&events));
    MPI_OK(MPI_T_source_get_num(&sources));
    MPI_OK(MPI_T_category_get_num(&categories));
    CHECK(events >= 0);
    CHECK(sources >= 0);
    /* one past the last: invalid */
    MPI_Count stamp = 0;
    CHECK_EQ(MPI_T_source_get_timestamp(sources, &stamp), MPI_T_ERR_INVALID_INDEX);
    char name[256];
    int name_len = (int)sizeof name, desc_len = (int)sizeof name;
    MPI_T_source_order order;
    MPI_Count ticks = 0, max_ticks = 0;
    MPI_Info info = MPI_INFO_NULL;
    CHECK_EQ(MPI_T_source_get_info(sources, name, &name_len, name, &desc_len, &order, &ticks, &max_ticks, &info),
             MPI_T_ERR_INVALID_INDEX);
    int index = -1;
    CHECK_EQ(MPI_T_event_get_index("anympi.no_such_event", &index), MPI_T_ERR_INVALID_NAME);
    /* past the last event: no information, no handle */
    int verbosity = 0, num_elements = 0, bind = 0;
    MPI_T_enum enumtype;
    name_len = desc_len = (int)sizeof name;
    CHECK_EQ(MPI_T_event_get_info(events, name, &name_len, &verbosity, NULL, NULL, &num_elements, &enumtype, NULL,
                                  name, &desc_len, &bind),
             MPI_T_ERR_INVALID_INDEX);
    MPI_T_event_registration reg;
    CHECK_EQ(MPI_T_event_handle_alloc(events, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ(MPI_T_event_handle_alloc(-1, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
#ifdef MPI_ABI_VERSION
    /* Over anympi no event handle can exist: any handle is invalid (an MPI may well crash on
     * a made-up one, so not asked natively). */
    if (events == 0) {
        MPI_T_event_registration made_up = (MPI_T_event_registration)(uintptr_t)0x1000;
        CHECK_EQ(MPI_T_event_handle_free(made_up, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
        CHECK_EQ(MPI_T_event_register_callback(made_up, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL),
                 MPI_T_ERR_INVALID_HANDLE);
        CHECK_EQ(MPI_T_event_set_dropped_handler(made_up, NULL), MPI_T_ERR_INVALID_HANDLE);
    }
#endif
    /* every category holds a count of events, the events of all of them at most all events */
    long in_categories = 0;
    for (int c = 0; c < categories; ++c) {
        int k = -1;
        MPI_OK(MPI_T_category_get_num_events(c, &k));
        CHECK(k >= 0);
        in_categories += k;
    }
    CHECK(in_categories <= (long)events * (categories > 0 ? categories : 1));
    int k = -1;
    CHECK_EQ(MPI_T_category_get_num_events(categories, &k), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ(MPI_T_category_get_num_events(-1, &k), MPI_T_ERR_INVALID_INDEX);
    if (categories > 0) {
        int none[1] = {-7};
        MPI_OK(MPI_T_category_get_events(0, 0, none));
        CHECK_EQ(none[0], -7);  /* len 0: nothing written */
    }

    MPI_OK(MPI_T_finalize());
    CHECK_EQ(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_EQ(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_EQ(MPI_T_category_get_num_events(0, &n), MPI_T_ERR_NOT_INITIALIZED);
#else
    CHECK_MSG(0, "this MPI is older than MPI-4.0: build the program natively on MPICH only");
#endif
    return check_finish();
}
