// The anympi:: convenience layer over the mpi:: core (<mpi.hpp>): views that attach MPI
// metadata to buffers (anympi::views), wrappers that infer what the caller left open
// (receive counts, per-process counts, displacements, buffer sizes), and nonblocking results
// that own their buffers (anympi::iresult), datatypes derived from C++ types (anympi/types.hpp,
// with Boost.PFR), user reductions from lambdas (anympi/op.hpp) and serialized buffers
// (anympi/serialization.hpp, with cereal). See docs/ARCHITECTURE.md.
#pragma once

#include <mpi.hpp>

#include <anympi/buffer.hpp>
#include <anympi/views.hpp>
#include <anympi/infer.hpp>
#include <anympi/iresult.hpp>
#include <anympi/point_to_point.hpp>
#include <anympi/collectives.hpp>
#include <anympi/neighborhood.hpp>
#include <anympi/types.hpp>
#include <anympi/op.hpp>
#include <anympi/serialization.hpp>
