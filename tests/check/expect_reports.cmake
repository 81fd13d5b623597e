# A tests/runtime program that makes errors on purpose (and asserts the error class it gets
# back), run under the checker: it must pass as it does without the checker, the checker must
# report those errors (at least one "anympi check:" line), and nothing else: every report must
# match ALLOWED.
#
#   cmake -DMPIEXEC=... [-DMPIEXEC_FLAGS=...] -DNP=n -DPROGRAM=<program> "-DALLOWED=<regex>"
#         [-DTIMEOUT=s] -P expect_reports.cmake
#
# ANYMPI_CHECK and ANYMPI_BACKEND come from the test's environment.

foreach(v MPIEXEC NP PROGRAM ALLOWED)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "expect_reports.cmake: ${v} is not set")
  endif()
endforeach()
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 80)
endif()
separate_arguments(flags UNIX_COMMAND "${MPIEXEC_FLAGS}")

execute_process(COMMAND ${MPIEXEC} ${flags} -n ${NP} ${PROGRAM} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out TIMEOUT ${TIMEOUT})
message("${out}")

set(bad "")
if(NOT rc STREQUAL "0")
  string(APPEND bad "the program failed (exit ${rc})\n")
endif()
string(REPLACE ";" "," lines "${out}")  # a report's own ';' must not split the list below
string(REGEX MATCHALL "anympi check:[^\n]*" reports "${lines}")
list(LENGTH reports n)
if(n EQUAL 0)
  string(APPEND bad "no report: the checker did not find the program's deliberate errors (${ALLOWED})\n")
endif()
foreach(r IN LISTS reports)
  if(NOT r MATCHES "${ALLOWED}")
    string(APPEND bad "a report of an error the program does not make: ${r}\n")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "${bad}")
endif()
message("expect_reports.cmake: ${n} reports, each of a deliberate error")
