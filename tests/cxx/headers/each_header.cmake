# cmake -DCOMPILER=.. -DHEADERS=<dir> -DINCLUDES=a;b [-DDEFINES=X;Y] -DWORK=<dir> -P each_header.cmake
# Passes when every header under HEADERS/mpi, and <mpi.hpp>, compiles on its own: a header that
# uses a standard name it does not include (through std_parts.hpp with libstdc++'s internal
# headers, or with -DMPI_CXX_STANDARD_HEADERS the standard ones) fails here, not in a user's
# file that happens to include it first.
set(flags -std=c++20 -fsyntax-only)
foreach(dir IN LISTS INCLUDES)
  list(APPEND flags -I${dir})
endforeach()
foreach(d IN LISTS DEFINES)
  list(APPEND flags -D${d})
endforeach()
file(GLOB names RELATIVE ${HEADERS} ${HEADERS}/mpi/*.hpp)
list(APPEND names mpi.hpp)
file(MAKE_DIRECTORY ${WORK})
set(failed "")
foreach(h IN LISTS names)
  string(MAKE_C_IDENTIFIER ${h} id)
  file(WRITE ${WORK}/${id}.cpp "#include <${h}>\n")
  execute_process(COMMAND ${COMPILER} ${flags} ${WORK}/${id}.cpp RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failed "<${h}>:\n${err}\n")
  endif()
endforeach()
list(LENGTH names n)
if(failed)
  message(FATAL_ERROR "headers that do not compile on their own (${DEFINES}):\n${failed}")
endif()
message(STATUS "${n} headers compile on their own (${DEFINES})")
