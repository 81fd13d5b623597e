# A fatal error under the checker (tests/check/handler_test.c): after anympi's report the
# output must be the native MPI's own rendering of the same error (or nothing), and the run
# must end as the native MPI ends a fatal error of that class.
#
#   cmake -DMPIEXEC=... [-DMPIEXEC_FLAGS=...] -DNP=n -DBACKEND=mpich|openmpi -DSCENARIO=...
#         -DCHECKED=<program over libmpi_abi> [-DNATIVE=<the same program built natively>]
#         -P expect_fatal.cmake
#
# CHECKED runs with ANYMPI_CHECK=args (ANYMPI_BACKEND comes from the test's environment).
# With NATIVE, the exit statuses must agree and the native output must render the error the
# same way (which proves the expected rendering); without, the exit status must be a failure.
#
# Two things the MPIs do on their own, natively too:
# * The aborting processes' output may be lost: Open MPI hands its error message to the
#   launcher, which may get it after the process is gone ("ORTE_ERROR_LOG: Data unpack ..."
#   instead), MPICH's launcher may kill ranks before it forwards what they printed. Where the
#   MPI's message is not there, nothing follows the report, which is coherent too; where it is,
#   it must be right. (One MPICH process prints its own before it exits: at 1 rank it is there.)
# * MPICH ends only the calling process for MPI_ERRORS_ARE_FATAL raised through
#   MPI_Comm_call_errhandler, as the checker raises it: that process exits with the error's
#   class as for an error of its own, but the launcher, told of the abort, may end the ranks
#   that have not exited yet first and report its signal instead: SIGKILL (9) to the others,
#   and, at 1 rank under load, SIGHUP (1) to the aborting process itself, which is still in
#   exit(), after its message.  Such a run is compared by its output only.

foreach(v MPIEXEC NP BACKEND SCENARIO CHECKED)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "expect_fatal.cmake: ${v} is not set")
  endif()
endforeach()
separate_arguments(flags UNIX_COMMAND "${MPIEXEC_FLAGS}")

# What each scenario's report says, and how each MPI renders the error after it.
if(SCENARIO STREQUAL "fatal_rank")
  set(report "anympi check: MPI_Send: argument dest is ${NP}, but MPI_COMM_WORLD has ${NP} ranks? \\(0\\.\\.")
  set(rendering_mpich "Fatal error in [A-Za-z_]+: Invalid rank")
  set(rendering_openmpi "\\*\\*\\* MPI_ERR_RANK: invalid rank")
elseif(SCENARIO STREQUAL "fatal_new_class")
  set(report "anympi check: MPI_Comm_set_errhandler: argument errhandler is a freed error handler")
  set(rendering_mpich "Fatal error in [A-Za-z_]+: MPI_ERR_ERRHANDLER: invalid error handler")
  set(rendering_openmpi "\\*\\*\\* MPI_ERR_ERRHANDLER: invalid error handler")
else()
  message(FATAL_ERROR "expect_fatal.cmake: unknown scenario ${SCENARIO}")
endif()
set(rendering "${rendering_${BACKEND}}")
# the MPI's message arrived
set(delivered_mpich "Abort\\([0-9]+\\)")
set(delivered_openmpi "\\*\\*\\* An error occurred in")
set(delivered "${delivered_${BACKEND}}")
# What must never follow the report: MPICH's decoding of a code it does not know ("Network
# type AF_INET invalid in call to inet_pton" and the like), Open MPI's blank error line, or
# the program going on.
set(forbidden "inet_pton|AF_INET|\\*\\*\\* *\n|survived")

# run(<var> <command...>): <var>_rc, <var>_out; checks the rendering in <var>_out
set(bad "")
macro(run var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE ${var}_rc OUTPUT_VARIABLE ${var}_out ERROR_VARIABLE ${var}_out
                  TIMEOUT 60)
  message("---- ${var} (exit ${${var}_rc}):\n${${var}_out}")
  if(${var}_out MATCHES "${delivered}" AND NOT ${var}_out MATCHES "${rendering}")
    string(APPEND bad "${var}: the MPI's message lacks its rendering of the error (${rendering})\n")
  endif()
endmacro()

run(checked ${CMAKE_COMMAND} -E env ANYMPI_CHECK=args ${MPIEXEC} ${flags} -n ${NP} ${CHECKED} ${SCENARIO})
if(BACKEND STREQUAL "mpich" AND NP EQUAL 1 AND NOT checked_out MATCHES "${rendering}")
  string(APPEND bad "checked: the MPI's rendering (${rendering}) is missing\n")
endif()
if(NOT checked_out MATCHES "${report}")
  string(APPEND bad "checked: the report (${report}) is missing\n")
endif()
if(checked_out MATCHES "${forbidden}")
  string(APPEND bad "checked: the output has \"${CMAKE_MATCH_0}\"\n")
endif()
if(checked_rc EQUAL 0 OR NOT checked_rc MATCHES "^[0-9]+$")
  string(APPEND bad "checked: the run ended with '${checked_rc}', not as a fatal error\n")
endif()

if(DEFINED NATIVE)
  run(native ${MPIEXEC} ${flags} -n ${NP} ${NATIVE} ${SCENARIO})
  set(launcher_kill FALSE)
  if(BACKEND STREQUAL "mpich")
    foreach(r checked native)
      if(${r}_rc EQUAL 9 OR (${r}_rc EQUAL 1 AND ${r}_out MATCHES "${delivered}"))
        set(launcher_kill TRUE)
      endif()
    endforeach()
  endif()
  if(NOT checked_rc STREQUAL native_rc AND NOT launcher_kill)
    string(APPEND bad "the exit status ${checked_rc} differs from the native ${native_rc}\n")
  endif()
endif()

if(bad)
  message(FATAL_ERROR "expect_fatal.cmake: ${SCENARIO} on ${BACKEND} at ${NP} ranks:\n${bad}")
endif()
message("expect_fatal.cmake: ${SCENARIO} on ${BACKEND} at ${NP} ranks: as expected")
