// The mpi:: core: C++20 bindings for two-sided MPI over any mpi.h.
// See docs/cxx-core.md.
#pragma once

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
