// The epochs of partitioned requests (partitioned.hpp says how they map onto
// the engine); the MPI calls are in partitioned_calls.cpp.
#include "p2p/partitioned.hpp"

#include <mutex>
#include <new>
#include <unordered_set>

namespace tern::mpi {
namespace {

// The lane's mark in the 24-bit source and tag fields, and what is left
// for a rank, partition index or channel beside it.
constexpr unsigned kLaneBit = 1u << 23;
constexpr unsigned kLaneMask = kLaneBit - 1;
// The answer's source field: no partition has this index.
constexpr unsigned kAnswerSource = kLaneMask;
constexpr uint32_t kHelloMagic = 0x50415254;   // "PART"
constexpr uint32_t kAnswerMagic = 0x50524356;  // "PRCV"
constexpr uint8_t kIdle = 0;
constexpr uint8_t kReady = 1;
constexpr uint8_t kSent = 2;

// Channel numbers in use in this process: each names a request's traffic on
// the lane, so two live requests never share one.
class Channels {
 public:
  // False when every number is taken.
  bool take(uint32_t& channel) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (used_.size() >= kLaneMask) return false;
    do {
      next_ = (next_ + 1) & kLaneMask;
    } while (used_.count(next_) != 0);
    used_.insert(next_);
    channel = next_;
    return true;
  }
  void give_back(uint32_t channel) {
    std::lock_guard<std::mutex> lock(mutex_);
    used_.erase(channel);
  }

 private:
  std::mutex mutex_;
  std::unordered_set<uint32_t> used_;
  uint32_t next_ = 0;
};

Channels& channels() {
  static Channels table;
  return table;
}

[[nodiscard]] uint64_t lane_tag(uint16_t context, unsigned source, unsigned tag) noexcept {
  return make_tag(context, kLaneBit | (source & kLaneMask), tag);
}

}  // namespace

std::shared_ptr<PartitionedRequest> PartitionedRequest::create(Setup setup, const char*& why) {
  uint32_t channel = 0;
  if (!channels().take(channel)) {
    why = "every partitioned channel of this process is in use";
    return nullptr;
  }
  std::shared_ptr<PartitionedRequest> request(new (std::nothrow) PartitionedRequest(std::move(setup), channel));
  why = "no memory for the request";
  if (request == nullptr) {
    channels().give_back(channel);
    return nullptr;
  }
  const auto partitions = static_cast<std::size_t>(request->setup_.partitions);
  if (request->setup_.receive) {
    request->arrived_.reset(new (std::nothrow) std::atomic<uint8_t>[partitions]);
    request->remaining_.reset(new (std::nothrow) std::atomic<uint32_t>[partitions]);
    if (request->arrived_ == nullptr || request->remaining_ == nullptr) return nullptr;
    // Inactive: MPI_Parrived says true.
    for (std::size_t p = 0; p < partitions; ++p) request->arrived_[p].store(1, std::memory_order_relaxed);
  } else {
    request->ready_.reset(new (std::nothrow) std::atomic<uint8_t>[partitions]);
    if (request->ready_ == nullptr) return nullptr;
    for (std::size_t p = 0; p < partitions; ++p) request->ready_[p].store(kIdle, std::memory_order_relaxed);
  }
  if (request->setup_.derived != nullptr && request->setup_.peer != MPI_PROC_NULL) {
    request->packed_.reset(new (std::nothrow) std::byte[request->total_bytes() == 0 ? 1 : request->total_bytes()]);
    if (request->packed_ == nullptr) {
      why = "no memory for the packed copy of the data";
      return nullptr;
    }
  }
  return request;
}

PartitionedRequest::PartitionedRequest(Setup setup, uint32_t channel) : setup_(std::move(setup)), channel_(channel) {
  // MPI_PROC_NULL: nothing to agree on.
  if (setup_.peer == MPI_PROC_NULL) matched_.store(true, std::memory_order_relaxed);
}

PartitionedRequest::~PartitionedRequest() { channels().give_back(channel_); }

std::byte* PartitionedRequest::partition_data(std::size_t index, std::size_t bytes) const noexcept {
  if (packed_ != nullptr) return packed_.get() + index * bytes;
  return static_cast<std::byte*>(setup_.buffer) + index * bytes;
}

void PartitionedRequest::note_failure(int error_class) noexcept {
  int expected = MPI_SUCCESS;
  (void)failure_.compare_exchange_strong(expected, error_class, std::memory_order_acq_rel);
}

void PartitionedRequest::send_counted(const void* data, std::size_t bytes, uint64_t tag,
                                      engine::CompletionFunction on_done) {
  const Status s = g_state->worker->tag_send_nb(endpoint_, data, bytes, tag, engine::Callback{on_done, this});
  if (s == Status::InProgress) return;  // the callback counts it off
  if (s != Status::Ok) note_failure(error_class_of(s));
  count_off();
}

void PartitionedRequest::recv_counted(void* data, std::size_t bytes, uint64_t tag,
                                      engine::CompletionFunction on_done) {
  engine::TagRecvInfo info{};
  const Status s =
      g_state->worker->tag_recv_nb(data, bytes, tag, engine::kTagMaskAll, engine::Callback{on_done, this}, &info);
  if (s == Status::InProgress) return;
  // Done at once (the message was waiting): what the callback would do.
  on_done(this, s, info);
}

int PartitionedRequest::start(const char* function, MPI_Request handle, Comm& comm) {
  const int partitions = setup_.partitions;
  if (setup_.receive) {
    for (int p = 0; p < partitions; ++p) arrived_[p].store(0, std::memory_order_relaxed);
  } else {
    for (int p = 0; p < partitions; ++p) ready_[p].store(kIdle, std::memory_order_relaxed);
  }
  silent_ = setup_.peer == MPI_PROC_NULL || broken_;
  if (silent_) {
    // A broken pair's partitions never arrive: MPI_Parrived reports the failure.
    if (setup_.receive && !broken_) {
      for (int p = 0; p < partitions; ++p) arrived_[p].store(1, std::memory_order_relaxed);
    }
    pending_.store(0, std::memory_order_release);
    active_.store(true, std::memory_order_release);
    return MPI_SUCCESS;
  }
  failure_.store(MPI_SUCCESS, std::memory_order_relaxed);
  if (!started_) {
    endpoint_ = comm_endpoint(comm, setup_.peer);
    if (endpoint_ == nullptr) {
      return raise(&comm, MPI_ERR_OTHER, function, "request %d: rank %d cannot be reached", handle, setup_.peer);
    }
    context_ = collective_context(comm);
    rank_ = static_cast<unsigned>(comm.rank);
    started_ = true;
    active_.store(true, std::memory_order_release);
    if (setup_.receive) {
      pending_.store(1, std::memory_order_release);  // the hello; on_hello adds the rest
      recv_counted(&hello_, sizeof(hello_),
                   lane_tag(context_, static_cast<unsigned>(setup_.peer), static_cast<unsigned>(setup_.tag)),
                   &PartitionedRequest::on_hello);
      return MPI_SUCCESS;
    }
    // The answer's receive goes first, so that it never waits unexpected.
    pending_.store(static_cast<std::size_t>(partitions) + 2, std::memory_order_release);
    hello_ = Hello{kHelloMagic, channel_, static_cast<uint64_t>(partitions), setup_.partition_bytes};
    recv_counted(&answer_, sizeof(answer_), lane_tag(context_, kAnswerSource, kLaneBit | channel_),
                 &PartitionedRequest::on_answer);
    send_counted(&hello_, sizeof(hello_), lane_tag(context_, rank_, static_cast<unsigned>(setup_.tag)),
                 &PartitionedRequest::on_counted);
    return MPI_SUCCESS;
  }
  active_.store(true, std::memory_order_release);
  if (setup_.receive) {
    for (int p = 0; p < partitions; ++p) remaining_[p].store(overlap_count(p), std::memory_order_relaxed);
    pending_.store(send_partitions_, std::memory_order_release);
    post_partitions();
  } else {
    pending_.store(static_cast<std::size_t>(partitions), std::memory_order_release);
  }
  return MPI_SUCCESS;
}

int PartitionedRequest::complete(MPI_Status* status) {
  active_.store(false, std::memory_order_release);
  if (setup_.receive) {
    // Inactive again: MPI_Parrived says true.
    for (int p = 0; p < setup_.partitions; ++p) arrived_[p].store(1, std::memory_order_relaxed);
  }
  return peek(status);
}

int PartitionedRequest::peek(MPI_Status* status) const {
  const int error = failure();
  if (status == MPI_STATUS_IGNORE) return error;
  if (!setup_.receive || setup_.peer == MPI_PROC_NULL) {
    empty_status(status, setup_.receive ? MPI_PROC_NULL : MPI_ANY_SOURCE);
  } else {
    status->MPI_SOURCE = setup_.peer;
    status->MPI_TAG = setup_.tag;
    status->tern_cancelled = 0;
    status->tern_bytes = error == MPI_SUCCESS ? static_cast<MPI_Count>(total_bytes()) : 0;
  }
  status->MPI_ERROR = error;
  return error;
}

// --- Send side

PartitionedRequest::Ready PartitionedRequest::ready(int partition) {
  if (!active()) return Ready::Inactive;
  uint8_t expected = kIdle;
  if (!ready_[partition].compare_exchange_strong(expected, kReady)) return Ready::Twice;
  if (!silent_ && matched_.load()) claim_and_send(partition);
  return Ready::Ok;
}

void PartitionedRequest::claim_and_send(int partition) {
  uint8_t expected = kReady;
  if (ready_[partition].compare_exchange_strong(expected, kSent)) send_partition(partition);
}

void PartitionedRequest::send_partition(int partition) {
  if (broken_) {  // the answer said no: the partition ends unsent
    count_off();
    return;
  }
  const std::size_t bytes = setup_.partition_bytes;
  std::byte* data = partition_data(static_cast<std::size_t>(partition), bytes);
  if (packed_ != nullptr) {
    const auto* user = static_cast<const std::byte*>(setup_.buffer) +
                       static_cast<std::ptrdiff_t>(partition) * static_cast<std::ptrdiff_t>(setup_.count) *
                           setup_.derived->extent;
    pack_data(*setup_.derived, user, setup_.count, data);
  }
  send_counted(data, bytes, lane_tag(context_, static_cast<unsigned>(partition), kLaneBit | peer_channel_),
               &PartitionedRequest::on_counted);
}

void PartitionedRequest::on_answer(void* self, Status status, const engine::TagRecvInfo& info) {
  auto* request = static_cast<PartitionedRequest*>(self);
  const Answer& answer = request->answer_;
  if (status != Status::Ok || info.length != sizeof(Answer) || answer.magic != kAnswerMagic) {
    request->note_failure(status != Status::Ok ? error_class_of(status) : MPI_ERR_INTERN);
    request->broken_ = true;
  } else if (answer.error != MPI_SUCCESS) {
    request->note_failure(answer.error);
    request->broken_ = true;
  } else {
    request->peer_channel_ = answer.channel & kLaneMask;
  }
  // Published after broken_ and peer_channel_; each Pready that ran before
  // left its partition for this loop.
  request->matched_.store(true);
  for (int p = 0; p < request->setup_.partitions; ++p) {
    if (request->ready_[p].load() == kReady) request->claim_and_send(p);
  }
  request->count_off();
}

// --- Receive side

uint32_t PartitionedRequest::overlap_count(int partition) const noexcept {
  const std::size_t receive_bytes = setup_.partition_bytes;
  const std::size_t send_bytes = send_partition_bytes_;
  if (receive_bytes == 0 || send_bytes == 0) return static_cast<uint32_t>(send_partitions_);  // no data: all
  const std::size_t begin = static_cast<std::size_t>(partition) * receive_bytes;
  const std::size_t first = begin / send_bytes;
  const std::size_t last = (begin + receive_bytes - 1) / send_bytes;
  return static_cast<uint32_t>(last - first + 1);
}

void PartitionedRequest::post_partitions() {
  const std::size_t bytes = send_partition_bytes_;
  for (uint64_t q = 0; q < send_partitions_; ++q) {
    recv_counted(partition_data(q, bytes), bytes,
                 lane_tag(context_, static_cast<unsigned>(q), kLaneBit | channel_), &PartitionedRequest::on_data);
  }
}

void PartitionedRequest::on_hello(void* self, Status status, const engine::TagRecvInfo& info) {
  auto* request = static_cast<PartitionedRequest*>(self);
  const Hello& hello = request->hello_;
  if (status != Status::Ok || info.length != sizeof(Hello) || hello.magic != kHelloMagic) {
    request->note_failure(status != Status::Ok ? error_class_of(status) : MPI_ERR_INTERN);
    request->broken_ = true;
    request->count_off();
    return;
  }
  std::size_t send_total = 0;
  const bool overflow = hello.partitions > kLaneMask ||
                        __builtin_mul_overflow(static_cast<std::size_t>(hello.partitions),
                                               static_cast<std::size_t>(hello.partition_bytes), &send_total);
  const std::size_t receive_total = request->total_bytes();
  int error = MPI_SUCCESS;
  if (overflow || send_total != receive_total) {
    // MPI asks for equal totals; a larger send would not fit, and a smaller
    // one would leave partitions that never arrive.
    error = MPI_ERR_TRUNCATE;
    request->note_failure(error);
    request->broken_ = true;
  } else {
    request->send_partitions_ = hello.partitions;
    request->send_partition_bytes_ = static_cast<std::size_t>(hello.partition_bytes);
    for (int p = 0; p < request->setup_.partitions; ++p) {
      request->remaining_[p].store(request->overlap_count(p), std::memory_order_relaxed);
    }
  }
  request->answer_ = Answer{kAnswerMagic, request->channel_, error, 0, receive_total};
  // Counted before any of them can end: the data, the answer.
  const std::size_t more = (error == MPI_SUCCESS ? request->send_partitions_ : 0) + 1;
  request->pending_.fetch_add(more, std::memory_order_acq_rel);
  if (error == MPI_SUCCESS) request->post_partitions();
  request->send_counted(&request->answer_, sizeof(Answer),
                        lane_tag(request->context_, kAnswerSource, kLaneBit | (hello.channel & kLaneMask)),
                        &PartitionedRequest::on_counted);
  request->count_off();  // the hello
}

void PartitionedRequest::on_data(void* self, Status status, const engine::TagRecvInfo& info) {
  auto* request = static_cast<PartitionedRequest*>(self);
  if (status != Status::Ok) {
    request->note_failure(error_class_of(status));
  } else {
    request->landed(static_cast<uint64_t>(tag_source(info.sender_tag)) & kLaneMask);
  }
  request->count_off();
}

void PartitionedRequest::landed(uint64_t send_partition) {
  const int partitions = setup_.partitions;
  int first = 0;
  int last = partitions - 1;
  const std::size_t send_bytes = send_partition_bytes_;
  if (send_bytes != 0 && setup_.partition_bytes != 0) {
    const std::size_t begin = send_partition * send_bytes;
    first = static_cast<int>(begin / setup_.partition_bytes);
    last = static_cast<int>((begin + send_bytes - 1) / setup_.partition_bytes);
  }
  for (int p = first; p <= last; ++p) {
    if (remaining_[p].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
    if (packed_ != nullptr) unpack_partition(p);
    arrived_[p].store(1, std::memory_order_release);
  }
}

void PartitionedRequest::unpack_partition(int partition) {
  const std::size_t bytes = setup_.partition_bytes;
  auto* user = static_cast<std::byte*>(setup_.buffer) + static_cast<std::ptrdiff_t>(partition) *
                                                           static_cast<std::ptrdiff_t>(setup_.count) *
                                                           setup_.derived->extent;
  unpack_data(*setup_.derived, partition_data(static_cast<std::size_t>(partition), bytes), bytes, user, setup_.count);
}

// --- Both

void PartitionedRequest::on_counted(void* self, Status status, const engine::TagRecvInfo&) {
  auto* request = static_cast<PartitionedRequest*>(self);
  if (status != Status::Ok) request->note_failure(error_class_of(status));
  request->count_off();
}

}  // namespace tern::mpi
