// Cartesian topologies: a communicator whose ranks are the cells of a grid
// in row-major order (the last coordinate varies fastest). Ranks keep their
// order (reorder would not place them better on one host), so
// MPI_Cart_create is a split that keeps the first prod(dims) ranks.
#include <algorithm>
#include <memory>
#include <vector>

#include "comm/graph.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

// `comm` with its Cartesian topology, or MPI_ERR_TOPOLOGY.
int find_cart(const char* function, MPI_Comm handle, Comm*& comm, const CartTopology*& cart) {
  if (int err = find_comm_checked(function, handle, comm); err != MPI_SUCCESS) return err;
  cart = comm->cart.get();
  if (cart == nullptr) {
    return raise(comm, MPI_ERR_TOPOLOGY, function, "communicator %d has no Cartesian topology", handle);
  }
  return MPI_SUCCESS;
}

// Cells of a grid of `dims`, or an error for a negative dimension.
int grid_cells(const char* function, const Comm* comm, int ndims, const int dims[], long long& cells) {
  if (ndims < 0) return raise(comm, MPI_ERR_DIMS, function, "invalid number of dimensions %d", ndims);
  if (ndims > 0 && dims == nullptr) return raise(comm, MPI_ERR_ARG, function, "null dims argument");
  cells = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return raise(comm, MPI_ERR_DIMS, function, "invalid size %d of dimension %d", dims[i], i);
    cells *= dims[i];
    if (cells > kMaxCommSize) return raise(comm, MPI_ERR_DIMS, function, "grid of more than %d cells", kMaxCommSize);
  }
  return MPI_SUCCESS;
}

void coords_of(const CartTopology& cart, int rank, int* coords, int maxdims) {
  for (int i = static_cast<int>(cart.dims.size()) - 1; i >= 0; --i) {
    const int coordinate = rank % cart.dims[static_cast<std::size_t>(i)];
    rank /= cart.dims[static_cast<std::size_t>(i)];
    if (i < maxdims) coords[i] = coordinate;
  }
}

// The rank at `coords`, periodic dimensions wrapped; -1 when a coordinate
// lies off a non-periodic dimension.
int rank_of(const CartTopology& cart, const int* coords) {
  int rank = 0;
  for (std::size_t i = 0; i < cart.dims.size(); ++i) {
    int coordinate = coords[i];
    const int extent = cart.dims[i];
    if (cart.periods[i] != 0) {
      coordinate = ((coordinate % extent) + extent) % extent;
    } else if (coordinate < 0 || coordinate >= extent) {
      return -1;
    }
    rank = rank * extent + coordinate;
  }
  return rank;
}

// The members of `comm` where `color` is not MPI_UNDEFINED get a new
// communicator with `cart`, in rank order.
int split_with_topology(const char* function, MPI_Comm handle, int color, std::shared_ptr<const CartTopology> cart,
                        MPI_Comm* newcomm) {
  Comm* comm = find_comm(handle);
  if (int err = PMPI_Comm_split(handle, color, comm->rank, newcomm); err != MPI_SUCCESS) return err;
  if (*newcomm == MPI_COMM_NULL) return MPI_SUCCESS;
  Comm* made = find_comm(*newcomm);
  long long cells = 1;
  for (int extent : cart->dims) cells *= extent;
  if (made->size != cells) {
    return raise(comm, MPI_ERR_INTERN, function, "topology of another size than its communicator");
  }
  made->cart = std::move(cart);
  return MPI_SUCCESS;
}

}  // namespace

std::vector<int> cart_neighbours(const CartTopology& cart, int rank) {
  const std::size_t ndims = cart.dims.size();
  std::vector<int> coords(ndims), neighbours;
  coords_of(cart, rank, coords.data(), static_cast<int>(ndims));
  for (std::size_t i = 0; i < ndims; ++i) {
    const int mine = coords[i];
    for (int step : {-1, 1}) {
      coords[i] = mine + step;
      const int found = rank_of(cart, coords.data());
      neighbours.push_back(found < 0 ? MPI_PROC_NULL : found);
    }
    coords[i] = mine;
  }
  return neighbours;
}

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

// Free dimensions (0 in dims) get the prime factors of what is left, each
// to the dimension with the smallest product so far, largest factors first;
// then the free dimensions are sorted non-increasing.
int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  constexpr const char* kFunction = "MPI_Dims_create";
  const Comm* world = g_state != nullptr ? find_comm(MPI_COMM_WORLD) : nullptr;
  if (nnodes <= 0) return raise(world, MPI_ERR_ARG, kFunction, "invalid number of nodes %d", nnodes);
  if (ndims < 0) return raise(world, MPI_ERR_DIMS, kFunction, "invalid number of dimensions %d", ndims);
  if (ndims > 0 && dims == nullptr) return raise(world, MPI_ERR_ARG, kFunction, "null dims argument");
  long long fixed = 1;
  std::vector<int> free_dims;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return raise(world, MPI_ERR_DIMS, kFunction, "invalid size %d of dimension %d", dims[i], i);
    if (dims[i] == 0) {
      free_dims.push_back(i);
    } else {
      fixed *= dims[i];
    }
  }
  if (nnodes % fixed != 0 || (free_dims.empty() && fixed != nnodes)) {
    return raise(world, MPI_ERR_DIMS, kFunction, "%d nodes do not fill the given dimensions (product %lld)", nnodes,
                 fixed);
  }
  if (free_dims.empty()) return MPI_SUCCESS;
  int left = static_cast<int>(nnodes / fixed);
  std::vector<int> factors;
  for (int p = 2; static_cast<long long>(p) * p <= left; ++p) {
    while (left % p == 0) {
      factors.push_back(p);
      left /= p;
    }
  }
  if (left > 1) factors.push_back(left);
  std::vector<int> sizes(free_dims.size(), 1);
  for (auto it = factors.rbegin(); it != factors.rend(); ++it) *std::min_element(sizes.begin(), sizes.end()) *= *it;
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  for (std::size_t i = 0; i < free_dims.size(); ++i) dims[free_dims[i]] = sizes[i];
  return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm handle, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm* comm_cart) {
  constexpr const char* kFunction = "MPI_Cart_create";
  (void)reorder;
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (int err = check_intracomm(*comm, kFunction); err != MPI_SUCCESS) return err;
  if (comm_cart == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null comm_cart argument");
  long long cells = 0;
  if (int err = grid_cells(kFunction, comm, ndims, dims, cells); err != MPI_SUCCESS) return err;
  if (ndims > 0 && periods == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null periods argument");
  if (cells > comm->size) {
    return raise(comm, MPI_ERR_TOPOLOGY, kFunction, "a grid of %lld cells does not fit communicator of size %d",
                 cells, comm->size);
  }
  auto cart = std::make_shared<CartTopology>();
  cart->dims.assign(dims, dims + ndims);
  for (int i = 0; i < ndims; ++i) cart->periods.push_back(periods[i] != 0);
  return split_with_topology(kFunction, handle, comm->rank < cells ? 0 : MPI_UNDEFINED, std::move(cart), comm_cart);
}

int PMPI_Cart_map(MPI_Comm handle, int ndims, const int dims[], const int periods[], int* newrank) {
  constexpr const char* kFunction = "MPI_Cart_map";
  (void)periods;
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (newrank == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null newrank argument");
  long long cells = 0;
  if (int err = grid_cells(kFunction, comm, ndims, dims, cells); err != MPI_SUCCESS) return err;
  if (cells > comm->size) {
    return raise(comm, MPI_ERR_TOPOLOGY, kFunction, "a grid of %lld cells does not fit communicator of size %d",
                 cells, comm->size);
  }
  *newrank = comm->rank < cells ? comm->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm handle, int* status) {
  constexpr const char* kFunction = "MPI_Topo_test";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (status == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null status argument");
  if (comm->cart != nullptr) {
    *status = MPI_CART;
  } else if (comm->graph != nullptr) {
    *status = comm->graph->distributed ? MPI_DIST_GRAPH : MPI_GRAPH;
  } else {
    *status = MPI_UNDEFINED;
  }
  return MPI_SUCCESS;
}

int PMPI_Cartdim_get(MPI_Comm handle, int* ndims) {
  constexpr const char* kFunction = "MPI_Cartdim_get";
  Comm* comm = nullptr;
  const CartTopology* cart = nullptr;
  if (int err = find_cart(kFunction, handle, comm, cart); err != MPI_SUCCESS) return err;
  if (ndims == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null ndims argument");
  *ndims = static_cast<int>(cart->dims.size());
  return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm handle, int maxdims, int dims[], int periods[], int coords[]) {
  constexpr const char* kFunction = "MPI_Cart_get";
  Comm* comm = nullptr;
  const CartTopology* cart = nullptr;
  if (int err = find_cart(kFunction, handle, comm, cart); err != MPI_SUCCESS) return err;
  const int n = std::min(maxdims, static_cast<int>(cart->dims.size()));
  if (maxdims < 0 || (n > 0 && (dims == nullptr || periods == nullptr || coords == nullptr))) {
    return raise(comm, MPI_ERR_ARG, kFunction, "invalid maxdims %d or null array", maxdims);
  }
  for (int i = 0; i < n; ++i) {
    dims[i] = cart->dims[static_cast<std::size_t>(i)];
    periods[i] = cart->periods[static_cast<std::size_t>(i)];
  }
  coords_of(*cart, comm->rank, coords, n);
  return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm handle, const int coords[], int* rank) {
  constexpr const char* kFunction = "MPI_Cart_rank";
  Comm* comm = nullptr;
  const CartTopology* cart = nullptr;
  if (int err = find_cart(kFunction, handle, comm, cart); err != MPI_SUCCESS) return err;
  if (rank == nullptr || (coords == nullptr && !cart->dims.empty())) {
    return raise(comm, MPI_ERR_ARG, kFunction, "null coords or rank argument");
  }
  const int found = rank_of(*cart, coords);
  if (found < 0) return raise(comm, MPI_ERR_ARG, kFunction, "coordinates off a non-periodic dimension");
  *rank = found;
  return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm handle, int rank, int maxdims, int coords[]) {
  constexpr const char* kFunction = "MPI_Cart_coords";
  Comm* comm = nullptr;
  const CartTopology* cart = nullptr;
  if (int err = find_cart(kFunction, handle, comm, cart); err != MPI_SUCCESS) return err;
  if (rank < 0 || rank >= comm->size) {
    return raise(comm, MPI_ERR_RANK, kFunction, "invalid rank %d (communicator of size %d)", rank, comm->size);
  }
  if (maxdims < static_cast<int>(cart->dims.size()) || (coords == nullptr && maxdims > 0)) {
    return raise(comm, MPI_ERR_ARG, kFunction, "maxdims %d below the %zu dimensions, or null coords", maxdims,
                 cart->dims.size());
  }
  coords_of(*cart, rank, coords, maxdims);
  return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm handle, int direction, int disp, int* rank_source, int* rank_dest) {
  constexpr const char* kFunction = "MPI_Cart_shift";
  Comm* comm = nullptr;
  const CartTopology* cart = nullptr;
  if (int err = find_cart(kFunction, handle, comm, cart); err != MPI_SUCCESS) return err;
  if (direction < 0 || direction >= static_cast<int>(cart->dims.size())) {
    return raise(comm, MPI_ERR_DIMS, kFunction, "invalid direction %d (%zu dimensions)", direction, cart->dims.size());
  }
  if (rank_source == nullptr || rank_dest == nullptr) {
    return raise(comm, MPI_ERR_ARG, kFunction, "null rank_source or rank_dest argument");
  }
  std::vector<int> coords(cart->dims.size());
  coords_of(*cart, comm->rank, coords.data(), static_cast<int>(coords.size()));
  const int mine = coords[static_cast<std::size_t>(direction)];
  coords[static_cast<std::size_t>(direction)] = mine + disp;
  const int dest = rank_of(*cart, coords.data());
  coords[static_cast<std::size_t>(direction)] = mine - disp;
  const int source = rank_of(*cart, coords.data());
  *rank_dest = dest < 0 ? MPI_PROC_NULL : dest;
  *rank_source = source < 0 ? MPI_PROC_NULL : source;
  return MPI_SUCCESS;
}

// Ranks that agree on the dropped coordinates form one subgrid.
int PMPI_Cart_sub(MPI_Comm handle, const int remain_dims[], MPI_Comm* newcomm) {
  constexpr const char* kFunction = "MPI_Cart_sub";
  Comm* comm = nullptr;
  const CartTopology* cart = nullptr;
  if (int err = find_cart(kFunction, handle, comm, cart); err != MPI_SUCCESS) return err;
  if (newcomm == nullptr || (remain_dims == nullptr && !cart->dims.empty())) {
    return raise(comm, MPI_ERR_ARG, kFunction, "null remain_dims or newcomm argument");
  }
  std::vector<int> coords(cart->dims.size());
  coords_of(*cart, comm->rank, coords.data(), static_cast<int>(coords.size()));
  auto sub = std::make_shared<CartTopology>();
  int color = 0;
  for (std::size_t i = 0; i < cart->dims.size(); ++i) {
    if (remain_dims[i] != 0) {
      sub->dims.push_back(cart->dims[i]);
      sub->periods.push_back(cart->periods[i]);
    } else {
      color = color * cart->dims[i] + coords[i];
    }
  }
  return split_with_topology(kFunction, handle, color, std::move(sub), newcomm);
}

#pragma weak MPI_Dims_create = PMPI_Dims_create
#pragma weak MPI_Cart_create = PMPI_Cart_create
#pragma weak MPI_Cart_map = PMPI_Cart_map
#pragma weak MPI_Topo_test = PMPI_Topo_test
#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
#pragma weak MPI_Cart_get = PMPI_Cart_get
#pragma weak MPI_Cart_rank = PMPI_Cart_rank
#pragma weak MPI_Cart_coords = PMPI_Cart_coords
#pragma weak MPI_Cart_shift = PMPI_Cart_shift
#pragma weak MPI_Cart_sub = PMPI_Cart_sub

}  // extern "C"
