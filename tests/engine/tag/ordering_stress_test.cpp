// Randomized ordering stress of the tag API: 2, 3 and 4 processes on this
// host (shm, and self for a rank's messages to itself) send each other
// random traffic and receive it with random specs, and every delivery is
// checked against a reference model of MPI matching (ordering_model.cpp).
//
// Traffic. Each rank runs a random sequence of operations: non-blocking
// sends (one in eight synchronous, kSendSync), receives (tag_recv_nb),
// probes followed by a receive of the same spec (the MPI_Probe + MPI_Recv
// idiom), probes that remove the message followed by tag_msg_recv_nb,
// cancels of receives still outstanding (which may race their match), and
// progress. Tags pack (context, source, user tag) as an MPI front end does;
// specs use the full mask, masks that wildcard the source, the user tag or
// both, no mask at all, arbitrary random masks, and tags that match nothing
// (left for cancel); the bits a mask ignores are random. User tags differ
// from each other in three bit positions, so arbitrary masks make them
// collide in every pattern. Lengths cover 0 B, the lengths around the 8-byte
// id, short messages, one FIFO cell's payload and the one-fragment limit
// +-1, multi-fragment eager, the three eager/rendezvous thresholds (metered,
// streaming, drained) and the offload threshold +-1, and rendezvous up to
// 1 MiB, all read from the configuration the engine uses (TERN_SHM_CELL_SIZE,
// TERN_RNDV_THRESH, TERN_TM_THRESH). Receive buffers take any message whole,
// except that in every other phase of 1000 operations half of them are
// smaller than the offload threshold: such receives stay in software (and
// keep later ones off a matching device), and long messages end Truncated
// in them; the phases between start by canceling them. At the end each rank cancels what is still posted and drains
// every message still owed to it with a probe that matches anything.
//
// What is sent is planned from the seed: every rank knows each message each
// sender sends it, in order (tag, length, synchronous or not), without being
// told at run time. Messages of 8 bytes or more start with their id (sender,
// receiver, sequence number) and continue with bytes derived from it.
//
// The model, per receiver, over the log of its operations in program order
// (`op`: the receiver's operation counter; `epoch`: bumped by every call that
// may let the worker make progress, i.e. progress, test and sends):
//  1. Every receive ends delivered or canceled, never both, and a cancel that
//     answered Busy (matched) is followed by a delivery. A canceled receive's
//     buffer is untouched.
//  2. Every delivery ends Ok, or Truncated exactly when the message is
//     longer than the buffer, carries a tag that was sent, matches the spec
//     (tag, mask) of its receive or probe, has the length of the message its
//     id names, which was sent to this rank with that very tag, and every
//     byte of it that fits (no byte after them written). Ids name each
//     message once: no message is delivered twice.
//     Messages under 8 bytes cannot carry an id. Their bytes depend only on
//     (tag, length, receiver), so those with equal (sender, tag, length) are
//     indistinguishable; the model names them in sending order to their
//     consumers in program order, which is the only naming under which
//     non-overtaking (4) can hold, so no other naming would pass where this
//     one fails.
//  3. Every message planned for this rank was delivered.
//  4. Non-overtaking: if a consumer (a receive, or a probe that removed the
//     message) got message j of sender S, every earlier message i < j of S
//     that the consumer also matches went to a consumer started earlier in
//     program order. Why this is exact: messages of one sender arrive in
//     order, so i arrived before j. Had i still been free when the consumer
//     was started, the consumer would have found it then (earliest arrived
//     wins), or, if posted, been given it on arrival (i matches it, and i
//     cannot go to a receive posted after it while it waits: earliest
//     posted wins). So i was taken before the consumer started.
//  5. Epochs: between two epoch bumps no message enters the unexpected
//     queue. A probe that found nothing, or a receive that was certainly
//     queued as posted (it was canceled successfully, or it got a message
//     too short to arrive in parts, yet did not complete at once), proves
//     that nothing matching its spec was unexpected at that point; a later
//     call of the same epoch that finds such a message (a receive done at
//     once, a probe) is a difference.
//  6. A receive posted right after a probe of the same spec, in the same
//     epoch, gets exactly the message the probe saw (tag and length); so
//     does tag_msg_recv_nb after a removing probe.
//  7. Earliest posted receive wins: while a receive A stays posted (from its
//     post to its successful cancel), no consumer posted after A and seen
//     done before that cancel, and no probe in between, may get or see a
//     message that A matches.
//  8. Synchronous sends (across ranks, through a shared table): each rank
//     announces in shared memory how many consuming operations it has
//     started, before starting each. When a synchronous send is seen
//     complete, its sender reads that count; the message's consumer must be
//     among the operations already started then.
// None of these depends on timing: each compares the program order of one
// process with facts any legal interleaving of arrivals must respect, so a
// difference is a real violation of MPI matching (or of data integrity),
// never a race the model did not foresee. Checks 1-4 decide everything for
// one sender; across senders, whose relative arrival order no process can
// observe, 5-7 check what the observations decide.
//
// TERN_STRESS_OPS: operations in all (default 300000 divided by
// TERN_TEST_TIME_SCALE; 1000000 for the full run), split evenly over the
// three job sizes. TERN_STRESS_SEED replays a run (default: from the time);
// TERN_STRESS_RANKS=n runs the job of n ranks only.
// TERN_STRESS_SYNC=single-fragment keeps synchronous sends to lengths that
// go in one fragment (default: all, every size).
// TERN_TM_OFFLOAD=on|off|auto (the engine's own variable) selects
// tag-matching offload; ctest runs the stress with it on and off, and on
// with TERN_STRESS_MAPPED=1: every other receive buffer then comes from
// Worker::mem_alloc (memory local senders map), so that under
// TERN_TM_THRESH_MAPPED senders take only those receives from the device.
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "../multiproc/fork_ranks.hpp"
#include "ordering_model.hpp"
#include "tern/engine/worker.hpp"
#include "tern/runtime/config.hpp"

namespace tern::engine::tag::stress {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxSendsInFlight = 48;
constexpr std::size_t kMaxReceivesPosted = 24;
constexpr std::size_t kGuardBytes = 64;
constexpr unsigned char kUntouched = 0xee;
constexpr std::size_t kCanceledBytesChecked = 256;
constexpr uint64_t kDefaultOps = 300000;
constexpr uint64_t kPhaseOps = 1000;
// Below a first fragment's payload by more than any header: surely one fragment.
constexpr std::size_t kFragmentSlack = 64;

// Counters every rank adds to, read by the parent once the job is over.
struct Totals {
  std::atomic<uint64_t> ops{0};
  std::atomic<uint64_t> deliveries{0};
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> canceled{0};
  std::atomic<uint64_t> cancel_refused{0};
  std::atomic<uint64_t> probes{0};
  std::atomic<uint64_t> sync_checked{0};
  std::atomic<uint64_t> overtaking_checks{0};
  std::atomic<uint64_t> epoch_checks{0};
  std::atomic<uint64_t> ambiguous{0};
};

// Shared by the job's processes (mapped before the fork).
struct Board {
  std::atomic<uint64_t> consumers_started[kMaxRanks];
  std::atomic<uint64_t> barrier_arrivals{0};
  Totals totals;
  // Followed by the op that consumed each synchronous message, by
  // [sender][receiver][seq] (kNoOp until its receiver has checked it).

  static std::size_t bytes_for(const Setup& setup) {
    return sizeof(Board) + sizeof(uint64_t) * setup.ranks * setup.ranks * setup.messages_per_pair;
  }
  uint64_t& consumer(const Setup& setup, unsigned sender, unsigned receiver, uint64_t seq) {
    return reinterpret_cast<uint64_t*>(this + 1)[(sender * setup.ranks + receiver) * setup.messages_per_pair + seq];
  }
};

struct Options {
  uint64_t seed = 0;
  uint64_t ops = kDefaultOps;
  std::string offload = "auto";  // TERN_TM_OFFLOAD, which the engine reads itself
  unsigned time_scale = 1;
  unsigned ranks = 0;  // 0: 2, 3 and 4 in turn
  bool sync_single_fragment = false;
  bool mapped_buffers = false;  // TERN_STRESS_MAPPED=1
};

// The first line of every failure names what replays it.
[[noreturn]] void fatal(const Setup& setup, unsigned rank, uint64_t op, const std::string& what) {
  std::fprintf(stderr, "ordering_stress: FAIL seed %llu, %u ranks, rank %u, op %llu: %s\n",
               static_cast<unsigned long long>(setup.seed), setup.ranks, rank, static_cast<unsigned long long>(op),
               what.c_str());
  std::fflush(stderr);
  kill(0, SIGKILL);  // the whole job: no peer waits for this rank forever
  _exit(1);
}

class RankDriver {
 public:
  RankDriver(const Setup& setup, multiproc::Context& ctx, Board& board, uint64_t ops)
      : setup_(setup),
        rank_(ctx.rank),
        board_(board),
        ops_(ops),
        rng_(mix(setup.seed ^ (ctx.rank + 1) * 0x51ed)),
        worker_(ctx.worker.get()),
        peers_(ctx.peers) {
    for (unsigned peer = 0; peer < setup.ranks; ++peer) {
      plans_out_.push_back(plan_pair(setup, rank_, peer));
      plans_in_.push_back(plan_pair(setup, peer, rank_));
    }
    next_send_.assign(setup.ranks, 0);
    for (std::size_t i = 0; i <= kMaxReceivesPosted; ++i) {
      unsigned char* buffer = nullptr;
      if (setup.mapped_buffers && i % 2 == 0) {
        buffer = static_cast<unsigned char*>(worker_->mem_alloc(capacity() + kGuardBytes));
        if (buffer == nullptr) fail("mem_alloc of a receive buffer failed");
        mapped_buffers_.push_back(buffer);
      } else {
        buffers_.emplace_back(new unsigned char[capacity() + kGuardBytes]);
        buffer = buffers_.back().get();
      }
      std::memset(buffer, kUntouched, capacity() + kGuardBytes);
      free_buffers_.push_back(buffer);
    }
  }
  ~RankDriver() {
    for (unsigned char* buffer : mapped_buffers_) worker_->mem_free(buffer);
  }
  RankDriver(const RankDriver&) = delete;
  RankDriver& operator=(const RankDriver&) = delete;

  int run() {
    progress_barrier();
    while (op_ < ops_) step();
    operations_ = op_;
    drain();
    progress_barrier();
    int result = check();
    progress_barrier();
    return result;
  }

 private:
  struct PostedReceive {
    Request* request;
    std::size_t record;
    unsigned char* buffer;
  };
  struct SendInFlight {
    Request* request;
    unsigned receiver;
    uint64_t seq;
    std::vector<unsigned char> data;
  };
  struct SyncSeen {
    unsigned receiver;
    uint64_t seq;
    uint64_t consumers_started;
  };
  struct Spec {
    uint64_t tag;
    uint64_t mask;
  };

  [[nodiscard]] std::size_t capacity() const { return setup_.sizes.max_length; }
  // Receives large enough for a matching device take any message whole. In
  // software phases half the receives are smaller than the device's
  // threshold, and long messages end Truncated in them.
  std::size_t random_capacity() {
    const std::size_t small_limit = std::min(setup_.sizes.offload_threshold, capacity());
    if (device_phase() || rng_() % 2 == 0 || small_limit <= kIdBytes + 1) return capacity();
    return kIdBytes + rng_() % (small_limit - kIdBytes);
  }
  [[noreturn]] void fail(const std::string& what) const { fatal(setup_, rank_, op_, what); }

  // In even phases every receive can go to a matching device; odd ones mix
  // in receives kept in software, which keep later ones off the device too.
  [[nodiscard]] bool device_phase() const { return (op_ / kPhaseOps) % 2 == 0; }

  void step() {
    if (op_ % kPhaseOps == 0 && device_phase()) cancel_software_only();
    // Device phases send less and progress more: a sender goes through the
    // device only once its receiver has read all it sent before.
    const unsigned roll = static_cast<unsigned>(rng_() % 100) + (device_phase() ? 18 : 0);
    if (roll < 30) {
      send_next();
    } else if (roll < 55) {
      receive(random_spec(), nullptr);
    } else if (roll < 63) {
      probe_then_receive();
    } else if (roll < 71) {
      probe_and_receive(random_spec());
    } else if (roll < 79) {
      cancel_one();
    } else {
      progress_once();
    }
  }

  Spec random_spec() {
    const uint64_t base = make_tag(static_cast<unsigned>(rng_() % setup_.ranks), setup_.user_tags[rng_() % kUserTags]);
    const unsigned roll = static_cast<unsigned>(rng_() % 100);
    uint64_t mask = kTagMaskAll;
    if (roll >= 97) return {base | (uint64_t{1} << 44), kTagMaskAll};  // bit 44 is in no tag sent
    if (roll >= 70) mask = rng_();
    else if (roll >= 65) mask = 0;
    else if (roll >= 55) mask = ~(kSourceBits | kUserBits);
    else if (roll >= 45) mask = ~kUserBits;
    else if (roll >= 30) mask = ~kSourceBits;
    return {base ^ (rng_() & ~mask), mask};
  }

  // Before a call that may consume a message: the count synchronous
  // senders compare against (check 8).
  void announce_consumer() { board_.consumers_started[rank_].store(op_ + 1, std::memory_order_seq_cst); }

  unsigned char* take_buffer() {
    unsigned char* buffer = free_buffers_.back();
    free_buffers_.pop_back();
    return buffer;
  }

  void send_next() {
    unsigned receiver = static_cast<unsigned>(rng_() % setup_.ranks);
    for (unsigned tries = 0; tries < setup_.ranks && next_send_[receiver] == setup_.messages_per_pair; ++tries)
      receiver = (receiver + 1) % setup_.ranks;
    if (next_send_[receiver] == setup_.messages_per_pair || sends_.size() >= kMaxSendsInFlight) {
      progress_once();
      return;
    }
    send_to(receiver);
  }

  void send_to(unsigned receiver) {
    const uint64_t seq = next_send_[receiver]++;
    const PlannedMessage& message = plans_out_[receiver][seq];
    std::vector<unsigned char> data(message.length);
    fill_payload(data.data(), message.length, message_id(rank_, receiver, seq),
                 short_message_key(message.tag, message.length, receiver));
    Request* request = nullptr;
    const Status status = worker_->tag_send_nb(peers_[receiver], data.data(), message.length, message.tag, request,
                                               message.sync ? unsigned{kSendSync} : 0u);
    ++epoch_;
    if (status == Status::Ok) {
      if (message.sync) see_sync_done(receiver, seq);
    } else if (status == Status::InProgress) {
      sends_.push_back({request, receiver, seq, std::move(data)});
    } else {
      fail(std::string("tag_send_nb: ") + to_string(status));
    }
    ++op_;
  }

  void see_sync_done(unsigned receiver, uint64_t seq) {
    sync_seen_.push_back({receiver, seq, board_.consumers_started[receiver].load(std::memory_order_seq_cst)});
  }

  // A receive of `spec`; `peeked` is what a probe of the same spec just saw.
  void receive(Spec spec, const TagRecvInfo* peeked) {
    if (receives_.size() >= kMaxReceivesPosted) {
      cancel_one();
      return;
    }
    ConsumeRecord record{.op = op_, .epoch = epoch_, .tag = spec.tag, .mask = spec.mask, .capacity = random_capacity()};
    if (peeked != nullptr) {
      record.after_peek = true;
      record.peek_tag = peeked->sender_tag;
      record.peek_length = peeked->length;
    }
    unsigned char* buffer = take_buffer();
    announce_consumer();
    Request* request = nullptr;
    TagRecvInfo info;
    const Status status = worker_->tag_recv_nb(buffer, record.capacity, spec.tag, spec.mask, request, &info);
    start_consumer(record, status, request, info, buffer);
  }

  void start_consumer(ConsumeRecord& record, Status status, Request* request, const TagRecvInfo& info,
                      unsigned char* buffer) {
    if (status == Status::InProgress) {
      receives_.push_back({request, log_.consumers.size(), buffer});
    } else if (status == Status::Ok || status == Status::Truncated) {
      record.done_at_once = true;
      deliver(record, status, info, buffer);
      free_buffers_.push_back(buffer);
    } else {
      fail(std::string(record.is_probe ? "tag_msg_recv_nb: " : "tag_recv_nb: ") + to_string(status));
    }
    log_.consumers.push_back(record);
    ++op_;
  }

  void probe_then_receive() {
    const Spec spec = random_spec();
    TagRecvInfo info;
    const Status status = worker_->tag_probe(spec.tag, spec.mask, info);
    if (status != Status::Ok && status != Status::NotFound) fail(std::string("tag_probe: ") + to_string(status));
    log_.probes.push_back({op_, epoch_, spec.tag, spec.mask, status == Status::Ok, info.sender_tag});
    ++op_;
    ++probes_;
    if (status == Status::Ok && receives_.size() < kMaxReceivesPosted) receive(spec, &info);
  }

  void probe_and_receive(Spec spec) {
    if (receives_.size() >= kMaxReceivesPosted) {
      progress_once();
      return;
    }
    announce_consumer();
    TagRecvInfo info;
    Message* message = nullptr;
    ++probes_;
    const Status found = worker_->tag_probe(spec.tag, spec.mask, info, &message);
    if (found == Status::NotFound) {
      log_.probes.push_back({op_, epoch_, spec.tag, spec.mask, false, 0});
      ++op_;
      return;
    }
    if (found != Status::Ok) fail(std::string("tag_probe: ") + to_string(found));
    ConsumeRecord record{
        .op = op_, .epoch = epoch_, .tag = spec.tag, .mask = spec.mask, .capacity = random_capacity(), .is_probe = true};
    record.after_peek = true;
    record.peek_tag = info.sender_tag;
    record.peek_length = info.length;
    unsigned char* buffer = take_buffer();
    Request* request = nullptr;
    TagRecvInfo received;
    const Status status = worker_->tag_msg_recv_nb(buffer, record.capacity, message, request, &received);
    start_consumer(record, status, request, received, buffer);
  }

  // A device phase starts with no receive in software where it can help it.
  void cancel_software_only() {
    for (std::size_t i = receives_.size(); i-- > 0;) {
      if (log_.consumers[receives_[i].record].capacity < setup_.sizes.offload_threshold) cancel(i);
    }
  }

  void cancel_one() {
    if (receives_.empty()) {
      progress_once();
      return;
    }
    cancel(static_cast<std::size_t>(rng_() % receives_.size()));
  }

  void cancel(std::size_t index) {
    PostedReceive posted = receives_[index];
    ConsumeRecord& record = log_.consumers[posted.record];
    const Status status = worker_->cancel(posted.request);
    if (status == Status::Ok) {
      if (posted.request->status() != Status::Canceled)
        fail(describe(record) + ": canceled, but it ended " + to_string(posted.request->status()));
      record.outcome = Outcome::Canceled;
      record.cancel_op = op_;
      for (std::size_t i = 0; i < kCanceledBytesChecked && i < record.capacity; ++i)
        record.canceled_buffer_touched |= posted.buffer[i] != kUntouched;
      worker_->release(posted.request);
      free_buffers_.push_back(posted.buffer);
      receives_[index] = receives_.back();
      receives_.pop_back();
    } else if (status == Status::Busy) {
      record.cancel_refused = true;
    } else {
      fail(std::string("cancel: ") + to_string(status));
    }
    ++op_;
  }

  // Progress once and take note of every completion it brought.
  unsigned progress_once() {
    const unsigned events = worker_->progress();
    ++epoch_;
    for (std::size_t i = 0; i < receives_.size();) {
      PostedReceive& posted = receives_[i];
      if (!posted.request->done()) {
        ++i;
        continue;
      }
      ConsumeRecord& record = log_.consumers[posted.record];
      record.seen_done_op = op_;
      deliver(record, posted.request->status(), posted.request->info(), posted.buffer);
      worker_->release(posted.request);
      free_buffers_.push_back(posted.buffer);
      receives_[i] = receives_.back();
      receives_.pop_back();
    }
    for (std::size_t i = 0; i < sends_.size();) {
      SendInFlight& send = sends_[i];
      if (!send.request->done()) {
        ++i;
        continue;
      }
      if (send.request->status() != Status::Ok)
        fail("send of message " + std::to_string(send.seq) + " to rank " + std::to_string(send.receiver) + " ended " +
             to_string(send.request->status()));
      if (plans_out_[send.receiver][send.seq].sync) see_sync_done(send.receiver, send.seq);
      // Done: the buffer is ours again. Scribbled over, so that data the
      // engine still read from it after completing the send shows as a
      // difference at the receiver.
      if (!send.data.empty()) std::memset(send.data.data(), kUntouched, send.data.size());
      worker_->release(send.request);
      sends_[i] = std::move(sends_.back());
      sends_.pop_back();
    }
    ++op_;
    return events;
  }

  // What a consumer got; its buffer is made untouched again for the next.
  void deliver(ConsumeRecord& record, Status status, const TagRecvInfo& info, unsigned char* buffer) {
    if (record.seen_done_op == kNoOp) record.seen_done_op = op_;
    record.outcome = Outcome::Delivered;
    record.status = status;
    record.sender_tag = info.sender_tag;
    record.length = info.length;
    const std::size_t landed = std::min(info.length, record.capacity);
    std::size_t differs;
    if (landed >= kIdBytes) {
      std::memcpy(&record.header_id, buffer, kIdBytes);
      differs = first_payload_difference(buffer, landed, record.header_id, 0);
    } else {
      differs = first_payload_difference(buffer, landed, 0, short_message_key(info.sender_tag, info.length, rank_));
    }
    record.bad_byte = differs == landed ? kNoDifference : differs;
    for (std::size_t i = landed; i < landed + kGuardBytes; ++i) record.overrun |= buffer[i] != kUntouched;
    std::memset(buffer, kUntouched, landed + kGuardBytes);
    ++delivered_;
  }

  // Cancels what is still posted, sends what is still planned, and takes
  // every message still owed to this rank with a probe that matches all.
  // Only the calls that did something count as operations here.
  void drain() {
    for (std::size_t i = receives_.size(); i-- > 0;) cancel(i);
    const uint64_t consumers_before = log_.consumers.size();
    const uint64_t probe_calls_before = probes_;
    uint64_t sent = 0;
    const std::size_t owed = setup_.ranks * setup_.messages_per_pair;
    auto last_change = Clock::now();
    for (;;) {
      const std::size_t before = delivered_ + sends_.size() + receives_.size() + sent;
      for (unsigned r = 0; r < setup_.ranks; ++r) {
        for (; next_send_[r] < setup_.messages_per_pair && sends_.size() < kMaxSendsInFlight; ++sent) send_to(r);
      }
      while (delivered_ + receives_.size() < owed && receives_.size() < kMaxReceivesPosted) {
        const std::size_t probes_before = log_.probes.size();
        probe_and_receive({0, 0});
        if (log_.probes.size() != probes_before) {
          log_.probes.pop_back();  // an empty drain probe proves nothing worth keeping
          break;
        }
      }
      const unsigned events = progress_once();
      const bool sent_all = std::all_of(next_send_.begin(), next_send_.end(),
                                        [&](uint64_t next) { return next == setup_.messages_per_pair; });
      if (sent_all && sends_.empty() && receives_.empty() && delivered_ >= owed) break;
      if (before != delivered_ + sends_.size() + receives_.size() + sent) {
        last_change = Clock::now();
      } else if (Clock::now() - last_change > patience()) {
        std::fprintf(stderr, "ordering_stress: rank %u: nothing moved for %lld s while draining (%zu of %zu delivered)\n",
                     rank_, static_cast<long long>(patience().count()), delivered_, owed);
        report_stuck();
        break;  // the model names what is missing
      }
      if (events == 0) sched_yield();
    }
    operations_ += sent + (log_.consumers.size() - consumers_before);
    probes_ = probe_calls_before + (log_.consumers.size() - consumers_before);  // those that found a message
  }

  // What a stuck rank still waits for, to tell a lost message from a stuck send.
  void report_stuck() const {
    std::vector<std::size_t> from(setup_.ranks, 0);
    for (const ConsumeRecord& record : log_.consumers) {
      if (record.outcome == Outcome::Delivered && source_of(record.sender_tag) < setup_.ranks)
        ++from[source_of(record.sender_tag)];
    }
    for (unsigned peer = 0; peer < setup_.ranks; ++peer) {
      std::fprintf(stderr, "ordering_stress: rank %u: from rank %u %zu of %zu delivered; to it %llu of %zu sent\n", rank_,
                   peer, from[peer], setup_.messages_per_pair, static_cast<unsigned long long>(next_send_[peer]),
                   setup_.messages_per_pair);
    }
    for (const SendInFlight& send : sends_) {
      const PlannedMessage& message = plans_out_[send.receiver][send.seq];
      std::fprintf(stderr, "ordering_stress: rank %u: send of message %llu to rank %u (%zu B%s) not complete\n", rank_,
                   static_cast<unsigned long long>(send.seq), send.receiver, message.length,
                   message.sync ? ", synchronous" : "");
    }
    for (const PostedReceive& posted : receives_)
      std::fprintf(stderr, "ordering_stress: rank %u: %s not complete\n", rank_, describe(log_.consumers[posted.record]).c_str());
  }

  // Well within the job's time limit (multiproc::kTimeoutSeconds), so that a
  // stuck rank still reports what it waits for.
  [[nodiscard]] static std::chrono::seconds patience() { return std::chrono::seconds(20); }

  int check() {
    ModelCounts counts;
    int result = 0;
    if (auto difference = check_receiver(setup_, rank_, plans_in_, log_, counts)) {
      std::fprintf(stderr, "ordering_stress: FAIL seed %llu, %u ranks, rank %u: %s\n",
                   static_cast<unsigned long long>(setup_.seed), setup_.ranks, rank_, difference->c_str());
      result = 1;
    } else {
      for (const ConsumeRecord& record : log_.consumers) {
        if (record.outcome == Outcome::Delivered && plans_in_[record.source][record.seq].sync)
          board_.consumer(setup_, record.source, rank_, record.seq) = record.op;
      }
    }
    progress_barrier();
    uint64_t sync_checked = 0;
    for (const SyncSeen& seen : sync_seen_) {
      const uint64_t consumer = board_.consumer(setup_, rank_, seen.receiver, seen.seq);
      if (consumer == kNoOp) continue;  // its receiver failed its own checks
      ++sync_checked;
      if (consumer < seen.consumers_started || result != 0) continue;
      std::fprintf(stderr,
                   "ordering_stress: FAIL seed %llu, %u ranks, rank %u: synchronous send of message %llu to rank %u "
                   "completed when that rank had started its ops below %llu only, but op %llu consumed it\n",
                   static_cast<unsigned long long>(setup_.seed), setup_.ranks, rank_,
                   static_cast<unsigned long long>(seen.seq), seen.receiver,
                   static_cast<unsigned long long>(seen.consumers_started), static_cast<unsigned long long>(consumer));
      result = 1;
    }
    Totals& totals = board_.totals;
    totals.ops += operations_;
    totals.deliveries += counts.deliveries;
    totals.bytes += counts.bytes;
    totals.canceled += counts.canceled;
    totals.cancel_refused += counts.cancel_refused;
    totals.probes += probes_;
    totals.sync_checked += sync_checked;
    totals.overtaking_checks += counts.overtaking_checks;
    totals.epoch_checks += counts.epoch_checks;
    totals.ambiguous += counts.ambiguous;
    return result;
  }

  // A barrier that keeps this worker serving its peers (acknowledgements,
  // rendezvous reads) while it waits.
  void progress_barrier() {
    ++barriers_;
    board_.barrier_arrivals.fetch_add(1, std::memory_order_seq_cst);
    const auto deadline = Clock::now() + 2 * patience();
    while (board_.barrier_arrivals.load(std::memory_order_seq_cst) < barriers_ * setup_.ranks) {
      if (worker_->progress() == 0) sched_yield();
      if (Clock::now() > deadline) fail("a peer never reached barrier " + std::to_string(barriers_));
    }
  }

  const Setup& setup_;
  const unsigned rank_;
  Board& board_;
  const uint64_t ops_;
  std::mt19937_64 rng_;
  Worker* worker_;
  std::vector<Endpoint*> peers_;
  std::vector<std::vector<PlannedMessage>> plans_out_;  // by receiver
  std::vector<std::vector<PlannedMessage>> plans_in_;   // by sender
  std::vector<uint64_t> next_send_;                     // by receiver
  std::vector<std::unique_ptr<unsigned char[]>> buffers_;
  std::vector<unsigned char*> mapped_buffers_;  // from mem_alloc
  std::vector<unsigned char*> free_buffers_;
  std::vector<PostedReceive> receives_;
  std::vector<SendInFlight> sends_;
  std::vector<SyncSeen> sync_seen_;
  ReceiverLog log_;
  uint64_t op_ = 0;
  uint64_t epoch_ = 0;
  uint64_t barriers_ = 0;
  uint64_t probes_ = 0;
  std::size_t delivered_ = 0;
  uint64_t operations_ = 0;  // the calls of the main loop and those of the drain that did something
};

bool read_number(const char* name, uint64_t& out) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return true;
  char* end = nullptr;
  out = std::strtoull(text, &end, 0);
  if (*end == '\0') return true;
  std::fprintf(stderr, "ordering_stress: FAIL: %s=%s is not a number\n", name, text);
  return false;
}

bool read_options(Options& options) {
  uint64_t scale = 1;
  if (!read_number("TERN_TEST_TIME_SCALE", scale)) return false;
  options.time_scale = static_cast<unsigned>(std::max<uint64_t>(scale, 1));
  options.ops = kDefaultOps / options.time_scale;
  options.seed = mix(static_cast<uint64_t>(Clock::now().time_since_epoch().count()) ^ getpid()) & 0xffffffffffffull;
  if (!read_number("TERN_STRESS_OPS", options.ops) || !read_number("TERN_STRESS_SEED", options.seed)) return false;
  uint64_t ranks = 0;
  if (!read_number("TERN_STRESS_RANKS", ranks)) return false;
  if (ranks == 1 || ranks > kMaxRanks) {
    std::fprintf(stderr, "ordering_stress: FAIL: TERN_STRESS_RANKS=%llu: 2 to %u\n", static_cast<unsigned long long>(ranks),
                 kMaxRanks);
    return false;
  }
  options.ranks = static_cast<unsigned>(ranks);
  if (const char* sync = std::getenv("TERN_STRESS_SYNC")) {
    options.sync_single_fragment = std::string(sync) == "single-fragment";
    if (!options.sync_single_fragment && std::string(sync) != "all") {
      std::fprintf(stderr, "ordering_stress: FAIL: TERN_STRESS_SYNC=%s: all or single-fragment\n", sync);
      return false;
    }
  }
  if (const char* mapped = std::getenv("TERN_STRESS_MAPPED")) {
    options.mapped_buffers = std::string(mapped) == "1";
    if (!options.mapped_buffers && std::string(mapped) != "0") {
      std::fprintf(stderr, "ordering_stress: FAIL: TERN_STRESS_MAPPED=%s: 0 or 1\n", mapped);
      return false;
    }
  }
  if (const char* offload = std::getenv("TERN_TM_OFFLOAD")) options.offload = offload;
  if (options.offload != "on" && options.offload != "off" && options.offload != "auto") {
    std::fprintf(stderr, "ordering_stress: FAIL: TERN_TM_OFFLOAD=%s: on, off or auto\n", options.offload.c_str());
    return false;
  }
  return true;
}

int run(const Options& options) {
  const runtime::Config& config = runtime::global_config();
  std::vector<unsigned> job_sizes{2, 3, 4};
  if (options.ranks != 0) job_sizes = {options.ranks};
  std::printf("ordering_stress: seed %llu, %llu operations over %s ranks, TERN_TM_OFFLOAD=%s, synchronous sends of "
              "%s%s\n",
              static_cast<unsigned long long>(options.seed), static_cast<unsigned long long>(options.ops),
              options.ranks != 0 ? std::to_string(options.ranks).c_str() : "2, 3 and 4", options.offload.c_str(),
              options.sync_single_fragment ? "one fragment only (TERN_STRESS_SYNC=single-fragment)" : "every size",
              options.mapped_buffers ? ", half the receive buffers mapped by local peers" : "");
  uint64_t all_ops = 0, all_deliveries = 0;
  for (unsigned ranks : job_sizes) {
    Setup setup;
    setup.seed = options.seed;
    setup.ranks = ranks;
    choose_user_tags(options.seed, setup.user_tags);
    setup.sizes = size_menu(config, ranks);
    if (options.sync_single_fragment) setup.longest_sync = setup.sizes.one_fragment - kFragmentSlack;
    setup.mapped_buffers = options.mapped_buffers;
    const uint64_t ops_per_rank = std::max<uint64_t>(options.ops / job_sizes.size() / ranks, 100);
    // About 3 in 10 operations send; a few more messages come from the drain.
    setup.messages_per_pair = std::max<uint64_t>(ops_per_rank * 28 / 100 / ranks, 4);
    const std::size_t board_bytes = Board::bytes_for(setup);
    void* mapping = mmap(nullptr, board_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
      std::fprintf(stderr, "ordering_stress: FAIL: mmap of %zu bytes\n", board_bytes);
      return 1;
    }
    Board* board = new (mapping) Board();
    std::memset(static_cast<void*>(board + 1), 0xff, board_bytes - sizeof(Board));
    const auto started = Clock::now();
    const int code = multiproc::run_job(
        ranks,
        [&](multiproc::Context& ctx) {
          RankDriver driver(setup, ctx, *board, ops_per_rank);
          return driver.run();
        },
        [&](WorkerParams& params) {
          params.on_host_only = true;
          // More processes than cores: sleep in blocking waits instead of spinning.
          if (ranks > std::thread::hardware_concurrency()) params.config.wait_mode = runtime::WaitMode::Block;
        });
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    const Totals& t = board->totals;
    if (code != 0) {
      std::printf("ordering_stress: FAIL on %u ranks (exit code %d); replay: TERN_STRESS_SEED=%llu TERN_STRESS_OPS=%llu\n",
                  ranks, code, static_cast<unsigned long long>(options.seed),
                  static_cast<unsigned long long>(options.ops));
      munmap(mapping, board_bytes);
      return 1;
    }
    std::printf("ordering_stress: %u ranks: %llu operations, %llu deliveries (%.1f MB) checked, %llu receives canceled "
                "(%llu cancels lost the race to a match), %llu probes, %llu synchronous sends, %llu non-overtaking "
                "pairs, %llu same-epoch pairs, %llu short messages named by class; %.1f s\n",
                ranks, static_cast<unsigned long long>(t.ops.load()), static_cast<unsigned long long>(t.deliveries.load()),
                static_cast<double>(t.bytes.load()) / 1e6, static_cast<unsigned long long>(t.canceled.load()),
                static_cast<unsigned long long>(t.cancel_refused.load()), static_cast<unsigned long long>(t.probes.load()),
                static_cast<unsigned long long>(t.sync_checked.load()),
                static_cast<unsigned long long>(t.overtaking_checks.load()),
                static_cast<unsigned long long>(t.epoch_checks.load()), static_cast<unsigned long long>(t.ambiguous.load()),
                seconds);
    all_ops += t.ops.load();
    all_deliveries += t.deliveries.load();
    board->~Board();
    munmap(mapping, board_bytes);
  }
  std::printf("ordering_stress: PASS seed %llu: %llu operations, %llu deliveries, zero differences from the model\n",
              static_cast<unsigned long long>(options.seed), static_cast<unsigned long long>(all_ops),
              static_cast<unsigned long long>(all_deliveries));
  return 0;
}

}  // namespace
}  // namespace tern::engine::tag::stress

int main() {
  tern::engine::tag::stress::Options options;
  if (!tern::engine::tag::stress::read_options(options)) return 2;
  return tern::engine::tag::stress::run(options);
}
