// Persistent point-to-point requests: send_init, bsend_init, ssend_init, rsend_init and
// recv_init create an inactive request; start it with mpi::start / mpi::start_all (or
// request.start()) and complete it with wait/test, as often as wanted. They are defined in
// point_to_point.hpp together with the blocking and nonblocking forms, from one body per
// operation.
#pragma once

#include <mpi/point_to_point.hpp>
#include <mpi/request.hpp>
