# cmake -DCOMPILER=.. -DSOURCE=.. -DINCLUDES=a;b -DEXPECT=<concept> -P expect_compile_failure.cmake
# Passes when SOURCE does not compile and the diagnostic names EXPECT.
# With -DEXPECT_SUCCESS=1: passes when SOURCE compiles (the harness's own control).
set(flags -std=c++20 -fsyntax-only)
foreach(dir IN LISTS INCLUDES)
  list(APPEND flags -I${dir})
endforeach()
execute_process(COMMAND ${COMPILER} ${flags} ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(EXPECT_SUCCESS)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "control snippet ${SOURCE} failed to compile:\n${err}")
  endif()
  message(STATUS "control snippet compiles")
  return()
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must be rejected")
endif()
string(FIND "${err}" "${EXPECT}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "${SOURCE} was rejected, but the diagnostic does not name '${EXPECT}':\n${err}")
endif()
message(STATUS "${SOURCE} rejected; diagnostic names '${EXPECT}'")
