// Graph and distributed graph topologies. Ranks keep their order (reorder
// would not place them better on one host), so making one is a split of the
// old communicator with the topology attached, as for Cartesian ones.
// MPI_Graph_create's graph is known whole on every rank; a distributed graph
// only as each rank's own in- and out-edges.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "comm/graph.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

// `comm` with a graph topology of the kind asked for, or MPI_ERR_TOPOLOGY.
int find_graph(const char* function, MPI_Comm handle, bool distributed, Comm*& comm, const GraphTopology*& graph) {
  if (int err = find_comm_checked(function, handle, comm); err != MPI_SUCCESS) return err;
  graph = comm->graph.get();
  if (graph == nullptr || graph->distributed != distributed) {
    return raise(comm, MPI_ERR_TOPOLOGY, function, "communicator %d has no %s topology", handle,
                 distributed ? "distributed graph" : "graph");
  }
  return MPI_SUCCESS;
}

// The members of `handle` where `color` is not MPI_UNDEFINED get a new
// communicator, in rank order, with `graph` (built by `fill` once the
// new communicator's rank is known).
template <typename Fill>
int split_with_graph(MPI_Comm handle, int color, bool distributed, MPI_Comm* newcomm, Fill&& fill) {
  Comm* comm = find_comm(handle);
  if (int err = PMPI_Comm_split(handle, color, comm->rank, newcomm); err != MPI_SUCCESS) return err;
  if (*newcomm == MPI_COMM_NULL) return MPI_SUCCESS;
  auto graph = std::make_shared<GraphTopology>();
  graph->distributed = distributed;
  fill(*graph, *find_comm(*newcomm));
  find_comm(*newcomm)->graph = std::move(graph);
  return MPI_SUCCESS;
}

// MPI_Graph_neighbors(_count): `comm`'s graph and where node `rank`'s
// neighbours lie in its edges.
int find_node(const char* function, MPI_Comm handle, int rank, Comm*& comm, const GraphTopology*& graph,
              int& first, int& count) {
  if (int err = find_graph(function, handle, false, comm, graph); err != MPI_SUCCESS) return err;
  if (rank < 0 || rank >= static_cast<int>(graph->index.size())) {
    return raise(comm, MPI_ERR_RANK, function, "invalid rank %d (graph of %zu nodes)", rank, graph->index.size());
  }
  const auto r = static_cast<std::size_t>(rank);
  first = rank == 0 ? 0 : graph->index[r - 1];
  count = graph->index[r] - first;
  return MPI_SUCCESS;
}

int check_ranks(const char* function, const Comm& comm, const char* what, int count, const int ranks[],
                int limit) {
  if (count < 0) return raise(&comm, MPI_ERR_ARG, function, "invalid number of %s %d", what, count);
  if (count > 0 && ranks == nullptr) return raise(&comm, MPI_ERR_ARG, function, "null %s argument", what);
  for (int i = 0; i < count; ++i) {
    if (ranks[i] < 0 || ranks[i] >= limit) {
      return raise(&comm, MPI_ERR_RANK, function, "invalid rank %d in %s (%d nodes)", ranks[i], what, limit);
    }
  }
  return MPI_SUCCESS;
}

// Weights of `count` edges: an array of non-negative values, or one of the
// sentinels. `weighted` false for MPI_UNWEIGHTED.
int check_weights(const char* function, const Comm& comm, int count, const int weights[], bool& weighted) {
  weighted = weights != MPI_UNWEIGHTED;
  if (!weighted || count == 0) return MPI_SUCCESS;
  if (weights == nullptr || weights == MPI_WEIGHTS_EMPTY) {
    return raise(&comm, MPI_ERR_ARG, function, "no weights given for %d edges", count);
  }
  for (int i = 0; i < count; ++i) {
    if (weights[i] < 0) return raise(&comm, MPI_ERR_ARG, function, "negative weight %d", weights[i]);
  }
  return MPI_SUCCESS;
}

// A graph of `nnodes` nodes as MPI_Graph_create and MPI_Graph_map take it.
int check_graph(const char* function, const Comm& comm, int nnodes, const int index[], const int edges[]) {
  if (nnodes < 0 || nnodes > comm.size) {
    return raise(&comm, MPI_ERR_ARG, function, "invalid number of nodes %d (communicator of size %d)", nnodes,
                 comm.size);
  }
  if (nnodes > 0 && index == nullptr) return raise(&comm, MPI_ERR_ARG, function, "null index argument");
  int previous = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < previous) return raise(&comm, MPI_ERR_ARG, function, "index[%d] = %d decreases", i, index[i]);
    previous = index[i];
  }
  return check_ranks(function, comm, "edges", previous, edges, nnodes);
}

void copy_out(const std::vector<int>& values, int room, int out[]) {
  const int n = std::min(room, static_cast<int>(values.size()));
  for (int i = 0; i < n; ++i) out[i] = values[static_cast<std::size_t>(i)];
}

// One edge of MPI_Dist_graph_create as sent to one of its ends: whether that
// end is the source (so `peer` is a destination), the other end, the weight.
struct EdgeRecord {
  int outgoing;
  int peer;
  int weight;
};

}  // namespace

int neighbourhood_of(const char* function, const Comm& comm, Neighbourhood& out) {
  if (comm.cart != nullptr) {
    out.sources = cart_neighbours(*comm.cart, comm.rank);
    out.destinations = out.sources;
    out.cartesian = true;
  } else if (comm.graph != nullptr) {
    out.sources = comm.graph->sources;
    out.destinations = comm.graph->destinations;
    out.cartesian = false;
  } else {
    return raise(&comm, MPI_ERR_TOPOLOGY, function, "communicator of size %d has no topology", comm.size);
  }
  return MPI_SUCCESS;
}

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Graph_create(MPI_Comm handle, int nnodes, const int index[], const int edges[], int reorder,
                      MPI_Comm* comm_graph) {
  constexpr const char* kFunction = "MPI_Graph_create";
  (void)reorder;
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (int err = check_intracomm(*comm, kFunction); err != MPI_SUCCESS) return err;
  if (comm_graph == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null comm_graph argument");
  if (int err = check_graph(kFunction, *comm, nnodes, index, edges); err != MPI_SUCCESS) return err;
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  const int color = comm->rank < nnodes ? 0 : MPI_UNDEFINED;
  return split_with_graph(handle, color, false, comm_graph, [&](GraphTopology& graph, const Comm& made) {
    graph.index.assign(index, index + nnodes);
    graph.edges.assign(edges, edges + nedges);
    const int first = made.rank == 0 ? 0 : index[made.rank - 1];
    graph.sources.assign(edges + first, edges + index[made.rank]);
    graph.destinations = graph.sources;
  });
}

int PMPI_Graph_map(MPI_Comm handle, int nnodes, const int index[], const int edges[], int* newrank) {
  constexpr const char* kFunction = "MPI_Graph_map";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (newrank == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null newrank argument");
  if (int err = check_graph(kFunction, *comm, nnodes, index, edges); err != MPI_SUCCESS) return err;
  *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm handle, int* nnodes, int* nedges) {
  constexpr const char* kFunction = "MPI_Graphdims_get";
  Comm* comm = nullptr;
  const GraphTopology* graph = nullptr;
  if (int err = find_graph(kFunction, handle, false, comm, graph); err != MPI_SUCCESS) return err;
  if (nnodes == nullptr || nedges == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null argument");
  *nnodes = static_cast<int>(graph->index.size());
  *nedges = static_cast<int>(graph->edges.size());
  return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm handle, int maxindex, int maxedges, int index[], int edges[]) {
  constexpr const char* kFunction = "MPI_Graph_get";
  Comm* comm = nullptr;
  const GraphTopology* graph = nullptr;
  if (int err = find_graph(kFunction, handle, false, comm, graph); err != MPI_SUCCESS) return err;
  if (maxindex < 0 || maxedges < 0 || (maxindex > 0 && index == nullptr) || (maxedges > 0 && edges == nullptr)) {
    return raise(comm, MPI_ERR_ARG, kFunction, "invalid maxindex %d or maxedges %d, or null array", maxindex,
                 maxedges);
  }
  copy_out(graph->index, maxindex, index);
  copy_out(graph->edges, maxedges, edges);
  return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm handle, int rank, int* nneighbors) {
  constexpr const char* kFunction = "MPI_Graph_neighbors_count";
  Comm* comm = nullptr;
  const GraphTopology* graph = nullptr;
  int first = 0, count = 0;
  if (int err = find_node(kFunction, handle, rank, comm, graph, first, count); err != MPI_SUCCESS) return err;
  if (nneighbors == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null nneighbors argument");
  *nneighbors = count;
  return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm handle, int rank, int maxneighbors, int neighbors[]) {
  constexpr const char* kFunction = "MPI_Graph_neighbors";
  Comm* comm = nullptr;
  const GraphTopology* graph = nullptr;
  int first = 0, count = 0;
  if (int err = find_node(kFunction, handle, rank, comm, graph, first, count); err != MPI_SUCCESS) return err;
  if (maxneighbors < 0 || (maxneighbors > 0 && neighbors == nullptr)) {
    return raise(comm, MPI_ERR_ARG, kFunction, "invalid maxneighbors %d or null neighbors", maxneighbors);
  }
  count = std::min(maxneighbors, count);
  for (int i = 0; i < count; ++i) neighbors[i] = graph->edges[static_cast<std::size_t>(first + i)];
  return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm handle, int indegree, const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                    int reorder, MPI_Comm* comm_dist_graph) {
  constexpr const char* kFunction = "MPI_Dist_graph_create_adjacent";
  (void)info;
  (void)reorder;
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (int err = check_intracomm(*comm, kFunction); err != MPI_SUCCESS) return err;
  if (comm_dist_graph == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null comm_dist_graph argument");
  if (int err = check_ranks(kFunction, *comm, "sources", indegree, sources, comm->size); err != MPI_SUCCESS) {
    return err;
  }
  if (int err = check_ranks(kFunction, *comm, "destinations", outdegree, destinations, comm->size);
      err != MPI_SUCCESS) {
    return err;
  }
  bool weighted_in = false, weighted_out = false;
  if (int err = check_weights(kFunction, *comm, indegree, sourceweights, weighted_in); err != MPI_SUCCESS) return err;
  if (int err = check_weights(kFunction, *comm, outdegree, destweights, weighted_out); err != MPI_SUCCESS) return err;
  return split_with_graph(handle, 0, true, comm_dist_graph, [&](GraphTopology& graph, const Comm&) {
    graph.sources.assign(sources, sources + indegree);
    graph.destinations.assign(destinations, destinations + outdegree);
    graph.weighted = weighted_in || weighted_out;
    if (weighted_in && indegree > 0) graph.source_weights.assign(sourceweights, sourceweights + indegree);
    if (weighted_out && outdegree > 0) graph.destination_weights.assign(destweights, destweights + outdegree);
    graph.source_weights.resize(graph.sources.size());
    graph.destination_weights.resize(graph.destinations.size());
  });
}

// Each edge goes to both its ends as an EdgeRecord (one all-to-all of
// counts, one of records); a rank's neighbours come in the order of the
// ranks that named the edges, then in the order each listed them.
int PMPI_Dist_graph_create(MPI_Comm handle, int n, const int sources[], const int degrees[], const int destinations[],
                           const int weights[], MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  constexpr const char* kFunction = "MPI_Dist_graph_create";
  (void)info;
  (void)reorder;
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (int err = check_intracomm(*comm, kFunction); err != MPI_SUCCESS) return err;
  if (comm_dist_graph == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null comm_dist_graph argument");
  if (int err = check_ranks(kFunction, *comm, "sources", n, sources, comm->size); err != MPI_SUCCESS) return err;
  if (n > 0 && degrees == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null degrees argument");
  int nedges = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0) return raise(comm, MPI_ERR_ARG, kFunction, "negative degree %d", degrees[i]);
    nedges += degrees[i];
  }
  if (int err = check_ranks(kFunction, *comm, "destinations", nedges, destinations, comm->size);
      err != MPI_SUCCESS) {
    return err;
  }
  bool weighted = false;
  if (int err = check_weights(kFunction, *comm, nedges, weights, weighted); err != MPI_SUCCESS) return err;

  const auto size = static_cast<std::size_t>(comm->size);
  std::vector<std::vector<EdgeRecord>> outgoing(size);
  for (int i = 0, edge = 0; i < n; ++i) {
    for (int j = 0; j < degrees[i]; ++j, ++edge) {
      const int weight = weighted ? weights[edge] : 0;
      outgoing[static_cast<std::size_t>(sources[i])].push_back(EdgeRecord{1, destinations[edge], weight});
      outgoing[static_cast<std::size_t>(destinations[edge])].push_back(EdgeRecord{0, sources[i], weight});
    }
  }
  constexpr int kInts = sizeof(EdgeRecord) / sizeof(int);
  std::vector<int> send_counts(size), send_displs(size), recv_counts(size), recv_displs(size);
  std::vector<EdgeRecord> send;
  for (std::size_t r = 0; r < size; ++r) {
    send_displs[r] = static_cast<int>(send.size()) * kInts;
    send_counts[r] = static_cast<int>(outgoing[r].size()) * kInts;
    send.insert(send.end(), outgoing[r].begin(), outgoing[r].end());
  }
  if (int err = PMPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, handle);
      err != MPI_SUCCESS) {
    return err;
  }
  int received = 0;
  for (std::size_t r = 0; r < size; ++r) {
    recv_displs[r] = received;
    received += recv_counts[r];
  }
  std::vector<EdgeRecord> records(static_cast<std::size_t>(received / kInts));
  if (int err = PMPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_INT, records.data(),
                               recv_counts.data(), recv_displs.data(), MPI_INT, handle);
      err != MPI_SUCCESS) {
    return err;
  }
  return split_with_graph(handle, 0, true, comm_dist_graph, [&](GraphTopology& graph, const Comm&) {
    graph.weighted = weighted;
    for (const EdgeRecord& record : records) {
      (record.outgoing != 0 ? graph.destinations : graph.sources).push_back(record.peer);
      (record.outgoing != 0 ? graph.destination_weights : graph.source_weights).push_back(record.weight);
    }
  });
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm handle, int* indegree, int* outdegree, int* weighted) {
  constexpr const char* kFunction = "MPI_Dist_graph_neighbors_count";
  Comm* comm = nullptr;
  const GraphTopology* graph = nullptr;
  if (int err = find_graph(kFunction, handle, true, comm, graph); err != MPI_SUCCESS) return err;
  if (indegree == nullptr || outdegree == nullptr || weighted == nullptr) {
    return raise(comm, MPI_ERR_ARG, kFunction, "null argument");
  }
  *indegree = static_cast<int>(graph->sources.size());
  *outdegree = static_cast<int>(graph->destinations.size());
  *weighted = graph->weighted ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm handle, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[]) {
  constexpr const char* kFunction = "MPI_Dist_graph_neighbors";
  Comm* comm = nullptr;
  const GraphTopology* graph = nullptr;
  if (int err = find_graph(kFunction, handle, true, comm, graph); err != MPI_SUCCESS) return err;
  auto usable = [&](int room, const int* array) { return room >= 0 && (room == 0 || array != nullptr); };
  if (!usable(maxindegree, sources) || !usable(maxoutdegree, destinations)) {
    return raise(comm, MPI_ERR_ARG, kFunction, "invalid maxindegree %d or maxoutdegree %d, or null array",
                 maxindegree, maxoutdegree);
  }
  copy_out(graph->sources, maxindegree, sources);
  copy_out(graph->destinations, maxoutdegree, destinations);
  // Unweighted graphs leave the weight arrays alone (they may be MPI_UNWEIGHTED).
  if (!graph->weighted) return MPI_SUCCESS;
  auto writable = [](const int* weights) {
    return weights != nullptr && weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY;
  };
  if (writable(sourceweights)) copy_out(graph->source_weights, maxindegree, sourceweights);
  if (writable(destweights)) copy_out(graph->destination_weights, maxoutdegree, destweights);
  return MPI_SUCCESS;
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
#pragma weak MPI_Graph_map = PMPI_Graph_map
#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
#pragma weak MPI_Graph_get = PMPI_Graph_get
#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors

}  // extern "C"
