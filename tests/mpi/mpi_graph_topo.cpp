// Graph and distributed graph topologies against the graphs as built:
// MPI_Graph_create on a ring (with repeated edges and self loops at 1 and 2
// ranks) and on fewer nodes than ranks, every query of it, Graph_map;
// MPI_Dist_graph_create_adjacent weighted and unweighted; MPI_Dist_graph_create
// with the edges given by one rank and by each rank, MPI_WEIGHTS_EMPTY;
// Topo_test, duplicates keeping the topology, and the errors. Ranks are not
// reordered, so a topology's ranks are the world's.
#include <algorithm>
#include <utility>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

int topo_of(MPI_Comm comm) {
  int status = -1;
  MPI_Topo_test(comm, &status);
  return status;
}

// Node r of a ring: r - 1, then r + 1 (the same rank twice at 2 ranks, itself twice at 1).
std::vector<int> ring_neighbours(int r, int nodes) { return {(r + nodes - 1) % nodes, (r + 1) % nodes}; }

void graph_ring() {
  std::vector<int> index, edges;
  for (int r = 0; r < size; ++r) {
    for (int n : ring_neighbours(r, size)) edges.push_back(n);
    index.push_back(static_cast<int>(edges.size()));
  }
  MPI_Comm graph = MPI_COMM_NULL;
  CHECK(MPI_Graph_create(MPI_COMM_WORLD, size, index.data(), edges.data(), 0, &graph) == MPI_SUCCESS);
  CHECK(graph != MPI_COMM_NULL);
  CHECK(topo_of(graph) == MPI_GRAPH);
  int graph_rank = -1;
  MPI_Comm_rank(graph, &graph_rank);
  CHECK(graph_rank == rank);
  int nnodes = -1, nedges = -1;
  CHECK(MPI_Graphdims_get(graph, &nnodes, &nedges) == MPI_SUCCESS);
  CHECK(nnodes == size && nedges == 2 * size);
  std::vector<int> got_index(static_cast<std::size_t>(size), -1), got_edges(edges.size(), -1);
  CHECK(MPI_Graph_get(graph, size, static_cast<int>(edges.size()), got_index.data(), got_edges.data()) ==
        MPI_SUCCESS);
  CHECK(got_index == index && got_edges == edges);
  for (int r = 0; r < size; ++r) {
    int count = -1;
    CHECK(MPI_Graph_neighbors_count(graph, r, &count) == MPI_SUCCESS && count == 2);
    std::vector<int> neighbours(2, -1);
    CHECK(MPI_Graph_neighbors(graph, r, 2, neighbours.data()) == MPI_SUCCESS);
    CHECK(neighbours == ring_neighbours(r, size));
  }
  int newrank = -2;
  CHECK(MPI_Graph_map(MPI_COMM_WORLD, size, index.data(), edges.data(), &newrank) == MPI_SUCCESS);
  CHECK(newrank == rank);

  // A duplicate keeps the graph.
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(graph, &dup);
  CHECK(topo_of(dup) == MPI_GRAPH);
  std::vector<int> neighbours(2, -1);
  CHECK(MPI_Graph_neighbors(dup, rank, 2, neighbours.data()) == MPI_SUCCESS);
  CHECK(neighbours == ring_neighbours(rank, size));
  MPI_Comm_free(&dup);
  MPI_Comm_free(&graph);
}

// A star on the first size - 1 ranks (node 0 the hub); the last rank is left out.
void graph_fewer_nodes() {
  if (size < 2) return;
  const int nodes = size - 1;
  std::vector<int> index, edges;
  edges.reserve(1);  // non-null even without edges
  for (int r = 1; r < nodes; ++r) edges.push_back(r);
  index.push_back(static_cast<int>(edges.size()));
  for (int r = 1; r < nodes; ++r) {
    edges.push_back(0);
    index.push_back(static_cast<int>(edges.size()));
  }
  MPI_Comm graph = MPI_COMM_NULL;
  CHECK(MPI_Graph_create(MPI_COMM_WORLD, nodes, index.data(), edges.data(), 0, &graph) == MPI_SUCCESS);
  int newrank = -2;
  CHECK(MPI_Graph_map(MPI_COMM_WORLD, nodes, index.data(), edges.data(), &newrank) == MPI_SUCCESS);
  if (rank == size - 1) {
    CHECK(graph == MPI_COMM_NULL);
    CHECK(newrank == MPI_UNDEFINED);
    return;
  }
  CHECK(newrank == rank);
  CHECK(graph != MPI_COMM_NULL);
  int graph_size = 0;
  MPI_Comm_size(graph, &graph_size);
  CHECK(graph_size == nodes);
  int nnodes = -1, nedges = -1;
  MPI_Graphdims_get(graph, &nnodes, &nedges);
  CHECK(nnodes == nodes && nedges == 2 * (nodes - 1));
  int count = -1;
  MPI_Graph_neighbors_count(graph, rank, &count);
  CHECK(count == (rank == 0 ? nodes - 1 : 1));
  std::vector<int> neighbours(static_cast<std::size_t>(std::max(count, 1)), -1);
  MPI_Graph_neighbors(graph, rank, count, neighbours.data());
  if (rank == 0) {
    for (int i = 0; i < count; ++i) CHECK(neighbours[static_cast<std::size_t>(i)] == i + 1);
  } else {
    CHECK(neighbours[0] == 0);
  }
  MPI_Comm_free(&graph);
}

// Sorted (neighbour, weight) pairs: MPI_Dist_graph_create's order is the implementation's.
using Edges = std::vector<std::pair<int, int>>;
Edges sorted(Edges edges) {
  std::sort(edges.begin(), edges.end());
  return edges;
}

struct DistView {
  std::vector<int> sources, source_weights, destinations, destination_weights;
  int weighted = -1;
};

DistView dist_view(MPI_Comm comm) {
  DistView view;
  int indegree = -1, outdegree = -1;
  CHECK(MPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &view.weighted) == MPI_SUCCESS);
  view.sources.assign(static_cast<std::size_t>(indegree), -1);
  view.source_weights.assign(static_cast<std::size_t>(indegree), -1);
  view.destinations.assign(static_cast<std::size_t>(outdegree), -1);
  view.destination_weights.assign(static_cast<std::size_t>(outdegree), -1);
  // Arrays of at least one element, so no data() is null.
  view.sources.reserve(1);
  view.source_weights.reserve(1);
  view.destinations.reserve(1);
  view.destination_weights.reserve(1);
  if (view.weighted != 0) {
    CHECK(MPI_Dist_graph_neighbors(comm, indegree, view.sources.data(), view.source_weights.data(), outdegree,
                                   view.destinations.data(), view.destination_weights.data()) == MPI_SUCCESS);
  } else {
    CHECK(MPI_Dist_graph_neighbors(comm, indegree, view.sources.data(), MPI_UNWEIGHTED, outdegree,
                                   view.destinations.data(), MPI_UNWEIGHTED) == MPI_SUCCESS);
  }
  return view;
}

Edges zip(const std::vector<int>& ranks, const std::vector<int>& weights) {
  Edges edges;
  for (std::size_t i = 0; i < ranks.size(); ++i) edges.emplace_back(ranks[i], weights[i]);
  return edges;
}

// Out-edges of rank r in an irregular graph: r + 1 always, r + 2 from even
// ranks, a self loop at rank 0; weight 10 * source + destination.
std::vector<int> irregular_out(int r) {
  std::vector<int> out = {(r + 1) % size};
  if (r % 2 == 0) out.push_back((r + 2) % size);
  if (r == 0) out.push_back(0);
  return out;
}
Edges irregular_in_edges(int r) {
  Edges in;
  for (int s = 0; s < size; ++s) {
    for (int d : irregular_out(s)) {
      if (d == r) in.emplace_back(s, 10 * s + d);
    }
  }
  return in;
}
Edges irregular_out_edges(int r) {
  Edges out;
  for (int d : irregular_out(r)) out.emplace_back(d, 10 * r + d);
  return out;
}

void dist_adjacent() {
  // Weighted, in the order given.
  std::vector<int> sources, source_weights, destinations, destination_weights;
  for (const auto& [s, w] : irregular_in_edges(rank)) {
    sources.push_back(s);
    source_weights.push_back(w);
  }
  for (const auto& [d, w] : irregular_out_edges(rank)) {
    destinations.push_back(d);
    destination_weights.push_back(w);
  }
  MPI_Comm dist = MPI_COMM_NULL;
  CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(sources.size()), sources.data(),
                                       source_weights.data(), static_cast<int>(destinations.size()),
                                       destinations.data(), destination_weights.data(), MPI_INFO_NULL, 0,
                                       &dist) == MPI_SUCCESS);
  CHECK(topo_of(dist) == MPI_DIST_GRAPH);
  const DistView view = dist_view(dist);
  CHECK(view.weighted == 1);
  CHECK(view.sources == sources && view.source_weights == source_weights);
  CHECK(view.destinations == destinations && view.destination_weights == destination_weights);
  // Graph queries are for MPI_GRAPH communicators only.
  MPI_Comm_set_errhandler(dist, MPI_ERRORS_RETURN);
  int nnodes = 0, nedges = 0;
  CHECK(MPI_Graphdims_get(dist, &nnodes, &nedges) != MPI_SUCCESS);
  MPI_Comm_free(&dist);

  // Unweighted: a ring, in both directions.
  const std::vector<int> ring = ring_neighbours(rank, size);
  CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, ring.data(), MPI_UNWEIGHTED, 2, ring.data(),
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist) == MPI_SUCCESS);
  const DistView ring_view = dist_view(dist);
  CHECK(ring_view.weighted == 0);
  CHECK(ring_view.sources == ring && ring_view.destinations == ring);
  MPI_Comm_free(&dist);
}

void dist_general() {
  // Rank 0 names every edge; the others none (weights: MPI_WEIGHTS_EMPTY).
  std::vector<int> sources, degrees, destinations, weights;
  if (rank == 0) {
    for (int s = 0; s < size; ++s) {
      sources.push_back(s);
      degrees.push_back(static_cast<int>(irregular_out(s).size()));
      for (const auto& [d, w] : irregular_out_edges(s)) {
        destinations.push_back(d);
        weights.push_back(w);
      }
    }
  }
  MPI_Comm dist = MPI_COMM_NULL;
  CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, static_cast<int>(sources.size()), sources.data(), degrees.data(),
                              destinations.data(), rank == 0 ? weights.data() : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0,
                              &dist) == MPI_SUCCESS);
  CHECK(topo_of(dist) == MPI_DIST_GRAPH);
  DistView view = dist_view(dist);
  CHECK(view.weighted == 1);
  CHECK(sorted(zip(view.sources, view.source_weights)) == sorted(irregular_in_edges(rank)));
  CHECK(sorted(zip(view.destinations, view.destination_weights)) == sorted(irregular_out_edges(rank)));
  MPI_Comm_free(&dist);

  // Each rank names its own out-edges, two sources at once (the second with no edges).
  const std::vector<int> own = irregular_out(rank);
  const int own_sources[2] = {rank, rank};
  const int own_degrees[2] = {static_cast<int>(own.size()), 0};
  std::vector<int> own_weights;
  for (const auto& edge : irregular_out_edges(rank)) own_weights.push_back(edge.second);
  CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, own_sources, own_degrees, own.data(), own_weights.data(),
                              MPI_INFO_NULL, 0, &dist) == MPI_SUCCESS);
  view = dist_view(dist);
  CHECK(view.weighted == 1);
  CHECK(sorted(zip(view.sources, view.source_weights)) == sorted(irregular_in_edges(rank)));
  CHECK(zip(view.destinations, view.destination_weights) == irregular_out_edges(rank));

  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(dist, &dup);
  CHECK(topo_of(dup) == MPI_DIST_GRAPH);
  const DistView dup_view = dist_view(dup);
  CHECK(dup_view.sources == view.sources && dup_view.destination_weights == view.destination_weights);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&dist);

  // Unweighted, each rank the edges into it (sources name the other end).
  std::vector<int> into, ones;
  for (const auto& edge : irregular_in_edges(rank)) {
    into.push_back(edge.first);
    ones.push_back(1);
  }
  std::vector<int> single_dest(into.size(), rank);
  CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, static_cast<int>(into.size()), into.data(), ones.data(),
                              single_dest.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist) == MPI_SUCCESS);
  view = dist_view(dist);
  CHECK(view.weighted == 0);
  std::vector<int> expected_out = irregular_out(rank), got_out = view.destinations, got_in = view.sources;
  std::vector<int> expected_in = into;
  std::sort(expected_out.begin(), expected_out.end());
  std::sort(got_out.begin(), got_out.end());
  std::sort(expected_in.begin(), expected_in.end());
  std::sort(got_in.begin(), got_in.end());
  CHECK(got_out == expected_out && got_in == expected_in);
  MPI_Comm_free(&dist);
}

int error_class(int code) {
  int error = -1;
  MPI_Error_class(code, &error);
  return error;
}

void errors() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int nnodes = 0, nedges = 0, indegree = 0, outdegree = 0, weighted = 0, count = 0;
  CHECK(error_class(MPI_Graphdims_get(MPI_COMM_WORLD, &nnodes, &nedges)) == MPI_ERR_TOPOLOGY);
  CHECK(error_class(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &count)) == MPI_ERR_TOPOLOGY);
  CHECK(error_class(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &indegree, &outdegree, &weighted)) ==
        MPI_ERR_TOPOLOGY);
  CHECK(topo_of(MPI_COMM_WORLD) == MPI_UNDEFINED);
  // Malformed graphs: more nodes than ranks, a decreasing index, an edge to
  // no node, a destination outside the communicator, a negative weight.
  MPI_Comm made = MPI_COMM_NULL;
  const int index[2] = {1, 2}, decreasing[2] = {2, 1}, fine[2] = {0, 0};
  CHECK(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, fine, 0, &made) != MPI_SUCCESS);
  if (size >= 2) CHECK(MPI_Graph_create(MPI_COMM_WORLD, 2, decreasing, fine, 0, &made) != MPI_SUCCESS);
#ifdef TERN_MPI
  // Tern checks the edges too (MPICH takes these as they are).
  const int outside = size, negative = -1, zero = 0;
  CHECK(MPI_Graph_create(MPI_COMM_WORLD, 1, index, &outside, 0, &made) != MPI_SUCCESS);
  CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, nullptr, MPI_UNWEIGHTED, 1, &outside, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &made) != MPI_SUCCESS);
  CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, &negative, 0, nullptr, MPI_WEIGHTS_EMPTY,
                                       MPI_INFO_NULL, 0, &made) != MPI_SUCCESS);
#endif
  CHECK(made == MPI_COMM_NULL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  graph_ring();
  graph_fewer_nodes();
  dist_adjacent();
  dist_general();
  errors();
  const int code = tern::mpi_test::conclude("mpi_graph_topo");
  MPI_Finalize();
  return code;
}
