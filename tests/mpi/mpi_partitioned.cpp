// MPI 4.0 partitioned communication: ranks pair up (even sends, odd
// receives, then the other way round), over equal and different
// partitionings, Pready in reverse and random order and by range and list,
// MPI_Parrived polled per partition with the data checked as it lands,
// partitions that leave before the others are ready, 50 epochs, derived
// datatypes, MPI_PROC_NULL, concurrent Pready from threads, and the errors.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "check.hpp"

namespace {

int g_rank = 0;
int g_size = 0;
int g_partner = MPI_PROC_NULL;  // rank ^ 1, none for a last odd rank

// Polls MPI_Parrived on every partition until each has arrived, checking
// each one's data with `check(partition)` the moment it lands.
template <typename Check>
void poll_arrivals(MPI_Request request, int partitions, Check&& check) {
  std::vector<bool> seen(static_cast<std::size_t>(partitions), false);
  int left = partitions;
  while (left > 0) {
    for (int p = 0; p < partitions; ++p) {
      if (seen[p]) continue;
      int flag = 0;
      CHECK(MPI_Parrived(request, p, &flag) == MPI_SUCCESS);
      if (!flag) continue;
      seen[p] = true;
      --left;
      check(p);
    }
  }
}

// One epoch of `send_partitions` x `send_count` ints into `recv_partitions`
// x `recv_count` ints (equal totals), Pready in the order `order` gives.
void transfer(bool sender, int send_partitions, int send_count, int recv_partitions, int recv_count,
              const std::vector<int>& order, int tag) {
  const int total = send_partitions * send_count;
  if (sender) {
    std::vector<int> data(static_cast<std::size_t>(total));
    MPI_Request request = MPI_REQUEST_NULL;
    CHECK(MPI_Psend_init(data.data(), send_partitions, send_count, MPI_INT, g_partner, tag, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &request) == MPI_SUCCESS);
    CHECK(MPI_Start(&request) == MPI_SUCCESS);
    for (int p : order) {
      for (int i = 0; i < send_count; ++i) data[p * send_count + i] = tag * 10000 + p * send_count + i;
      CHECK(MPI_Pready(p, request) == MPI_SUCCESS);
    }
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(request != MPI_REQUEST_NULL);  // persistent: inactive, not freed
    CHECK(MPI_Request_free(&request) == MPI_SUCCESS);
    CHECK(request == MPI_REQUEST_NULL);
    return;
  }
  std::vector<int> data(static_cast<std::size_t>(total), -1);
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Precv_init(data.data(), recv_partitions, recv_count, MPI_INT, g_partner, tag, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &request) == MPI_SUCCESS);
  CHECK(MPI_Start(&request) == MPI_SUCCESS);
  int bad = 0;
  poll_arrivals(request, recv_partitions, [&](int p) {
    for (int i = 0; i < recv_count; ++i) {
      const int at = p * recv_count + i;
      if (data[at] != tag * 10000 + at) ++bad;
    }
  });
  CHECK(bad == 0);
  MPI_Status status;
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  CHECK(status.MPI_SOURCE == g_partner && status.MPI_TAG == tag);
  int count = -1;
  CHECK(MPI_Get_count(&status, MPI_INT, &count) == MPI_SUCCESS && count == total);
  int flag = 0;
  CHECK(MPI_Parrived(request, 0, &flag) == MPI_SUCCESS && flag == 1);  // inactive
  CHECK(MPI_Request_free(&request) == MPI_SUCCESS);
}

std::vector<int> reversed(int n) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.rbegin(), order.rend(), 0);
  return order;
}

std::vector<int> shuffled(int n, unsigned seed) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 random(seed);
  std::shuffle(order.begin(), order.end(), random);
  return order;
}

void test_partitionings(bool sender) {
  transfer(sender, 8, 16, 8, 16, reversed(8), 1);
  transfer(sender, 8, 12, 2, 48, shuffled(8, 7), 2);
  transfer(sender, 3, 20, 6, 10, shuffled(3, 11), 3);
  transfer(sender, 1, 5, 5, 1, {0}, 4);
  transfer(sender, 5, 1, 1, 5, reversed(5), 5);
  transfer(sender, 4, 0, 2, 0, {1, 3, 0, 2}, 6);  // no data at all
  transfer(sender, 4, 65536, 2, 131072, shuffled(4, 3), 7);  // 256 KiB partitions: rendezvous
}

// Partitions 0-3 must arrive while the sender still holds 4-7 back: it
// releases them only once the receiver has seen the first half, in the
// first epoch (through the handshake) and in a later one.
void test_early_partitions(bool sender) {
  constexpr int kPartitions = 8, kCount = 64, kTag = 20;
  std::vector<int> data(kPartitions * kCount, -1);
  MPI_Request request = MPI_REQUEST_NULL;
  if (sender) {
    CHECK(MPI_Psend_init(data.data(), kPartitions, kCount, MPI_INT, g_partner, kTag, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &request) == MPI_SUCCESS);
  } else {
    CHECK(MPI_Precv_init(data.data(), kPartitions, kCount, MPI_INT, g_partner, kTag, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &request) == MPI_SUCCESS);
  }
  for (int epoch = 0; epoch < 2; ++epoch) {
    CHECK(MPI_Start(&request) == MPI_SUCCESS);
    if (sender) {
      for (int i = 0; i < kPartitions * kCount; ++i) data[i] = epoch * 100000 + i;
      CHECK(MPI_Pready_range(0, 3, request) == MPI_SUCCESS);
      int go = 0;
      CHECK(MPI_Recv(&go, 1, MPI_INT, g_partner, kTag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      CHECK(go == 1);
      CHECK(MPI_Pready_range(4, 7, request) == MPI_SUCCESS);
    } else {
      for (int p = 0; p < 4; ++p) {
        int flag = 0;
        while (!flag) CHECK(MPI_Parrived(request, p, &flag) == MPI_SUCCESS);
        CHECK(data[p * kCount] == epoch * 100000 + p * kCount);
        CHECK(data[p * kCount + kCount - 1] == epoch * 100000 + p * kCount + kCount - 1);
      }
      int flag = 1;
      CHECK(MPI_Parrived(request, 7, &flag) == MPI_SUCCESS && flag == 0);  // held back still
      const int go = 1;
      CHECK(MPI_Send(&go, 1, MPI_INT, g_partner, kTag + 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    }
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    if (!sender) CHECK(data[kPartitions * kCount - 1] == epoch * 100000 + kPartitions * kCount - 1);
  }
  CHECK(MPI_Request_free(&request) == MPI_SUCCESS);
}

// 50 epochs with new data each, Pready_range and Pready_list, completed by
// Wait, a Test loop, Waitall, Waitany, Testsome and Startall in turn.
void test_epochs(bool sender) {
  constexpr int kPartitions = 10, kCount = 24, kTag = 30, kEpochs = 50;
  std::vector<int> data(kPartitions * kCount, -1);
  MPI_Request request = MPI_REQUEST_NULL;
  if (sender) {
    CHECK(MPI_Psend_init(data.data(), kPartitions, kCount, MPI_INT, g_partner, kTag, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &request) == MPI_SUCCESS);
  } else {
    // Received in 5 partitions of 48: each takes two send partitions.
    CHECK(MPI_Precv_init(data.data(), 5, 2 * kCount, MPI_INT, g_partner, kTag, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &request) == MPI_SUCCESS);
  }
  int bad = 0;
  for (int epoch = 0; epoch < kEpochs; ++epoch) {
    if (epoch % 2 == 0) {
      CHECK(MPI_Start(&request) == MPI_SUCCESS);
    } else {
      CHECK(MPI_Startall(1, &request) == MPI_SUCCESS);
    }
    if (sender) {
      for (int i = 0; i < kPartitions * kCount; ++i) data[i] = epoch * 1000 + i;
      const int list[] = {9, 7, 5, 8, 6};
      CHECK(MPI_Pready_list(5, list, request) == MPI_SUCCESS);
      CHECK(MPI_Pready_range(0, 4, request) == MPI_SUCCESS);
    } else {
      poll_arrivals(request, 5, [&](int p) {
        for (int i = 0; i < 2 * kCount; ++i) {
          const int at = p * 2 * kCount + i;
          if (data[at] != epoch * 1000 + at) ++bad;
        }
      });
    }
    switch (epoch % 6) {
      case 0: CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS); break;
      case 1: {
        int flag = 0;
        while (!flag) CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        break;
      }
      case 2: CHECK(MPI_Waitall(1, &request, MPI_STATUSES_IGNORE) == MPI_SUCCESS); break;
      case 3: {
        int index = -1;
        CHECK(MPI_Waitany(1, &request, &index, MPI_STATUS_IGNORE) == MPI_SUCCESS && index == 0);
        break;
      }
      case 4: {
        int outcount = 0, index = -1;
        while (outcount == 0) CHECK(MPI_Testsome(1, &request, &outcount, &index, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(outcount == 1 && index == 0);
        break;
      }
      default: {
        int flag = 0;
        while (!flag) CHECK(MPI_Testall(1, &request, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        int status_flag = 0;
        CHECK(MPI_Request_get_status(request, &status_flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && status_flag);
        break;
      }
    }
    CHECK(request != MPI_REQUEST_NULL);
  }
  CHECK(bad == 0);
  CHECK(MPI_Request_free(&request) == MPI_SUCCESS);
}

// A strided type on one side, plain ints on the other, partitioned apart.
void test_derived(bool sender) {
  constexpr int kTag = 40;
  MPI_Datatype pair_stride;  // 2 ints, 3 apart: holes between them
  CHECK(MPI_Type_vector(2, 1, 3, MPI_INT, &pair_stride) == MPI_SUCCESS);
  MPI_Datatype strided;  // extent 6 ints, so instances do not overlap
  CHECK(MPI_Type_create_resized(pair_stride, 0, 6 * sizeof(int), &strided) == MPI_SUCCESS);
  CHECK(MPI_Type_commit(&strided) == MPI_SUCCESS);
  // 4 partitions of 3 strided elements = 24 ints; the plain side has 2 x 12.
  constexpr int kElements = 12;
  for (int round = 0; round < 2; ++round) {
    const bool strided_side = (round == 0) == sender;  // round 0: sender strided; 1: receiver
    std::vector<int> layout(kElements * 6, -7);
    std::vector<int> plain(24, -7);
    MPI_Request request = MPI_REQUEST_NULL;
    if (sender) {
      if (strided_side) {
        for (int e = 0; e < kElements; ++e) {
          layout[e * 6] = 2 * e + round * 100;
          layout[e * 6 + 3] = 2 * e + 1 + round * 100;
        }
        CHECK(MPI_Psend_init(layout.data(), 4, 3, strided, g_partner, kTag + round, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &request) == MPI_SUCCESS);
      } else {
        std::iota(plain.begin(), plain.end(), round * 100);
        CHECK(MPI_Psend_init(plain.data(), 2, 12, MPI_INT, g_partner, kTag + round, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &request) == MPI_SUCCESS);
      }
      CHECK(MPI_Start(&request) == MPI_SUCCESS);
      const int partitions = strided_side ? 4 : 2;
      for (int p : reversed(partitions)) CHECK(MPI_Pready(p, request) == MPI_SUCCESS);
      CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
      int bad = 0;
      if (strided_side) {
        // 3 partitions of 4 strided elements.
        CHECK(MPI_Precv_init(layout.data(), 3, 4, strided, g_partner, kTag + round, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &request) == MPI_SUCCESS);
        CHECK(MPI_Start(&request) == MPI_SUCCESS);
        poll_arrivals(request, 3, [&](int p) {
          for (int e = p * 4; e < p * 4 + 4; ++e) {
            if (layout[e * 6] != 2 * e + round * 100 || layout[e * 6 + 3] != 2 * e + 1 + round * 100) ++bad;
            if (layout[e * 6 + 1] != -7 || layout[e * 6 + 5] != -7) ++bad;  // holes untouched
          }
        });
      } else {
        CHECK(MPI_Precv_init(plain.data(), 6, 4, MPI_INT, g_partner, kTag + round, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &request) == MPI_SUCCESS);
        CHECK(MPI_Start(&request) == MPI_SUCCESS);
        poll_arrivals(request, 6, [&](int p) {
          for (int i = p * 4; i < p * 4 + 4; ++i) {
            if (plain[i] != i + round * 100) ++bad;
          }
        });
      }
      CHECK(bad == 0);
      CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    CHECK(MPI_Request_free(&request) == MPI_SUCCESS);
  }
  CHECK(MPI_Type_free(&strided) == MPI_SUCCESS);
  CHECK(MPI_Type_free(&pair_stride) == MPI_SUCCESS);
}

void test_proc_null() {
  int data[8] = {};
  MPI_Request send = MPI_REQUEST_NULL, recv = MPI_REQUEST_NULL;
  CHECK(MPI_Psend_init(data, 4, 2, MPI_INT, MPI_PROC_NULL, 50, MPI_COMM_WORLD, MPI_INFO_NULL, &send) ==
        MPI_SUCCESS);
  CHECK(MPI_Precv_init(data, 2, 4, MPI_INT, MPI_PROC_NULL, 50, MPI_COMM_WORLD, MPI_INFO_NULL, &recv) ==
        MPI_SUCCESS);
  for (int epoch = 0; epoch < 3; ++epoch) {
    MPI_Request both[2] = {send, recv};
    CHECK(MPI_Startall(2, both) == MPI_SUCCESS);
    CHECK(MPI_Pready_range(0, 3, send) == MPI_SUCCESS);
    int flag = 0;
    CHECK(MPI_Parrived(recv, 1, &flag) == MPI_SUCCESS && flag == 1);
    MPI_Status statuses[2];
    CHECK(MPI_Waitall(2, both, statuses) == MPI_SUCCESS);
    CHECK(statuses[1].MPI_SOURCE == MPI_PROC_NULL && statuses[1].MPI_TAG == MPI_ANY_TAG);
    int count = -1;
    CHECK(MPI_Get_count(&statuses[1], MPI_INT, &count) == MPI_SUCCESS && count == 0);
  }
  CHECK(MPI_Request_free(&send) == MPI_SUCCESS);
  CHECK(MPI_Request_free(&recv) == MPI_SUCCESS);
}

// Four threads mark interleaved partitions ready at once, 10 epochs.
void test_threads(bool sender) {
  constexpr int kPartitions = 64, kCount = 16, kTag = 60, kThreads = 4, kEpochs = 10;
  std::vector<int> data(kPartitions * kCount, -1);
  MPI_Request request = MPI_REQUEST_NULL;
  if (sender) {
    CHECK(MPI_Psend_init(data.data(), kPartitions, kCount, MPI_INT, g_partner, kTag, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &request) == MPI_SUCCESS);
  } else {
    CHECK(MPI_Precv_init(data.data(), kPartitions / 2, kCount * 2, MPI_INT, g_partner, kTag, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &request) == MPI_SUCCESS);
  }
  std::atomic<int> failures{0};
  for (int epoch = 0; epoch < kEpochs; ++epoch) {
    CHECK(MPI_Start(&request) == MPI_SUCCESS);
    if (sender) {
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          for (int p = t; p < kPartitions; p += kThreads) {
            for (int i = 0; i < kCount; ++i) data[p * kCount + i] = epoch * 10000 + p * kCount + i;
            if (MPI_Pready(p, request) != MPI_SUCCESS) failures.fetch_add(1);
          }
        });
      }
      for (std::thread& thread : threads) thread.join();
    }
    CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    if (!sender) {
      int bad = 0;
      for (int i = 0; i < kPartitions * kCount; ++i) bad += data[i] != epoch * 10000 + i;
      CHECK(bad == 0);
    }
  }
  CHECK(failures.load() == 0);
  CHECK(MPI_Request_free(&request) == MPI_SUCCESS);
}

int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

void test_errors(bool sender) {
  int data[64] = {};
  MPI_Request request = MPI_REQUEST_NULL;
  // Argument checks, local.
  CHECK(error_class(MPI_Precv_init(data, 4, 2, MPI_INT, MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, MPI_INFO_NULL,
                                   &request)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Precv_init(data, 4, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &request)) ==
        MPI_ERR_TAG);
  CHECK(error_class(MPI_Psend_init(data, 0, 2, MPI_INT, 0, 70, MPI_COMM_WORLD, MPI_INFO_NULL, &request)) ==
        MPI_ERR_ARG);
  CHECK(error_class(MPI_Psend_init(data, 4, -1, MPI_INT, 0, 70, MPI_COMM_WORLD, MPI_INFO_NULL, &request)) ==
        MPI_ERR_COUNT);
  CHECK(error_class(MPI_Psend_init(data, 4, 2, MPI_INT, 0, 70, MPI_COMM_WORLD, 12345, &request)) == MPI_ERR_INFO);
  CHECK(error_class(MPI_Pready(0, MPI_REQUEST_NULL)) == MPI_ERR_REQUEST);
  MPI_Info info;
  CHECK(MPI_Info_create(&info) == MPI_SUCCESS);
  CHECK(MPI_Info_set(info, "partitioned_hint", "1") == MPI_SUCCESS);
  MPI_Request send = MPI_REQUEST_NULL, recv = MPI_REQUEST_NULL;
  CHECK(MPI_Psend_init(data, 4, 2, MPI_INT, MPI_PROC_NULL, 70, MPI_COMM_WORLD, info, &send) == MPI_SUCCESS);
  CHECK(MPI_Precv_init(data, 4, 2, MPI_INT, MPI_PROC_NULL, 70, MPI_COMM_WORLD, info, &recv) == MPI_SUCCESS);
  CHECK(MPI_Info_free(&info) == MPI_SUCCESS);
  CHECK(error_class(MPI_Pready(0, send)) == MPI_ERR_OTHER);  // before MPI_Start
  CHECK(MPI_Start(&send) == MPI_SUCCESS);
  CHECK(MPI_Pready(1, send) == MPI_SUCCESS);
  CHECK(error_class(MPI_Pready(1, send)) == MPI_ERR_OTHER);  // twice in one epoch
  CHECK(error_class(MPI_Pready_range(2, 3, send)) == MPI_SUCCESS);
  CHECK(error_class(MPI_Pready(4, send)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_Pready(-1, send)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_Pready_range(3, 1, send)) == MPI_ERR_ARG);
  const int out_of_range[] = {0, 9};
  CHECK(error_class(MPI_Pready_list(2, out_of_range, send)) == MPI_ERR_ARG);
  int flag = 0;
  CHECK(error_class(MPI_Parrived(send, 0, &flag)) == MPI_ERR_REQUEST);  // a send request
  CHECK(error_class(MPI_Pready(0, recv)) == MPI_ERR_REQUEST);           // a receive request
  CHECK(error_class(MPI_Request_free(&send)) == MPI_ERR_REQUEST);       // active, partition 0 not ready
  CHECK(MPI_Pready(0, send) == MPI_SUCCESS);  // the list above marked none of its entries
  CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(error_class(MPI_Parrived(recv, 4, &flag)) == MPI_ERR_ARG);
  CHECK(MPI_Request_free(&send) == MPI_SUCCESS);
  CHECK(MPI_Request_free(&recv) == MPI_SUCCESS);

  // Totals that differ: 4 x 10 ints sent (then 4 x 6), 4 x 8 expected. Both
  // sides' epochs end with MPI_ERR_TRUNCATE, the later ones too.
  if (g_partner == MPI_PROC_NULL) return;
  for (int send_count : {10, 6}) {
    const int tag = 71 + send_count;
    if (sender) {
      CHECK(MPI_Psend_init(data, 4, send_count, MPI_INT, g_partner, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &request) ==
            MPI_SUCCESS);
    } else {
      CHECK(MPI_Precv_init(data, 4, 8, MPI_INT, g_partner, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &request) ==
            MPI_SUCCESS);
    }
    for (int epoch = 0; epoch < 2; ++epoch) {
      CHECK(MPI_Start(&request) == MPI_SUCCESS);
      if (sender) {
        CHECK(MPI_Pready_range(0, 3, request) == MPI_SUCCESS);
      } else {
        // Parrived reports the failure once the sender's hello is in.
        int code = MPI_SUCCESS;
        flag = 0;
        while (code == MPI_SUCCESS && !flag) code = MPI_Parrived(request, 0, &flag);
        CHECK(error_class(code) == MPI_ERR_TRUNCATE);
      }
      MPI_Status status;
      CHECK(error_class(MPI_Wait(&request, &status)) == MPI_ERR_TRUNCATE);
      CHECK(request != MPI_REQUEST_NULL);
    }
    CHECK(MPI_Request_free(&request) == MPI_SUCCESS);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if ((g_rank ^ 1) < g_size) g_partner = g_rank ^ 1;
  const bool even = g_rank % 2 == 0;
  if (g_partner != MPI_PROC_NULL) {
    for (int turn = 0; turn < 2; ++turn) {  // even ranks send first, then odd ones
      const bool sender = even == (turn == 0);
      test_partitionings(sender);
      test_early_partitions(sender);
      test_epochs(sender);
      test_derived(sender);
      if (provided == MPI_THREAD_MULTIPLE) test_threads(sender);
    }
  }
  test_proc_null();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  test_errors(even);
  if (g_rank == 0 && provided != MPI_THREAD_MULTIPLE) std::printf("mpi_partitioned: no MPI_THREAD_MULTIPLE\n");
  const int result = tern::mpi_test::conclude("mpi_partitioned");
  MPI_Finalize();
  return result;
}
