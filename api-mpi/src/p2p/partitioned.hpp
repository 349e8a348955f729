// Partitioned point-to-point communication (MPI 4.0 chapter 4): the state
// of one MPI_Psend_init or MPI_Precv_init request, held by its request slot
// (RequestSlot::partitioned) and driven by MPI_Start, MPI_Pready*,
// MPI_Parrived and the Wait/Test family.
//
// How it maps onto the engine. Every send partition travels as a message of
// its own the moment it is ready, so a partition finished early leaves early
// whatever the order. The messages run in the communicator's collective
// context on a lane no collective reaches: the source field has its top bit
// (kLaneBit) set, and collectives always receive from exact ranks below
// 2^23. The lane is private to partitioned traffic without a communicator
// of its own, which MPI_Psend_init, a local call, could not agree on.
//
// Matching happens once, at the first MPI_Start of each side, by a small
// handshake: the sender sends a hello (its partition count, partition size
// and a channel number of its own) tagged with its rank and the MPI tag, so
// hellos match in the order the requests started, as MPI orders partitioned
// operations; the receiver checks that the totals agree and answers with its
// own channel number (or the error). The receiver's channel names every data
// message to it: the source field carries the send partition's index and the
// tag field the channel, so each send partition has a receive of its own
// posted straight into its place in the buffer, whatever order partitions
// come in, and the receiver needs no header or copy. A receive partition has
// arrived once every send partition that overlaps it has (a count per
// receive partition, decremented by the data callbacks), which lets the two
// sides split the data differently. Partitions made ready before the answer
// comes leave when it comes; from the second epoch on both sides know each
// other and the sender's partitions leave at once.
//
// Non-contiguous datatypes go through one packed buffer of the whole
// message: a send partition is packed when it leaves, a receive partition is
// unpacked when its last byte lands, before MPI_Parrived says so.
//
// Threads: MPI_Pready may run on several threads at once (MPI's motivating
// use). Each partition's state is an atomic (idle, ready, sent); a ready
// partition is sent by whichever of Pready and the handshake's answer claims
// it first (both look at the other's flag after setting their own, with
// sequentially consistent atomics, so one of them always sees it).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "state.hpp"

namespace tern::mpi {

class PartitionedRequest {
 public:
  struct Setup {
    bool receive = false;
    void* buffer = nullptr;
    int partitions = 0;
    std::size_t count = 0;            // elements per partition
    std::size_t partition_bytes = 0;  // packed bytes per partition
    std::shared_ptr<const DerivedType> derived;  // non-contiguous types; null otherwise
    int peer = MPI_PROC_NULL;
    int tag = 0;
  };
  // The largest partition count: indexes travel in the lane's 23 source bits.
  static constexpr int kMaxPartitions = (1 << 23) - 1;
  enum class Ready : uint8_t { Ok, Inactive, Twice };

  // Null when out of memory or channels (`why` says which).
  static std::shared_ptr<PartitionedRequest> create(Setup setup, const char*& why);
  ~PartitionedRequest();
  PartitionedRequest(const PartitionedRequest&) = delete;
  PartitionedRequest& operator=(const PartitionedRequest&) = delete;

  [[nodiscard]] bool receive() const noexcept { return setup_.receive; }
  [[nodiscard]] int partitions() const noexcept { return setup_.partitions; }
  [[nodiscard]] bool active() const noexcept { return active_.load(std::memory_order_acquire); }

  // Begins an epoch (MPI_Start on an inactive request); raises on failure.
  int start(const char* function, MPI_Request handle, Comm& comm);
  [[nodiscard]] bool done() const noexcept { return pending_.load(std::memory_order_acquire) == 0; }
  // Ends a done epoch: fills `status` (may be MPI_STATUS_IGNORE), returns
  // the epoch's MPI error class.
  int complete(MPI_Status* status);
  // The same without ending it (MPI_Request_get_status).
  int peek(MPI_Status* status) const;

  // Send side: marks `partition` (in range) ready and sends it when it can.
  Ready ready(int partition);
  // Receive side: whether `partition` (in range) is in the buffer.
  [[nodiscard]] bool arrived(int partition) const noexcept {
    return arrived_[partition].load(std::memory_order_acquire) != 0;
  }
  // The error class the epoch has met so far (MPI_SUCCESS while none).
  [[nodiscard]] int failure() const noexcept { return failure_.load(std::memory_order_acquire); }

 private:
  // The handshake's two messages.
  struct Hello {
    uint32_t magic;
    uint32_t channel;  // the sender's: where the answer goes
    uint64_t partitions;
    uint64_t partition_bytes;
  };
  struct Answer {
    uint32_t magic;
    uint32_t channel;  // the receiver's: where the data goes
    int32_t error;     // MPI_SUCCESS, or why the pair does not match
    uint32_t unused;
    uint64_t total;    // the receiver's total bytes
  };

  PartitionedRequest(Setup setup, uint32_t channel);
  [[nodiscard]] std::size_t total_bytes() const noexcept {
    return static_cast<std::size_t>(setup_.partitions) * setup_.partition_bytes;
  }
  [[nodiscard]] std::byte* partition_data(std::size_t index, std::size_t bytes) const noexcept;
  void note_failure(int error_class) noexcept;
  void count_off() noexcept { pending_.fetch_sub(1, std::memory_order_acq_rel); }
  // Engine operations whose end is counted in pending_.
  void send_counted(const void* data, std::size_t bytes, uint64_t tag, engine::CompletionFunction on_done);
  void recv_counted(void* data, std::size_t bytes, uint64_t tag, engine::CompletionFunction on_done);

  // Send side.
  void claim_and_send(int partition);
  void send_partition(int partition);
  static void on_answer(void* self, Status status, const engine::TagRecvInfo& info);
  // Receive side.
  void post_partitions();
  void landed(uint64_t send_partition);
  void unpack_partition(int partition);
  [[nodiscard]] uint32_t overlap_count(int partition) const noexcept;
  static void on_hello(void* self, Status status, const engine::TagRecvInfo& info);
  static void on_data(void* self, Status status, const engine::TagRecvInfo& info);
  // Both: the end of a message counted in pending_.
  static void on_counted(void* self, Status status, const engine::TagRecvInfo& info);

  const Setup setup_;
  const uint32_t channel_;  // this request's, unique in the process while it lives
  uint16_t context_ = 0;
  unsigned rank_ = 0;  // this process's rank in the communicator
  engine::Endpoint* endpoint_ = nullptr;
  bool started_ = false;  // the handshake is under way or done
  // Set when the first epoch finds the two sides do not match: every epoch
  // then ends at once with the failure. Written by the handshake's callback,
  // read after the epoch's end or after matched_.
  bool broken_ = false;
  bool silent_ = false;  // this epoch sends nothing (MPI_PROC_NULL, broken_)
  uint32_t peer_channel_ = 0;  // the receiver's channel (send side)
  // The receiver's view of the sender's partitioning.
  uint64_t send_partitions_ = 0;
  std::size_t send_partition_bytes_ = 0;
  Hello hello_{};
  Answer answer_{};

  std::atomic<bool> active_{false};
  std::atomic<bool> matched_{false};  // the send side has the answer
  std::atomic<std::size_t> pending_{0};
  std::atomic<int> failure_{MPI_SUCCESS};
  // Send side: kIdle, kReady, kSent per partition. Receive side: arrived_
  // and the count of overlapping send partitions still to land.
  std::unique_ptr<std::atomic<uint8_t>[]> ready_;
  std::unique_ptr<std::atomic<uint8_t>[]> arrived_;
  std::unique_ptr<std::atomic<uint32_t>[]> remaining_;
  std::unique_ptr<std::byte[]> packed_;  // non-contiguous types: the whole message
};

}  // namespace tern::mpi
