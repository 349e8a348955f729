// Non-blocking and persistent collectives as schedules: rounds of steps,
// each round some local work (copies, reductions, pack/unpack of derived
// types) followed by point-to-point transfers in the communicator's
// collective context. A round starts when every transfer of the one before
// has ended. Transfers carry engine completion callbacks, so whatever
// progresses the worker (MPI_Test/Wait and their array forms, a blocking
// call's wait, the progress thread of TERN_PROGRESS) also moves schedules
// on: a program that tests now and then while it computes overlaps.
//
// Tags: a schedule takes the communicator's next collective sequence number
// when it is made, as the blocking collectives do, so their traffic cannot
// cross, and all its messages carry that one tag. Messages of one source
// with one tag match in the order sent, and every algorithm has each pair of
// ranks post its messages in the same order on both sides, so each send
// meets its receive whatever rounds the two ranks' schedules have (ranks
// differ in their local steps), and across restarts of a persistent one.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "state.hpp"

namespace tern::mpi {

class Schedule : public std::enable_shared_from_this<Schedule> {
 public:
  // `persistent`: tags from the communicator's persistent sequence space,
  // since a persistent schedule's starts need not keep the order of the
  // other collectives.
  Schedule(Comm& comm, bool persistent);
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  // The tag base a schedule made now on `comm` takes (and moves past).
  static unsigned take_tag_base(Comm& comm, bool persistent);

  // --- Building (the caller's thread, before start).
  // Steps join the current round; next_round() opens another.
  void next_round();
  // An intercommunicator's schedule is made on its hidden local
  // communicator for the steps within the group; set_bridge() gives it the
  // hidden bridge too, with the tag base taken from the intercommunicator's
  // sequence (as the blocking ones take theirs), and on_bridge() says which
  // of the two the transfers added from then on go through. Each pair of
  // processes still talks in one context with one tag, so the order
  // argument above holds on each.
  void set_bridge(Comm& bridge, unsigned tag_base);
  void on_bridge(bool bridge) noexcept { lane_ = bridge ? 1 : 0; }
  // False when `peer` cannot be reached (the schedule then fails to start).
  bool send(const void* buffer, std::size_t bytes, int peer);
  bool recv(void* buffer, std::size_t bytes, int peer);
  void copy(const void* source, void* target, std::size_t bytes);
  // inout = in op inout over `count` elements of the schedule's reduction type.
  void reduce(const void* in, void* inout, std::size_t count);
  // `user_layout`: a user operation on a derived type, whose operands are
  // packed instances rebuilt in the type's layout for each call.
  void set_reduction(MPI_Op op, MPI_Datatype type, std::shared_ptr<const DerivedType> user_layout = nullptr) {
    op_ = op;
    reduce_type_ = type;
    user_layout_ = std::move(user_layout);
  }
  // Scratch memory the schedule owns (not zeroed), stable until it is destroyed.
  std::byte* scratch(std::size_t bytes);
  // A contiguous view of `count` instances of `type` at `user`: the buffer
  // itself, or scratch packed from it at the start (send_view) or unpacked
  // into it after the last round (recv_view).
  const void* send_view(const void* user, std::size_t count, const std::shared_ptr<const DerivedType>& type);
  void* recv_view(void* user, std::size_t count, const std::shared_ptr<const DerivedType>& type);
  // Both: packed at the start, unpacked after the last round (MPI_IN_PLACE).
  void* inout_view(void* user, std::size_t count, const std::shared_ptr<const DerivedType>& type);
  // A round of its own whose one step calls `decide(argument)` when the
  // schedule reaches it. The answer: kGoOn, kFail (the schedule ends with
  // an error), or the index of an earlier round to run again from, which is
  // how an agreement repeats until its members accept (every member must
  // decide alike, so that each pair of ranks still posts the same transfers
  // in the same order). Only for schedules without unpacks.
  static constexpr long kGoOn = -1;
  static constexpr long kFail = -2;
  using Decision = long (*)(void* argument);
  void decide(Decision decide, void* argument);
  // Opens a round and returns its index (a target for a decision).
  std::size_t open_round();
  // Ends building: the unpacks of recv_view go in a last round.
  void seal();
  [[nodiscard]] bool reachable() const noexcept { return reachable_; }

  // --- Running.
  void start();
  [[nodiscard]] bool done() const noexcept { return done_.load(std::memory_order_acquire); }
  // The MPI error class it ended with (valid once done).
  [[nodiscard]] int error_class() const noexcept;

 private:
  enum class StepKind : uint8_t { Send, Recv, Copy, Reduce, Pack, Unpack, Decide };
  struct Step {
    StepKind kind;
    const void* source;
    void* target;
    std::size_t amount;  // bytes (transfers, copies), elements (reduce), instances (pack/unpack)
    int peer;
    engine::Endpoint* endpoint;
    const DerivedType* type;  // pack/unpack
    uint8_t lane;             // transfers: index into lanes_
    Decision decision;        // decide: called with `target`
  };
  // Where transfers go: the communicator (while building), its collective
  // context, this process's rank there, the tag base.
  struct Lane {
    Comm* comm;
    uint16_t context;
    unsigned rank;
    unsigned tag_base;
  };
  void add(Step step) {
    step.lane = lane_;
    rounds_.back().push_back(step);
  }
  // Runs rounds from round_ while they end at once; the last transfer's
  // callback resumes it.
  void advance();
  void run_local(const Step& step);
  void reduce_in_layout(const Step& step);
  void post(const Step& step);
  void note_failure(Status status);
  void finish();
  static void on_transfer_done(void* user_data, Status status, const engine::TagRecvInfo& info);

  // lanes_[0]: the communicator the schedule was made on; [1]: the bridge.
  // Their `comm` is for building only: a running schedule may outlive
  // MPI_Comm_free.
  Lane lanes_[2];
  uint8_t lane_ = 0;
  std::vector<std::vector<Step>> rounds_{1};
  std::vector<std::unique_ptr<std::byte[]>> scratch_;
  std::vector<std::shared_ptr<const DerivedType>> types_;  // kept alive for pack/unpack
  std::vector<Step> unpacks_;
  MPI_Op op_ = MPI_OP_NULL;
  MPI_Datatype reduce_type_ = MPI_DATATYPE_NULL;
  std::shared_ptr<const DerivedType> user_layout_;
  bool reachable_ = true;

  std::size_t round_ = 0;
  long decided_ = kGoOn;  // what the last decision of the running round said
  std::atomic<int> pending_{0};
  std::atomic<Status> failure_{Status::Ok};
  std::atomic<bool> done_{true};
  std::shared_ptr<Schedule> self_;  // keeps a running schedule alive after MPI_Request_free
};

// --- The algorithms as schedules (nbc_algorithms.cpp), on contiguous bytes.
// Each opens a new round first, so they compose (allreduce = reduce + bcast).
// `elem` is the size of one element of the schedule's reduction type.
void schedule_barrier(Schedule& s, const Comm& comm);
void schedule_bcast(Schedule& s, const Comm& comm, void* buffer, std::size_t bytes, int root);
// `accumulator` holds this rank's part when the schedule reaches this point;
// at `root` it ends holding the result (binomial, or in rank order when the
// operation does not commute).
void schedule_reduce(Schedule& s, const Comm& comm, void* accumulator, std::size_t count, std::size_t elem,
                     bool commutative, int root);
void schedule_allreduce(Schedule& s, const Comm& comm, void* buffer, std::size_t count, std::size_t elem,
                        bool commutative);
// Block r of a v-collective: where it is and its size in bytes.
struct Block {
  void* data;
  std::size_t bytes;
};
// Root: blocks[r] from rank r (its own copied from `own`, unless null: in
// place); others send `own` (blocks[rank].bytes) to the root.
void schedule_gather(Schedule& s, const Comm& comm, const void* own, const std::vector<Block>& blocks, int root);
// Root: blocks[r] to rank r (its own copied to `own`, unless null); others
// receive into `own`.
void schedule_scatter(Schedule& s, const Comm& comm, void* own, const std::vector<Block>& blocks, int root);
// Ring: this rank's block is in place; every other one arrives.
void schedule_allgather(Schedule& s, const Comm& comm, const std::vector<Block>& blocks);
// Pairwise exchange: send[r] to rank r, recv[r] from it.
void schedule_alltoall(Schedule& s, const Comm& comm, const std::vector<Block>& send, const std::vector<Block>& recv);
// Linear chain: rank r's `accumulator` (its part on entry) ends as the
// prefix of ranks 0..r (inclusive) or 0..r-1 (exclusive; rank 0's left as
// it is, `own` its part).
void schedule_scan(Schedule& s, const Comm& comm, void* accumulator, std::size_t count, std::size_t elem);
void schedule_exscan(Schedule& s, const Comm& comm, const void* own, void* result, std::size_t count,
                     std::size_t elem);

// Hands a built schedule to a request: started now, or (persistent) kept
// inactive for MPI_Start. Raises on failure.
int issue_schedule(const char* function, Comm& comm, MPI_Comm handle, std::shared_ptr<Schedule> schedule,
                   bool persistent, MPI_Request* request);

}  // namespace tern::mpi
