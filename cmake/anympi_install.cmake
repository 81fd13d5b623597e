# The package files of an install: lib/cmake/anympi/ (find_package(anympi)) and
# lib/pkgconfig/anympi.pc. The install-and-consume test
# (tests/install) checks that every piece of an install is there and usable.

include(CMakePackageConfigHelpers)

set(ANYMPI_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/anympi)
set(ANYMPI_INSTALL_BACKENDDIR ${CMAKE_INSTALL_LIBDIR}/anympi)

# Everything else is installed by its own layer: include/mpi.h (abi/), libmpi_abi.so.1 and the
# lib/anympi/ backends (abi/runtime/), the C++ and types headers (cxx/, types/). The package
# offers a component for each header layer the build has.
set(ANYMPI_PKG_HAS_CXX FALSE)
set(ANYMPI_PKG_HAS_TYPES FALSE)
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/cxx/include)
  set(ANYMPI_PKG_HAS_CXX TRUE)
endif()
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/types/include)
  set(ANYMPI_PKG_HAS_TYPES TRUE)
endif()

# CMake package: find_package(anympi [COMPONENTS cxx types]) -> anympi::mpi_abi, anympi::cxx,
# anympi::types. Written by hand (not install(EXPORT)) so that it stays relocatable and
# independent of how the runtime target spells its build-tree include directories.
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/anympiConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/anympiConfig.cmake
  INSTALL_DESTINATION ${ANYMPI_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR ANYMPI_INSTALL_BACKENDDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/anympiConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/anympiConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/anympiConfigVersion.cmake
        DESTINATION ${ANYMPI_INSTALL_CMAKEDIR})

# pkg-config: relocatable through ${pcfiledir}. Libs carries a run path to ${libdir}, as mpicc
# does, so a program linked with `pkg-config --libs anympi` starts from any prefix; none when the
# library goes where the loader looks anyway (the Debian package's /usr/lib/<multiarch>).
# Such a system install (the package's /usr) is not moved: its prefix is written as it is, so
# pkg-config leaves out the -L of a folder the linker searches anyway.
set(_pcdir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH ANYMPI_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${_pcdir} ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" ANYMPI_PC_TO_PREFIX "${ANYMPI_PC_TO_PREFIX}")
set(ANYMPI_PC_RPATH "-Wl,-rpath,\${libdir} -Wl,--enable-new-dtags ")
set(ANYMPI_PC_PREFIX "\${pcfiledir}/${ANYMPI_PC_TO_PREFIX}")
if(CMAKE_INSTALL_FULL_LIBDIR IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
  set(ANYMPI_PC_RPATH "")
  set(ANYMPI_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/anympi.pc.in ${PROJECT_BINARY_DIR}/cmake/anympi.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/anympi.pc DESTINATION ${_pcdir})

# share/doc/anympi/: the README with the docs/ it links to, and the examples with a CMake
# project that builds them against the installed tree (examples/installed/CMakeLists.txt).
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(FILES ${PROJECT_SOURCE_DIR}/examples/installed/CMakeLists.txt
              ${PROJECT_SOURCE_DIR}/examples/c/demo.c ${PROJECT_SOURCE_DIR}/examples/c/demo.cpp
              ${PROJECT_SOURCE_DIR}/examples/c/mpi_t_list.c
              ${PROJECT_SOURCE_DIR}/examples/cxx/fig1_stl_containers.cpp
              ${PROJECT_SOURCE_DIR}/examples/cxx/fig3_handles.cpp
              ${PROJECT_SOURCE_DIR}/examples/cxx/fig4_allgatherv.cpp
              ${PROJECT_SOURCE_DIR}/examples/cxx/fig5_views_take.cpp
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
