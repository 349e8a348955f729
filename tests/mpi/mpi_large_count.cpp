// MPI 4.0's large-count (_c) calls: each against its int form with small
// counts (point-to-point, datatype constructors and decoding, packing,
// user operations), their count errors, and counts past INT_MAX for real: a
// point-to-point message of 2^31 + 16 bytes (ranks 0 and 1), and a datatype
// of 3 * 10^9 bytes.
#include <sys/mman.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;
int right = 0;
int left = 0;
constexpr int kCount = 100;

std::vector<int> pattern(int count, int seed) {
  std::vector<int> data(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) data[static_cast<std::size_t>(i)] = seed * 7919 + i;
  return data;
}

void check_that(bool ok, const char* what, int line) { tern::mpi_test::check(ok, what, line); }

// What rank `left` sent with the same pattern, as MPI_Get_count and MPI_Get_count_c see it.
void check_received(const std::vector<int>& in, const MPI_Status& status, int tag, const char* what, int line) {
  check_that(in == pattern(kCount, left), what, line);
  check_that(status.MPI_SOURCE == left && status.MPI_TAG == tag, what, line);
  MPI_Count count_c = -1;
  int count = -1;
  check_that(MPI_Get_count_c(&status, MPI_INT, &count_c) == MPI_SUCCESS && count_c == kCount, what, line);
  check_that(MPI_Get_count(&status, MPI_INT, &count) == MPI_SUCCESS && count == count_c, what, line);
}

using BlockingSend = int (*)(const void*, MPI_Count, MPI_Datatype, int, int, MPI_Comm);
using NonblockingSend = int (*)(const void*, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);

// Every send form to the right, its receive posted first (ready sends need
// it), received from the left by MPI_Irecv_c.
void sends() {
  const std::vector<int> out = pattern(kCount, rank);
  std::vector<char> attached(static_cast<std::size_t>(4 * (kCount * sizeof(int) + MPI_BSEND_OVERHEAD)));
  CHECK(MPI_Buffer_attach_c(attached.data(), static_cast<MPI_Count>(attached.size())) == MPI_SUCCESS);
  const BlockingSend blocking[] = {MPI_Send_c, MPI_Ssend_c, MPI_Rsend_c, MPI_Bsend_c};
  const NonblockingSend nonblocking[] = {MPI_Isend_c, MPI_Issend_c, MPI_Irsend_c, MPI_Ibsend_c};
  for (int form = 0; form < 8; ++form) {
    const int tag = 10 + form;
    std::vector<int> in(kCount, -1);
    MPI_Request receive = MPI_REQUEST_NULL, send = MPI_REQUEST_NULL;
    CHECK(MPI_Irecv_c(in.data(), kCount, MPI_INT, left, tag, MPI_COMM_WORLD, &receive) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (form < 4) {
      check_that(blocking[form](out.data(), kCount, MPI_INT, right, tag, MPI_COMM_WORLD) == MPI_SUCCESS,
                 "blocking _c send", __LINE__);
    } else {
      check_that(nonblocking[form - 4](out.data(), kCount, MPI_INT, right, tag, MPI_COMM_WORLD, &send) ==
                     MPI_SUCCESS,
                 "non-blocking _c send", __LINE__);
      CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    MPI_Status status;
    CHECK(MPI_Wait(&receive, &status) == MPI_SUCCESS);
    check_received(in, status, tag, "a _c send received by MPI_Irecv_c", __LINE__);
  }
  void* detached = nullptr;
  MPI_Count detached_size = 0;
  CHECK(MPI_Buffer_detach_c(&detached, &detached_size) == MPI_SUCCESS);
  CHECK(detached == attached.data() && detached_size == static_cast<MPI_Count>(attached.size()));

  // MPI_Recv_c, and a non-contiguous type (every other int) through the packed path.
  std::vector<int> in(kCount, -1);
  MPI_Request send;
  MPI_Status status;
  CHECK(MPI_Isend(out.data(), kCount, MPI_INT, right, 20, MPI_COMM_WORLD, &send) == MPI_SUCCESS);
  CHECK(MPI_Recv_c(in.data(), kCount, MPI_INT, left, 20, MPI_COMM_WORLD, &status) == MPI_SUCCESS);
  CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  check_received(in, status, 20, "MPI_Recv_c", __LINE__);
  MPI_Datatype every_other;
  MPI_Type_vector(kCount / 2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  std::vector<int> spread(kCount, -1);
  CHECK(MPI_Isend_c(out.data(), 1, every_other, right, 21, MPI_COMM_WORLD, &send) == MPI_SUCCESS);
  CHECK(MPI_Recv_c(spread.data(), 1, every_other, left, 21, MPI_COMM_WORLD, &status) == MPI_SUCCESS);
  CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  const std::vector<int> expected = pattern(kCount, left);
  bool spread_ok = true;
  for (int i = 0; i < kCount; ++i) spread_ok &= spread[i] == (i % 2 == 0 ? expected[i] : -1);
  CHECK(spread_ok);
  MPI_Count elements = 0;
  CHECK(MPI_Get_elements_c(&status, every_other, &elements) == MPI_SUCCESS && elements == kCount / 2);
  MPI_Type_free(&every_other);
}

// The persistent forms, each started twice.
void persistent() {
  const std::vector<int> out = pattern(kCount, rank);
  std::vector<char> attached(static_cast<std::size_t>(2 * (kCount * sizeof(int) + MPI_BSEND_OVERHEAD)));
  MPI_Buffer_attach(attached.data(), static_cast<int>(attached.size()));
  using Init = int (*)(const void*, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
  const Init inits[] = {MPI_Send_init_c, MPI_Ssend_init_c, MPI_Rsend_init_c, MPI_Bsend_init_c};
  for (int form = 0; form < 4; ++form) {
    const int tag = 30 + form;
    std::vector<int> in(kCount, -1);
    MPI_Request receive, send;
    CHECK(MPI_Recv_init_c(in.data(), kCount, MPI_INT, left, tag, MPI_COMM_WORLD, &receive) == MPI_SUCCESS);
    check_that(inits[form](out.data(), kCount, MPI_INT, right, tag, MPI_COMM_WORLD, &send) == MPI_SUCCESS,
               "persistent _c send", __LINE__);
    for (int round = 0; round < 2; ++round) {
      std::fill(in.begin(), in.end(), -1);
      CHECK(MPI_Start(&receive) == MPI_SUCCESS);
      MPI_Barrier(MPI_COMM_WORLD);
      CHECK(MPI_Start(&send) == MPI_SUCCESS);
      MPI_Status status;
      CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      CHECK(MPI_Wait(&receive, &status) == MPI_SUCCESS);
      check_received(in, status, tag, "a persistent _c send and MPI_Recv_init_c", __LINE__);
    }
    MPI_Request_free(&receive);
    MPI_Request_free(&send);
  }
  void* detached = nullptr;
  int detached_size = 0;
  MPI_Buffer_detach(&detached, &detached_size);
}

void sendrecvs() {
  const std::vector<int> out = pattern(kCount, rank);
  std::vector<int> in(kCount, -1);
  MPI_Status status;
  CHECK(MPI_Sendrecv_c(out.data(), kCount, MPI_INT, right, 40, in.data(), kCount, MPI_INT, left, 40,
                       MPI_COMM_WORLD, &status) == MPI_SUCCESS);
  check_received(in, status, 40, "MPI_Sendrecv_c", __LINE__);
  in = out;
  CHECK(MPI_Sendrecv_replace_c(in.data(), kCount, MPI_INT, right, 41, left, 41, MPI_COMM_WORLD, &status) ==
        MPI_SUCCESS);
  check_received(in, status, 41, "MPI_Sendrecv_replace_c", __LINE__);
  std::fill(in.begin(), in.end(), -1);
  MPI_Request request;
  CHECK(MPI_Isendrecv_c(out.data(), kCount, MPI_INT, right, 42, in.data(), kCount, MPI_INT, left, 42,
                        MPI_COMM_WORLD, &request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  check_received(in, status, 42, "MPI_Isendrecv_c", __LINE__);
  in = out;
  CHECK(MPI_Isendrecv_replace_c(in.data(), kCount, MPI_INT, right, 43, left, 43, MPI_COMM_WORLD, &request) ==
        MPI_SUCCESS);
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  check_received(in, status, 43, "MPI_Isendrecv_replace_c", __LINE__);
}

void matched_probes() {
  const std::vector<int> out = pattern(kCount, rank);
  for (int form = 0; form < 2; ++form) {
    const int tag = 50 + form;
    MPI_Request send;
    CHECK(MPI_Isend(out.data(), kCount, MPI_INT, right, tag, MPI_COMM_WORLD, &send) == MPI_SUCCESS);
    MPI_Message message;
    MPI_Status status;
    CHECK(MPI_Mprobe(left, tag, MPI_COMM_WORLD, &message, &status) == MPI_SUCCESS);
    std::vector<int> in(kCount, -1);
    if (form == 0) {
      CHECK(MPI_Mrecv_c(in.data(), kCount, MPI_INT, &message, &status) == MPI_SUCCESS);
    } else {
      MPI_Request receive;
      CHECK(MPI_Imrecv_c(in.data(), kCount, MPI_INT, &message, &receive) == MPI_SUCCESS);
      CHECK(MPI_Wait(&receive, &status) == MPI_SUCCESS);
    }
    CHECK(message == MPI_MESSAGE_NULL);
    CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    check_received(in, status, tag, "MPI_Mrecv_c / MPI_Imrecv_c", __LINE__);
  }
}

// Counts the calls refuse: negative, and too large for the bytes to be addressed.
void count_errors() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int value = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Send_c(&value, -1, MPI_INT, right, 60, MPI_COMM_WORLD) == MPI_ERR_COUNT);
  CHECK(MPI_Irecv_c(&value, -5, MPI_INT, left, 60, MPI_COMM_WORLD, &request) == MPI_ERR_COUNT);
  CHECK(MPI_Send_c(&value, LLONG_MAX, MPI_INT, MPI_PROC_NULL, 60, MPI_COMM_WORLD) == MPI_ERR_COUNT);
  CHECK(MPI_Recv_c(&value, LLONG_MAX / 2, MPI_DOUBLE, MPI_PROC_NULL, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
        MPI_ERR_COUNT);
  CHECK(MPI_Send_init_c(&value, -1, MPI_INT, right, 60, MPI_COMM_WORLD, &request) == MPI_ERR_COUNT);
  MPI_Status status;
  CHECK(MPI_Status_set_elements_c(&status, MPI_INT, -1) == MPI_ERR_COUNT);
  CHECK(MPI_Buffer_attach_c(&value, -1) != MPI_SUCCESS);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

// Status queries past INT_MAX without moving the data: the int forms say
// MPI_UNDEFINED, the _c forms the count.
void status_counts() {
  MPI_Status status;
  const MPI_Count big = 3000000000LL;
  CHECK(MPI_Status_set_elements_c(&status, MPI_BYTE, big) == MPI_SUCCESS);
  MPI_Count count_c = 0;
  int count = 0;
  CHECK(MPI_Get_count_c(&status, MPI_BYTE, &count_c) == MPI_SUCCESS && count_c == big);
  CHECK(MPI_Get_elements_c(&status, MPI_BYTE, &count_c) == MPI_SUCCESS && count_c == big);
  CHECK(MPI_Get_count(&status, MPI_BYTE, &count) == MPI_SUCCESS && count == MPI_UNDEFINED);
  CHECK(MPI_Get_elements(&status, MPI_BYTE, &count) == MPI_SUCCESS && count == MPI_UNDEFINED);
  CHECK(MPI_Get_count_c(&status, MPI_SHORT, &count_c) == MPI_SUCCESS && count_c == big / 2);
  CHECK(MPI_Status_set_elements_c(&status, MPI_INT, 7) == MPI_SUCCESS);
  CHECK(MPI_Get_count_c(&status, MPI_INT, &count_c) == MPI_SUCCESS && count_c == 7);
  CHECK(MPI_Get_count(&status, MPI_INT, &count) == MPI_SUCCESS && count == 7);
  CHECK(MPI_Get_count_c(&status, MPI_DOUBLE, &count_c) == MPI_SUCCESS && count_c == MPI_UNDEFINED);

  // An attached buffer larger than an int: MPI_Buffer_detach refuses it and
  // leaves it attached; MPI_Buffer_detach_c returns it. The buffer is only
  // reserved address space: no send uses it.
  void* reserved = mmap(nullptr, static_cast<std::size_t>(big), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
  CHECK(reserved != MAP_FAILED);
  if (reserved == MAP_FAILED) return;
  CHECK(MPI_Buffer_attach_c(reserved, big) == MPI_SUCCESS);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  void* detached = nullptr;
  CHECK(MPI_Buffer_detach(&detached, &count) == MPI_ERR_VALUE_TOO_LARGE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK(MPI_Buffer_detach_c(&detached, &count_c) == MPI_SUCCESS && detached == reserved && count_c == big);
  munmap(reserved, static_cast<std::size_t>(big));
}

// A datatype of 3 * 10^9 bytes: its size and extent in full from the _c
// queries, MPI_UNDEFINED from MPI_Type_size.
void large_type() {
  MPI_Datatype gigabyte, three;
  MPI_Type_contiguous(1000000000, MPI_BYTE, &gigabyte);
  MPI_Type_contiguous(3, gigabyte, &three);
  MPI_Datatype direct;
  CHECK(MPI_Type_contiguous_c(3000000000LL, MPI_BYTE, &direct) == MPI_SUCCESS);
  MPI_Count direct_size = 0, direct_lb = -1, direct_extent = 0;
  CHECK(MPI_Type_size_c(direct, &direct_size) == MPI_SUCCESS && direct_size == 3000000000LL);
  CHECK(MPI_Type_get_extent_c(direct, &direct_lb, &direct_extent) == MPI_SUCCESS && direct_lb == 0 &&
        direct_extent == 3000000000LL);
  MPI_Type_free(&direct);
  MPI_Count type_size = 0, lb = -1, extent = 0;
  CHECK(MPI_Type_size_c(three, &type_size) == MPI_SUCCESS && type_size == 3000000000LL);
  CHECK(MPI_Type_get_extent_c(three, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent == 3000000000LL);
  CHECK(MPI_Type_get_true_extent_c(three, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent == 3000000000LL);
  int int_size = 0;
  CHECK(MPI_Type_size(three, &int_size) == MPI_SUCCESS && int_size == MPI_UNDEFINED);
  MPI_Type_free(&three);
  MPI_Type_free(&gigabyte);
}

// Whether the int-made type `a` and the _c-made type `b` (both freed here)
// have one size, extent and packed image of a source array.
bool same_type(MPI_Datatype a, MPI_Datatype b) {
  MPI_Type_commit(&a);
  MPI_Type_commit(&b);
  int size_a = 0;
  MPI_Count size_b = 0, lb_b = 0, extent_b = 0;
  MPI_Aint lb_a = 0, extent_a = 0;
  MPI_Type_size(a, &size_a);
  MPI_Type_size_c(b, &size_b);
  MPI_Type_get_extent(a, &lb_a, &extent_a);
  MPI_Type_get_extent_c(b, &lb_b, &extent_b);
  bool same = size_a == size_b && lb_a == lb_b && extent_a == extent_b && size_a > 0;
  const std::vector<int> source = pattern(512, 3);
  std::vector<char> packed_a(static_cast<std::size_t>(size_a)), packed_b(static_cast<std::size_t>(size_b));
  int position_a = 0;
  MPI_Count position_b = 0;
  same &= MPI_Pack(source.data(), 1, a, packed_a.data(), size_a, &position_a, MPI_COMM_WORLD) == MPI_SUCCESS;
  same &= MPI_Pack_c(source.data(), 1, b, packed_b.data(), size_b, &position_b, MPI_COMM_WORLD) == MPI_SUCCESS;
  same &= position_a == position_b && packed_a == packed_b;
  // The unpacked image lands where the type says, as with MPI_Unpack.
  std::vector<int> unpacked_a(512, -1), unpacked_b(512, -1);
  position_a = 0;
  position_b = 0;
  same &= MPI_Unpack(packed_a.data(), size_a, &position_a, unpacked_a.data(), 1, a, MPI_COMM_WORLD) == MPI_SUCCESS;
  same &= MPI_Unpack_c(packed_b.data(), size_b, &position_b, unpacked_b.data(), 1, b, MPI_COMM_WORLD) == MPI_SUCCESS;
  same &= unpacked_a == unpacked_b;
  // An int constructor's type has no large counts; a _c one's has nothing else but its old types.
  MPI_Count ints = 0, addresses = 0, large = 0, types = 0;
  int combiner_a = 0, combiner_b = 0;
  same &= MPI_Type_get_envelope_c(a, &ints, &addresses, &large, &types, &combiner_a) == MPI_SUCCESS && large == 0;
  same &= MPI_Type_get_envelope_c(b, &ints, &addresses, &large, &types, &combiner_b) == MPI_SUCCESS && large > 0;
  same &= combiner_a == combiner_b;
  std::vector<int> int_args(static_cast<std::size_t>(ints) + 1);
  std::vector<MPI_Aint> address_args(static_cast<std::size_t>(addresses) + 1);
  std::vector<MPI_Count> large_args(static_cast<std::size_t>(large) + 1);
  std::vector<MPI_Datatype> type_args(static_cast<std::size_t>(types) + 1);
  same &= MPI_Type_get_contents_c(b, ints, addresses, large, types, int_args.data(), address_args.data(),
                                  large_args.data(), type_args.data()) == MPI_SUCCESS;
  for (MPI_Count i = 0; i < types; ++i) {
    int named = 0;
    MPI_Count n1, n2, n3, n4;
    MPI_Type_get_envelope_c(type_args[static_cast<std::size_t>(i)], &n1, &n2, &n3, &n4, &named);
    if (named != MPI_COMBINER_NAMED) MPI_Type_free(&type_args[static_cast<std::size_t>(i)]);
  }
  int n_ints, n_addresses, n_types, combiner;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  same &= MPI_Type_get_envelope(b, &n_ints, &n_addresses, &n_types, &combiner) == MPI_ERR_VALUE_TOO_LARGE;
  same &= MPI_Type_get_contents(b, 0, 0, 0, nullptr, nullptr, nullptr) == MPI_ERR_VALUE_TOO_LARGE;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&a);
  MPI_Type_free(&b);
  return same;
}

void constructors() {
  MPI_Datatype a, b;
  MPI_Type_contiguous(5, MPI_INT, &a);
  MPI_Type_contiguous_c(5, MPI_INT, &b);
  CHECK(same_type(a, b));
  MPI_Type_vector(4, 2, 3, MPI_INT, &a);
  MPI_Type_vector_c(4, 2, 3, MPI_INT, &b);
  CHECK(same_type(a, b));
  MPI_Type_create_hvector(3, 2, 20, MPI_INT, &a);
  MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &b);
  CHECK(same_type(a, b));
  const int lengths[] = {2, 1, 3};
  const int displacements[] = {0, 5, 9};
  const MPI_Aint byte_displacements[] = {0, 20, 36};
  const MPI_Count large_lengths[] = {2, 1, 3};
  const MPI_Count large_displacements[] = {0, 5, 9};
  const MPI_Count large_byte_displacements[] = {0, 20, 36};
  MPI_Type_indexed(3, lengths, displacements, MPI_INT, &a);
  MPI_Type_indexed_c(3, large_lengths, large_displacements, MPI_INT, &b);
  CHECK(same_type(a, b));
  MPI_Type_create_hindexed(3, lengths, byte_displacements, MPI_INT, &a);
  MPI_Type_create_hindexed_c(3, large_lengths, large_byte_displacements, MPI_INT, &b);
  CHECK(same_type(a, b));
  MPI_Type_create_indexed_block(3, 2, displacements, MPI_INT, &a);
  MPI_Type_create_indexed_block_c(3, 2, large_displacements, MPI_INT, &b);
  CHECK(same_type(a, b));
  MPI_Type_create_hindexed_block(3, 2, byte_displacements, MPI_INT, &a);
  MPI_Type_create_hindexed_block_c(3, 2, large_byte_displacements, MPI_INT, &b);
  CHECK(same_type(a, b));
  const MPI_Datatype types[] = {MPI_INT, MPI_SHORT, MPI_INT};
  MPI_Type_create_struct(3, lengths, byte_displacements, types, &a);
  MPI_Type_create_struct_c(3, large_lengths, large_byte_displacements, types, &b);
  CHECK(same_type(a, b));
  MPI_Type_create_resized(MPI_INT, -4, 16, &a);
  MPI_Type_create_resized_c(MPI_INT, -4, 16, &b);
  MPI_Datatype a2, b2;  // resized types as the element of a contiguous run (lb -4 lies inside the source)
  MPI_Type_contiguous(3, a, &a2);
  MPI_Type_contiguous_c(3, b, &b2);
  MPI_Type_free(&a);
  MPI_Type_free(&b);
  MPI_Type_create_hvector(1, 1, 0, a2, &a);
  MPI_Type_create_hvector_c(1, 1, 0, b2, &b);
  MPI_Type_free(&a2);
  MPI_Type_free(&b2);
  MPI_Type_create_resized(a, 0, 64, &a2);
  MPI_Type_create_resized_c(b, 0, 64, &b2);
  MPI_Type_free(&a);
  MPI_Type_free(&b);
  CHECK(same_type(a2, b2));
  const int sizes[] = {6, 8}, subsizes[] = {2, 3}, starts[] = {1, 4};
  const MPI_Count large_sizes[] = {6, 8}, large_subsizes[] = {2, 3}, large_starts[] = {1, 4};
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &a);
  MPI_Type_create_subarray_c(2, large_sizes, large_subsizes, large_starts, MPI_ORDER_C, MPI_INT, &b);
  CHECK(same_type(a, b));
  const int distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
  const int psizes[] = {2, 2};
  MPI_Type_create_darray(4, 3, 2, sizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, MPI_INT, &a);
  MPI_Type_create_darray_c(4, 3, 2, large_sizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, MPI_INT, &b);
  CHECK(same_type(a, b));

  // A vector's large counts in the standard's order: count, blocklength, stride.
  MPI_Type_vector_c(4, 2, 3, MPI_INT, &b);
  MPI_Count large[3] = {0, 0, 0};
  MPI_Datatype old = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_get_contents_c(b, 0, 0, 3, 1, nullptr, nullptr, large, &old) == MPI_SUCCESS);
  CHECK(large[0] == 4 && large[1] == 2 && large[2] == 3 && old == MPI_INT);
  MPI_Type_free(&b);
}

int sum_calls = 0;
MPI_Count sum_length = 0;
void sum_ints_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* datatype) {
  ++sum_calls;
  sum_length = *len;
  if (*datatype != MPI_INT) return;
  for (MPI_Count i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<const int*>(in)[i];
}

void packing_and_reductions() {
  const std::vector<int> values = pattern(kCount, rank);
  int size_int = 0;
  MPI_Count size_c = 0;
  CHECK(MPI_Pack_size(kCount, MPI_INT, MPI_COMM_WORLD, &size_int) == MPI_SUCCESS);
  CHECK(MPI_Pack_size_c(kCount, MPI_INT, MPI_COMM_WORLD, &size_c) == MPI_SUCCESS && size_c == size_int);
  // Past INT_MAX: the int form refuses, the _c form answers.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Pack_size(1000000000, MPI_DOUBLE, MPI_COMM_WORLD, &size_int) == MPI_ERR_VALUE_TOO_LARGE);
  char text[MPI_MAX_ERROR_STRING];
  int length = 0, error_class = 0;
  CHECK(MPI_Error_string(MPI_ERR_VALUE_TOO_LARGE, text, &length) == MPI_SUCCESS &&
        std::strstr(text, "VALUE_TOO_LARGE") != nullptr);
  CHECK(MPI_Error_class(MPI_ERR_VALUE_TOO_LARGE, &error_class) == MPI_SUCCESS &&
        error_class == MPI_ERR_VALUE_TOO_LARGE && MPI_ERR_VALUE_TOO_LARGE <= MPI_ERR_LASTCODE);
  CHECK(MPI_Pack_c(values.data(), -1, MPI_INT, nullptr, 0, &size_c, MPI_COMM_WORLD) == MPI_ERR_COUNT);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK(MPI_Pack_size_c(1000000000, MPI_DOUBLE, MPI_COMM_WORLD, &size_c) == MPI_SUCCESS && size_c == 8000000000LL);

  MPI_Aint external_int = 0;
  MPI_Count external_c = 0;
  CHECK(MPI_Pack_external_size("external32", kCount, MPI_INT, &external_int) == MPI_SUCCESS);
  CHECK(MPI_Pack_external_size_c("external32", kCount, MPI_INT, &external_c) == MPI_SUCCESS &&
        external_c == external_int);
  std::vector<char> packed_int(static_cast<std::size_t>(external_int)), packed_c(packed_int.size());
  MPI_Aint position_int = 0;
  MPI_Count position_c = 0;
  CHECK(MPI_Pack_external("external32", values.data(), kCount, MPI_INT, packed_int.data(), external_int,
                          &position_int) == MPI_SUCCESS);
  CHECK(MPI_Pack_external_c("external32", values.data(), kCount, MPI_INT, packed_c.data(), external_c,
                            &position_c) == MPI_SUCCESS);
  CHECK(position_c == position_int && packed_c == packed_int);
  std::vector<int> unpacked(kCount, -1);
  position_c = 0;
  CHECK(MPI_Unpack_external_c("external32", packed_c.data(), external_c, &position_c, unpacked.data(), kCount,
                              MPI_INT) == MPI_SUCCESS);
  CHECK(unpacked == values && position_c == external_c);

  // A large-count user operation: called with the whole length, locally and in a collective.
  MPI_Op sum;
  CHECK(MPI_Op_create_c(sum_ints_c, 1, &sum) == MPI_SUCCESS);
  std::vector<int> local = values, reference = values;
  CHECK(MPI_Reduce_local_c(values.data(), local.data(), kCount, MPI_INT, sum) == MPI_SUCCESS);
  CHECK(sum_calls == 1 && sum_length == kCount);
  CHECK(MPI_Reduce_local(values.data(), reference.data(), kCount, MPI_INT, MPI_SUM) == MPI_SUCCESS);
  CHECK(local == reference);
  std::vector<int> total(kCount), expected(kCount);
  CHECK(MPI_Allreduce(values.data(), total.data(), kCount, MPI_INT, sum, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Allreduce(values.data(), expected.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(total == expected);
  MPI_Op_free(&sum);
}

// 2^31 + 16 bytes from rank 0 to rank 1. The sender touches only the pages
// it marks (the rest of its buffer reads as zeros without taking memory);
// the receiver fills its buffer first, so zeros prove the data arrived.
void large_message() {
  if (size < 2 || rank > 1) return;
  constexpr std::size_t kBytes = (std::size_t{1} << 31) + 16;
  constexpr std::size_t kStride = std::size_t{1} << 26;  // a mark every 64 MiB
  auto* buffer = static_cast<unsigned char*>(std::malloc(kBytes));
  CHECK(buffer != nullptr);
  if (buffer == nullptr) return;
  auto mark = [](std::size_t offset) { return static_cast<unsigned char>(0x11 + offset / kStride * 7); };
  if (rank == 0) {
    for (std::size_t offset = 0; offset < kBytes; offset += kStride) buffer[offset] = mark(offset);
    for (std::size_t offset = kBytes - 16; offset < kBytes; ++offset) buffer[offset] = static_cast<unsigned char>(offset);
    CHECK(MPI_Send_c(buffer, static_cast<MPI_Count>(kBytes), MPI_BYTE, 1, 70, MPI_COMM_WORLD) == MPI_SUCCESS);
  } else {
    std::memset(buffer, 0xA5, kBytes);
    MPI_Status status;
    CHECK(MPI_Recv_c(buffer, static_cast<MPI_Count>(kBytes), MPI_BYTE, 0, 70, MPI_COMM_WORLD, &status) ==
          MPI_SUCCESS);
    bool marks = true, zeros = true, tail = true;
    for (std::size_t offset = 0; offset < kBytes - 16; offset += kStride) {
      marks &= buffer[offset] == mark(offset);
      zeros &= buffer[offset + 1] == 0 && buffer[offset + kStride / 2] == 0 && buffer[offset + kStride - 1] == 0;
    }
    for (std::size_t offset = kBytes - 16; offset < kBytes; ++offset) {
      tail &= buffer[offset] == static_cast<unsigned char>(offset);
    }
    CHECK(marks);
    CHECK(zeros);
    CHECK(tail);
    MPI_Count count_c = 0;
    int count = 0;
    CHECK(MPI_Get_count_c(&status, MPI_BYTE, &count_c) == MPI_SUCCESS && count_c == static_cast<MPI_Count>(kBytes));
    CHECK(MPI_Get_elements_c(&status, MPI_BYTE, &count_c) == MPI_SUCCESS &&
          count_c == static_cast<MPI_Count>(kBytes));
    CHECK(MPI_Get_count(&status, MPI_BYTE, &count) == MPI_SUCCESS && count == MPI_UNDEFINED);
    CHECK(MPI_Get_elements(&status, MPI_BYTE, &count) == MPI_SUCCESS && count == MPI_UNDEFINED);
  }
  std::free(buffer);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank - 1 + size) % size;
  sends();
  persistent();
  sendrecvs();
  matched_probes();
  count_errors();
  status_counts();
  constructors();
  packing_and_reductions();
  large_type();
  large_message();
  const int rc = tern::mpi_test::conclude("mpi_large_count");
  MPI_Finalize();
  return rc;
}
