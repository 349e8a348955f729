! Graph and distributed graph topologies and the neighbourhood collectives
! from Fortran: a ring as a graph, a weighted directed ring and an unweighted
! two-way ring as distributed graphs (MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY), and
! a periodic and a non-periodic Cartesian ring; blocking, non-blocking and
! persistent neighbourhood allgather(v) and alltoall(v,w).
#include "forms.h"
program fortran_neighbors
  USE_MPI
  use fortran_check
  implicit none
  INCLUDE_MPIF
  integer :: rank, ranks, left, right, ierror, i, n, nnodes, nedges, indegree, outdegree, newrank, round
  integer :: sources(2), destinations(2), weights_in(1), weights_out(1)
  ! Buffers of non-blocking and persistent calls, read after MPI_F_sync_reg.
  integer, asynchronous :: mine(1), pair(2), got(2), spread(4), contribution(1)
  integer, allocatable :: index(:), edges(:), index_back(:), edges_back(:)
  integer(kind=MPI_ADDRESS_KIND) :: byte_displs(1)
  logical :: weighted
  COMM_T :: graph, directed, twoway, empty, ring, line
  REQUEST_T :: request
  DATATYPE_T :: types(1)

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierror)
  left = mod(rank + ranks - 1, ranks)
  right = mod(rank + 1, ranks)

  ! --- A ring as a graph: node i's neighbours are i-1 and i+1 (on 2 ranks the
  ! same node twice: repeated edges pair up k-th to k-th).
  allocate (index(ranks), edges(2 * ranks), index_back(ranks), edges_back(2 * ranks))
  index = [(2 * i, i = 1, ranks)]
  edges = [(mod(i / 2 + ranks + merge(-1, 1, mod(i, 2) == 0), ranks), i = 0, 2 * ranks - 1)]
  call MPI_Graph_create(MPI_COMM_WORLD, ranks, index, edges, .false., graph, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Graph_create')
  call MPI_Topo_test(graph, i, ierror)
  call check(i == MPI_GRAPH, 'MPI_Topo_test of a graph')
  call MPI_Graphdims_get(graph, nnodes, nedges, ierror)
  call check(nnodes == ranks .and. nedges == 2 * ranks, 'MPI_Graphdims_get')
  call MPI_Graph_get(graph, ranks, 2 * ranks, index_back, edges_back, ierror)
  call check(all(index_back == index) .and. all(edges_back == edges), 'MPI_Graph_get')
  call MPI_Graph_neighbors_count(graph, rank, n, ierror)
  call check(n == 2, 'MPI_Graph_neighbors_count')
  call MPI_Graph_neighbors(graph, rank, 2, pair, ierror)
  call check(all(pair == [left, right]), 'MPI_Graph_neighbors')
  call MPI_Graph_map(MPI_COMM_WORLD, ranks, index, edges, newrank, ierror)
  call check(newrank == rank, 'MPI_Graph_map')
  call MPI_Neighbor_allgather([rank], 1, MPI_INTEGER, got, 1, MPI_INTEGER, graph, ierror)
  call check(all(got == [left, right]), 'MPI_Neighbor_allgather on a graph')
  mine = 10 * rank
  call MPI_Ineighbor_allgather(mine, 1, MPI_INTEGER, got, 1, MPI_INTEGER, graph, request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_F_sync_reg(got)
  call check(all(got == [10 * left, 10 * right]), 'MPI_Ineighbor_allgather on a graph')
  ! Block k goes to neighbour k: a left neighbour sends its second block here.
  pair = [100 * rank, 100 * rank + 1]
  call MPI_Neighbor_alltoall(pair, 1, MPI_INTEGER, got, 1, MPI_INTEGER, graph, ierror)
  call check(all(got == ring_blocks()), 'MPI_Neighbor_alltoall on a graph')
  got = -1
  call MPI_Ineighbor_alltoall(pair, 1, MPI_INTEGER, got, 1, MPI_INTEGER, graph, request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_F_sync_reg(got)
  call check(all(got == ring_blocks()), 'MPI_Ineighbor_alltoall on a graph')
  call MPI_Comm_free(graph, ierror)

  ! --- A weighted directed ring: in from the left, out to the right.
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, [left], [rank + 1], 1, [right], [rank + 10], &
                                      MPI_INFO_NULL, .false., directed, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Dist_graph_create_adjacent')
  call MPI_Topo_test(directed, i, ierror)
  call check(i == MPI_DIST_GRAPH, 'MPI_Topo_test of a distributed graph')
  call MPI_Dist_graph_neighbors_count(directed, indegree, outdegree, weighted, ierror)
  call check(indegree == 1 .and. outdegree == 1 .and. weighted, 'MPI_Dist_graph_neighbors_count weighted')
  call MPI_Dist_graph_neighbors(directed, 1, sources, weights_in, 1, destinations, weights_out, ierror)
  call check(sources(1) == left .and. weights_in(1) == rank + 1 .and. destinations(1) == right .and. &
             weights_out(1) == rank + 10, 'MPI_Dist_graph_neighbors weighted')
  call MPI_Neighbor_alltoall([7 * rank], 1, MPI_INTEGER, got, 1, MPI_INTEGER, directed, ierror)
  call check(got(1) == 7 * left, 'MPI_Neighbor_alltoall on a distributed graph')
  got = -1
  mine = 9 * rank
  call MPI_Ineighbor_alltoall(mine, 1, MPI_INTEGER, got, 1, MPI_INTEGER, directed, request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_F_sync_reg(got)
  call check(got(1) == 9 * left, 'MPI_Ineighbor_alltoall on a distributed graph')
  byte_displs = 0
  types = MPI_INTEGER
  call MPI_Neighbor_alltoallw([3 * rank], [1], byte_displs, types, got, [1], byte_displs, types, directed, ierror)
  call check(got(1) == 3 * left, 'MPI_Neighbor_alltoallw on a distributed graph')
  ! Persistent: one request started twice.
  call MPI_Neighbor_allgather_init(contribution, 1, MPI_INTEGER, got, 1, MPI_INTEGER, directed, MPI_INFO_NULL, &
                                   request, ierror)
  do round = 1, 2
    contribution = round * 1000 + rank
    call MPI_F_sync_reg(contribution)
    call MPI_Start(request, ierror)
    call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
    call MPI_F_sync_reg(got)
    call check(got(1) == round * 1000 + left, 'MPI_Neighbor_allgather_init')
  end do
  call MPI_Request_free(request, ierror)
  call MPI_Comm_free(directed, ierror)

  ! --- An unweighted two-way ring, each rank naming its own edges.
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, [rank], [2], [left, right], MPI_UNWEIGHTED, MPI_INFO_NULL, &
                             .false., twoway, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Dist_graph_create')
  call MPI_Dist_graph_neighbors_count(twoway, indegree, outdegree, weighted, ierror)
  call check(indegree == 2 .and. outdegree == 2 .and. .not. weighted, 'MPI_Dist_graph_neighbors_count')
  call MPI_Dist_graph_neighbors(twoway, 2, sources, MPI_UNWEIGHTED, 2, destinations, MPI_UNWEIGHTED, ierror)
  call check(all(destinations == [left, right]) .and. minval(sources) == min(left, right) .and. &
             maxval(sources) == max(left, right), 'MPI_Dist_graph_neighbors unweighted')
  spread = -1
  call MPI_Neighbor_allgatherv([rank], 1, MPI_INTEGER, spread, [1, 1], [2, 0], MPI_INTEGER, twoway, ierror)
  call check(spread(3) == sources(1) .and. spread(1) == sources(2) .and. spread(2) == -1 .and. spread(4) == -1, &
             'MPI_Neighbor_allgatherv')
  spread = -1
  mine = rank
  call MPI_Ineighbor_allgatherv(mine, 1, MPI_INTEGER, spread, [1, 1], [0, 3], MPI_INTEGER, twoway, request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_F_sync_reg(spread)
  call check(spread(1) == sources(1) .and. spread(4) == sources(2), 'MPI_Ineighbor_allgatherv')
  pair = [100 * rank, 100 * rank + 1]
  spread = -1
  call MPI_Neighbor_alltoallv(pair, [1, 1], [0, 1], MPI_INTEGER, spread, [1, 1], [3, 0], MPI_INTEGER, twoway, &
                              ierror)
  call check(spread(4) == from_source(1) .and. spread(1) == from_source(2), 'MPI_Neighbor_alltoallv')
  spread = -1
  call MPI_Ineighbor_alltoallv(pair, [1, 1], [0, 1], MPI_INTEGER, spread, [1, 1], [1, 2], MPI_INTEGER, twoway, &
                               request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_F_sync_reg(spread)
  call check(spread(2) == from_source(1) .and. spread(3) == from_source(2), 'MPI_Ineighbor_alltoallv')
  call MPI_Comm_free(twoway, ierror)

  ! Weighted with no edges anywhere: every rank gives MPI_WEIGHTS_EMPTY.
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 0, sources, sources, destinations, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, &
                             .false., empty, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Dist_graph_create with MPI_WEIGHTS_EMPTY')
  call MPI_Dist_graph_neighbors_count(empty, indegree, outdegree, weighted, ierror)
  call check(indegree == 0 .and. outdegree == 0 .and. weighted, 'MPI_WEIGHTS_EMPTY makes a weighted graph')
  call MPI_Comm_free(empty, ierror)

  ! --- Cartesian rings: neighbours at -1 then +1 in each dimension.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [ranks], [.true.], .false., ring, ierror)
  call MPI_Neighbor_alltoall(pair, 1, MPI_INTEGER, got, 1, MPI_INTEGER, ring, ierror)
  call check(all(got == [100 * left + 1, 100 * right]), 'MPI_Neighbor_alltoall on a periodic Cartesian ring')
  got = -1
  call MPI_Ineighbor_alltoall(pair, 1, MPI_INTEGER, got, 1, MPI_INTEGER, ring, request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_F_sync_reg(got)
  call check(all(got == [100 * left + 1, 100 * right]), 'MPI_Ineighbor_alltoall on a periodic Cartesian ring')
  got = -1
  call MPI_Neighbor_alltoall_init(pair, 1, MPI_INTEGER, got, 1, MPI_INTEGER, ring, MPI_INFO_NULL, request, ierror)
  call MPI_Start(request, ierror)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierror)
  call MPI_F_sync_reg(got)
  call check(all(got == [100 * left + 1, 100 * right]), 'MPI_Neighbor_alltoall_init on a Cartesian ring')
  call MPI_Request_free(request, ierror)
  call MPI_Comm_free(ring, ierror)
  ! Not periodic: the ends' missing neighbours (MPI_PROC_NULL) leave their blocks alone.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [ranks], [.false.], .false., line, ierror)
  got = -1
  call MPI_Neighbor_alltoall(pair, 1, MPI_INTEGER, got, 1, MPI_INTEGER, line, ierror)
  call check(got(1) == merge(-1, 100 * left + 1, rank == 0) .and. &
             got(2) == merge(-1, 100 * right, rank == ranks - 1), 'MPI_Neighbor_alltoall on a Cartesian line')
  call MPI_Comm_free(line, ierror)

  deallocate (index, edges, index_back, edges_back)
  call report_pass('fortran_neighbors', FORM_NAME)
  call MPI_Finalize(ierror)

contains

  ! What the graph ring's alltoall delivers: on 2 ranks both edges join the
  ! same two nodes, first to first and second to second.
  function ring_blocks() result(blocks)
    integer :: blocks(2)
    if (ranks == 2) then
      blocks = [100 * left, 100 * left + 1]
    else
      blocks = [100 * left + 1, 100 * right]
    end if
  end function ring_blocks

  ! The block the two-way ring's k-th source sent here: a source sends its
  ! first block to its left and its second to its right.
  integer function from_source(k)
    integer, intent(in) :: k
    if (ranks == 2) then
      from_source = 100 * sources(k) + k - 1
    else
      from_source = 100 * sources(k) + merge(1, 0, sources(k) == left)
    end if
  end function from_source
end program fortran_neighbors
