# The one place that knows each native MPI: where its header and library are,
# which launcher starts it, and what that launcher needs on this kind of machine.
#
#   anympi::native_mpich, anympi::native_openmpi   imported targets (compile + link natively)
#   ANYMPI_BACKENDS                                the list "mpich;openmpi"
#   anympi_add_mpi_test(NAME ... COMMAND ...)      one CTest per backend and rank count
#
# A missing MPI is a configure error, never a silently skipped test.

find_package(PkgConfig REQUIRED)
pkg_check_modules(ANYMPI_PC_MPICH REQUIRED IMPORTED_TARGET mpich)
pkg_check_modules(ANYMPI_PC_OPENMPI REQUIRED IMPORTED_TARGET ompi-c)

add_library(anympi::native_mpich INTERFACE IMPORTED GLOBAL)
target_link_libraries(anympi::native_mpich INTERFACE PkgConfig::ANYMPI_PC_MPICH)
add_library(anympi::native_openmpi INTERFACE IMPORTED GLOBAL)
target_link_libraries(anympi::native_openmpi INTERFACE PkgConfig::ANYMPI_PC_OPENMPI)
# Both MPIs' headers pull in their deprecated C++ bindings (and need their libraries) unless told not to.
target_compile_definitions(anympi::native_mpich INTERFACE MPICH_SKIP_MPICXX=1)
target_compile_definitions(anympi::native_openmpi INTERFACE OMPI_SKIP_MPICXX=1)

set(ANYMPI_BACKENDS mpich openmpi)

find_program(ANYMPI_MPIEXEC_mpich mpiexec.mpich REQUIRED)
find_program(ANYMPI_MPIEXEC_openmpi mpiexec.openmpi REQUIRED)
# Open MPI refuses root and more ranks than cores unless told otherwise.
set(ANYMPI_MPIEXEC_FLAGS_mpich "")
set(ANYMPI_MPIEXEC_FLAGS_openmpi --oversubscribe)
set(ANYMPI_MPIEXEC_ENV_mpich "")
set(ANYMPI_MPIEXEC_ENV_openmpi OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_rmaps_base_oversubscribe=1)

# anympi_add_mpi_test(NAME <name> COMMAND <exe> [args...]
#                     [BACKENDS mpich openmpi] [RANKS 1 2 4]
#                     [ABI]                 # the binary runs over libmpi_abi: set ANYMPI_BACKEND
#                     [ENVIRONMENT VAR=value ...] [TIMEOUT seconds] [LABELS ...]
#                     [LAUNCHER command ...])   # runs the MPI launcher (tests/rerun)
# adds <name>.<backend>.np<N> for every backend and rank count.  ANYMPI_TEST_ENV (set by a
# sanitizer build) is added to every test's environment, and ANYMPI_TEST_LAUNCHER (set by an
# AddressSanitizer build) goes before the test's own LAUNCHER and the MPI launcher.
function(anympi_add_mpi_test)
  cmake_parse_arguments(T "ABI" "NAME;TIMEOUT" "COMMAND;BACKENDS;RANKS;ENVIRONMENT;LABELS;LAUNCHER" ${ARGN})
  if(NOT T_BACKENDS)
    set(T_BACKENDS ${ANYMPI_BACKENDS})
  endif()
  if(NOT T_RANKS)
    set(T_RANKS 1 2 4)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  foreach(backend IN LISTS T_BACKENDS)
    foreach(np IN LISTS T_RANKS)
      set(test_name ${T_NAME}.${backend}.np${np})
      add_test(NAME ${test_name}
               COMMAND ${ANYMPI_TEST_LAUNCHER} ${T_LAUNCHER} ${ANYMPI_MPIEXEC_${backend}} ${ANYMPI_MPIEXEC_FLAGS_${backend}} -n ${np} ${T_COMMAND})
      set(env ${ANYMPI_MPIEXEC_ENV_${backend}} ${T_ENVIRONMENT} ${ANYMPI_TEST_ENV})
      if(T_ABI)
        list(APPEND env ANYMPI_BACKEND=${backend})
      endif()
      set_tests_properties(${test_name} PROPERTIES
        ENVIRONMENT "${env}" TIMEOUT ${T_TIMEOUT}
        LABELS "mpi;${backend};${T_LABELS}"
        PROCESSORS ${np})
    endforeach()
  endforeach()
endfunction()
