// anympi datatype understanding: decode any MPI datatype into its type map, signature and
// layout figures, check send/receive compatibility, and build types from expressions.
#pragma once

#include <anympi/types/expression.hpp>  // the expression language (no MPI)
#include <anympi/types/layout.hpp>      // type maps, signatures, figures, compatibility (no MPI)
#include <anympi/types/render.hpp>      // text, JSON and SVG (no MPI)
#include <anympi/types/decode.hpp>      // MPI_Datatype -> type_node, via envelope/contents
#include <anympi/types/build.hpp>       // expression -> MPI_Datatype
