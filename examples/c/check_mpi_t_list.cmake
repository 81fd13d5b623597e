# mpi_t_list over anympi on one backend: it must succeed (its own checks: every name leads back
# to its index, MPI_T works before MPI_Init and after MPI_Finalize) and list what the MPI has --
# the same counts as the same file built natively (where NATIVE_BINARY is given), and on Open
# MPI (monitoring on) a performance variable that a communication moves.
#   -DMPIEXEC=... -DMPIEXEC_FLAGS=... -DNP=... -DABI_BINARY=... [-DNATIVE_BINARY=...] -DBACKEND=...
separate_arguments(flags UNIX_COMMAND "${MPIEXEC_FLAGS}")
function(run binary out_var)
  execute_process(COMMAND ${MPIEXEC} ${flags} -n ${NP} ${binary} --summary
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 100)
  message("${binary}:\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${binary} failed on ${BACKEND} (exit ${rc})")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
run(${ABI_BINARY} abi)
string(REGEX MATCH "mpi_t_list: ([0-9]+) cvars, ([0-9]+) pvars, ([0-9]+) categories[^\n]*" counts "${abi}")
if(NOT counts OR CMAKE_MATCH_1 EQUAL 0 OR CMAKE_MATCH_3 EQUAL 0)
  message(FATAL_ERROR "no control variables or categories listed over anympi: \"${counts}\"")
endif()
if(NATIVE_BINARY)
  run(${NATIVE_BINARY} native)
  string(REGEX MATCH "mpi_t_list: [0-9]+ cvars[^\n]*" native_counts "${native}")
  if(NOT native_counts STREQUAL counts)
    message(FATAL_ERROR "over anympi \"${counts}\", natively \"${native_counts}\"")
  endif()
endif()
if(BACKEND STREQUAL "openmpi" AND NOT abi MATCHES "mpi_t_list: pvar [^\n]*\\(moved\\)")
  message(FATAL_ERROR "no performance variable moved around the communication over Open MPI")
endif()
