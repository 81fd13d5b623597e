// The mpi:: core: C++20 bindings for two-sided and one-sided MPI and MPI-IO over any mpi.h.
// See docs/cxx-core.md.
#pragma once

// Below C++20 the core's concepts and defaulted comparisons fail deep inside the headers with
// errors that do not say why (g++ 12 and clang 16 default to C++17): say it once, and stop
// there with a missing include (a fatal error), since #error alone lets the compiler go on.
#if !defined(__cplusplus) || (__cplusplus < 202002L && (!defined(_MSVC_LANG) || _MSVC_LANG < 202002L))
#error "<mpi.hpp> needs C++20: compile with -std=c++20 (or later), e.g. mpicxx -std=c++20 hello.cpp; g++ 12 and clang 16 default to C++17"
#include <mpi.hpp: stopped here, see the #error above>
#endif

#include <mpi/config.hpp>
#include <mpi/error.hpp>
#include <mpi/type_map.hpp>
#include <mpi/handle.hpp>
#include <mpi/buffer.hpp>
#include <mpi/large_count.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/status.hpp>
#include <mpi/object.hpp>
#include <mpi/info.hpp>
#include <mpi/errhandler.hpp>
#include <mpi/group.hpp>
#include <mpi/request.hpp>
#include <mpi/communicator.hpp>
#include <mpi/datatype.hpp>
#include <mpi/op.hpp>
#include <mpi/message.hpp>
#include <mpi/session.hpp>
#include <mpi/environment.hpp>
#include <mpi/point_to_point.hpp>
#include <mpi/probe.hpp>
#include <mpi/persistent.hpp>
#include <mpi/partitioned.hpp>
#include <mpi/collectives.hpp>
#include <mpi/topology.hpp>
#include <mpi/neighborhood.hpp>
#include <mpi/one_sided.hpp>
#include <mpi/file.hpp>
