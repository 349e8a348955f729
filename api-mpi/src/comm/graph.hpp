// A communicator's neighbours as the neighbourhood collectives see them,
// from whichever topology it has (comm/graph.cpp, comm/topology.cpp).
#pragma once

#include <vector>

#include "state.hpp"

namespace tern::mpi {

struct Neighbourhood {
  std::vector<int> sources;       // one receive block each, in order; MPI_PROC_NULL: a block left alone
  std::vector<int> destinations;  // one send block each, in order; MPI_PROC_NULL: a block not sent
  // Cartesian: blocks come in (-1, +1) pairs per dimension, and the block a
  // rank sends towards -1 arrives in its neighbour's +1 block. Where both
  // neighbours of a dimension are one rank (a periodic dimension of 1 or 2)
  // the two messages between the pair carry the same tag, so the receiver
  // posts each pair swapped to meet them in the order they were sent.
  bool cartesian = false;
};

// MPI_ERR_TOPOLOGY (raised) when `comm` has no topology.
int neighbourhood_of(const char* function, const Comm& comm, Neighbourhood& out);

// For each dimension, the rank at -1 then at +1 from `rank`, MPI_PROC_NULL
// off the edge of a non-periodic dimension (comm/topology.cpp).
std::vector<int> cart_neighbours(const CartTopology& cart, int rank);

}  // namespace tern::mpi
