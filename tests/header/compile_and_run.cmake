# cmake -DCOMPILER=cc -DSTD=c11 -DSOURCE=file -DINCLUDE=dir -DOUT=exe -P compile_and_run.cmake
# Compiles SOURCE warning-free under -Wall -Wextra -pedantic -Werror in the given standard, then runs it.
execute_process(
  COMMAND ${COMPILER} -std=${STD} -Wall -Wextra -pedantic -Werror -I${INCLUDE} ${SOURCE} -o ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${COMPILER} -std=${STD} failed on ${SOURCE}:\n${out}")
endif()
execute_process(COMMAND ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OUT} (${COMPILER} -std=${STD}) failed")
endif()
