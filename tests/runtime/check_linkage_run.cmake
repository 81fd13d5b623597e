# The very same ABI-built file runs under a backend's launcher at 2 ranks,
# succeeds, and reports the backend's MPI in its library version line.
#   -DMPIEXEC=... -DMPIEXEC_FLAGS=... -DBINARY=... -DBACKEND=mpich|openmpi
separate_arguments(flags UNIX_COMMAND "${MPIEXEC_FLAGS}")
execute_process(COMMAND ${MPIEXEC} ${flags} -n 2 ${BINARY}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 100)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BINARY} failed on ${BACKEND} (exit ${rc})")
endif()
if(BACKEND STREQUAL "mpich")
  set(expect "MPICH")
else()
  set(expect "Open MPI")
endif()
string(REGEX MATCH "linkage: library: [^\n]*" line "${out}")
string(FIND "${line}" "${expect}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "library version line does not name ${expect}: \"${line}\"")
endif()
