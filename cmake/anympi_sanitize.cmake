# ANYMPI_SANITIZE=address,undefined | thread: a build of the runtime and its behavioural tests
# (tests/runtime, over the ABI) instrumented with those sanitizers, and nothing else.  The
# native MPIs are not instrumented: what they leak or race on by themselves is suppressed by
# library (tests/sanitizers/), so a report names anympi's frames or the test's.  scripts/test
# runs one such tree per sanitizer after the main one.

set(san_flags -fsanitize=${ANYMPI_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all -g)
add_compile_options(${san_flags})
add_link_options(-fsanitize=${ANYMPI_SANITIZE})

set(san_dir ${PROJECT_SOURCE_DIR}/tests/sanitizers)
# Appended to every MPI test's environment (anympi_add_mpi_test).  Open MPI keeps its plugins
# loaded so that their frames have names the suppressions can match; UCX (under MPICH) does not
# hook the memory calls the sanitizers intercept too.
set(ANYMPI_TEST_ENV
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23:detect_odr_violation=0:fast_unwind_on_malloc=0:verify_asan_link_order=0
    LSAN_OPTIONS=suppressions=${san_dir}/lsan.supp:print_suppressions=0
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=${san_dir}/ubsan.supp
    TSAN_OPTIONS=suppressions=${san_dir}/tsan.supp:halt_on_error=1:exitcode=66:report_signal_unsafe=0
    OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
    UCX_MEM_MMAP_HOOK_MODE=none UCX_MEM_MALLOC_HOOKS=no
    ANYMPI_TEST_SCALE=10)
# LeakSanitizer's tracer sometimes faults at exit by itself: such a run is run once more
# (tests/rerun/rerun_if_known_fault says when, and why that hides no finding).
if(ANYMPI_SANITIZE MATCHES "address")
  set(ANYMPI_TEST_LAUNCHER ${PROJECT_SOURCE_DIR}/tests/rerun/rerun_if_known_fault lsan-tracer)
endif()
