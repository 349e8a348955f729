// The schedule engine (schedule.hpp): building rounds of steps, and running
// them from the engine's completion callbacks.
#include "coll/schedule.hpp"

#include "op/op.hpp"

#include <cstring>
#include <memory>

namespace tern::mpi {

unsigned Schedule::take_tag_base(Comm& comm, bool persistent) {
  // The blocking sequence space is the low half of the 16 sequence bits
  // (next_tag_base); persistent schedules own the high half.
  return persistent ? ((0x8000u | (comm.persistent_collective_sequence++ & 0x7FFFu)) << 8) : next_tag_base(comm);
}

Schedule::Schedule(Comm& comm, bool persistent) {
  lanes_[0] = Lane{&comm, collective_context(comm), static_cast<unsigned>(comm.rank), take_tag_base(comm, persistent)};
  lanes_[1] = lanes_[0];
}

void Schedule::set_bridge(Comm& bridge, unsigned tag_base) {
  lanes_[1] = Lane{&bridge, collective_context(bridge), static_cast<unsigned>(bridge.rank), tag_base};
}

void Schedule::next_round() {
  if (!rounds_.back().empty()) rounds_.emplace_back();
}

bool Schedule::send(const void* buffer, std::size_t bytes, int peer) {
  engine::Endpoint* endpoint = comm_endpoint(*lanes_[lane_].comm, peer);
  if (endpoint == nullptr) reachable_ = false;
  add(Step{StepKind::Send, buffer, nullptr, bytes, peer, endpoint, nullptr, 0, nullptr});
  return endpoint != nullptr;
}

bool Schedule::recv(void* buffer, std::size_t bytes, int peer) {
  add(Step{StepKind::Recv, nullptr, buffer, bytes, peer, nullptr, nullptr, 0, nullptr});
  return true;
}

void Schedule::decide(Decision decision, void* argument) {
  next_round();
  add(Step{StepKind::Decide, nullptr, argument, 0, 0, nullptr, nullptr, 0, decision});
  rounds_.emplace_back();
}

std::size_t Schedule::open_round() {
  next_round();
  return rounds_.size() - 1;
}

void Schedule::copy(const void* source, void* target, std::size_t bytes) {
  if (bytes != 0 && source != target) add(Step{StepKind::Copy, source, target, bytes, 0, nullptr, nullptr, 0, nullptr});
}

void Schedule::reduce(const void* in, void* inout, std::size_t count) {
  if (count != 0) add(Step{StepKind::Reduce, in, inout, count, 0, nullptr, nullptr, 0, nullptr});
}

std::byte* Schedule::scratch(std::size_t bytes) {
  // Not zeroed: every step writes its scratch before another reads it.
  scratch_.push_back(std::make_unique_for_overwrite<std::byte[]>(bytes == 0 ? 1 : bytes));
  return scratch_.back().get();
}

const void* Schedule::send_view(const void* user, std::size_t count, const std::shared_ptr<const DerivedType>& type) {
  if (type == nullptr || type->contiguous) return user;
  std::byte* packed = scratch(count * type->size);
  types_.push_back(type);
  add(Step{StepKind::Pack, user, packed, count, 0, nullptr, type.get(), 0, nullptr});
  return packed;
}

void* Schedule::recv_view(void* user, std::size_t count, const std::shared_ptr<const DerivedType>& type) {
  if (type == nullptr || type->contiguous) return user;
  std::byte* packed = scratch(count * type->size);
  types_.push_back(type);
  unpacks_.push_back(Step{StepKind::Unpack, packed, user, count, 0, nullptr, type.get(), 0, nullptr});
  return packed;
}

void* Schedule::inout_view(void* user, std::size_t count, const std::shared_ptr<const DerivedType>& type) {
  void* packed = const_cast<void*>(send_view(user, count, type));
  if (packed != user) unpacks_.push_back(Step{StepKind::Unpack, packed, user, count, 0, nullptr, type.get(), 0, nullptr});
  return packed;
}

void Schedule::seal() {
  if (unpacks_.empty()) return;
  next_round();
  for (const Step& step : unpacks_) add(step);
  unpacks_.clear();
}

int Schedule::error_class() const noexcept { return error_class_of(failure_.load(std::memory_order_acquire)); }

void Schedule::start() {
  round_ = 0;
  failure_.store(Status::Ok, std::memory_order_relaxed);
  done_.store(false, std::memory_order_relaxed);
  self_ = shared_from_this();
  advance();
}

void Schedule::note_failure(Status status) {
  Status expected = Status::Ok;
  (void)failure_.compare_exchange_strong(expected, status, std::memory_order_acq_rel);
}

void Schedule::run_local(const Step& step) {
  switch (step.kind) {
    case StepKind::Copy: std::memcpy(step.target, step.source, step.amount); break;
    case StepKind::Reduce:
      if (user_layout_ != nullptr) {
        reduce_in_layout(step);
      } else if (apply_op(op_, reduce_type_, step.source, step.target, step.amount) != MPI_SUCCESS) {
        note_failure(Status::InvalidParam);
      }
      break;
    case StepKind::Pack: pack_data(*step.type, step.source, step.amount, step.target); break;
    case StepKind::Unpack:
      unpack_data(*step.type, step.source, step.amount * step.type->size, step.target, step.amount);
      break;
    case StepKind::Decide: decided_ = step.decision(step.target); break;
    case StepKind::Send:
    case StepKind::Recv: break;
  }
}

void Schedule::reduce_in_layout(const Step& step) {
  const DerivedType& type = *user_layout_;
  const std::size_t bytes = step.amount * type.size;
  LayoutBuffer operand(type, step.amount), accumulator(type, step.amount);
  unpack_data(type, step.source, bytes, operand.origin(), step.amount);
  unpack_data(type, step.target, bytes, accumulator.origin(), step.amount);
  if (call_user_op(op_, reduce_type_, operand.origin(), accumulator.origin(), static_cast<int>(step.amount)) !=
      MPI_SUCCESS) {
    note_failure(Status::InvalidParam);
  }
  pack_data(type, accumulator.origin(), step.amount, step.target);
}

void Schedule::post(const Step& step) {
  const Lane& lane = lanes_[step.lane];
  const unsigned tag = lane.tag_base;
  const engine::Callback callback{&Schedule::on_transfer_done, this, nullptr};
  pending_.fetch_add(1, std::memory_order_relaxed);
  Status s;
  if (step.kind == StepKind::Send) {
    s = g_state->worker->tag_send_nb(step.endpoint, step.source, step.amount,
                                     make_tag(lane.context, lane.rank, tag), callback);
  } else {
    s = g_state->worker->tag_recv_nb(step.target, step.amount,
                                     make_tag(lane.context, static_cast<unsigned>(step.peer), tag), engine::kTagMaskAll,
                                     callback);
  }
  if (s == Status::InProgress) return;  // the callback counts it off
  if (s != Status::Ok) note_failure(s);
  pending_.fetch_sub(1, std::memory_order_relaxed);
}

void Schedule::advance() {
  while (round_ < rounds_.size()) {
    if (failure_.load(std::memory_order_acquire) != Status::Ok) break;
    const std::vector<Step>& steps = rounds_[round_];
    decided_ = kGoOn;
    for (const Step& step : steps) {
      if (step.kind != StepKind::Send && step.kind != StepKind::Recv) run_local(step);
    }
    if (decided_ == kFail) {
      note_failure(Status::NoMemory);
      break;
    }
    if (decided_ >= 0) {  // a decision's round has no transfers
      round_ = static_cast<std::size_t>(decided_);
      continue;
    }
    // One count held while posting, so no callback ends the round before
    // every transfer of it is out.
    pending_.store(1, std::memory_order_release);
    for (const Step& step : steps) {
      if (step.kind == StepKind::Send || step.kind == StepKind::Recv) post(step);
    }
    ++round_;
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;  // the last callback goes on
  }
  finish();
}

void Schedule::finish() {
  std::shared_ptr<Schedule> keep = std::move(self_);
  done_.store(true, std::memory_order_release);
  // `keep` may hold the last reference (a freed request): this ends here.
}

void Schedule::on_transfer_done(void* user_data, Status status, const engine::TagRecvInfo&) {
  auto* schedule = static_cast<Schedule*>(user_data);
  if (status != Status::Ok) schedule->note_failure(status);
  if (schedule->pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) schedule->advance();
}

int issue_schedule(const char* function, Comm& comm, MPI_Comm handle, std::shared_ptr<Schedule> schedule,
                   bool persistent, MPI_Request* request) {
  if (!schedule->reachable()) {
    return raise(&comm, MPI_ERR_OTHER, function, "a peer of the collective cannot be reached");
  }
  schedule->seal();
  RequestSlot* slot = nullptr;
  const MPI_Request handle_out = g_state->requests.get(slot);
  if (handle_out == MPI_REQUEST_NULL) return raise(&comm, MPI_ERR_NO_MEM, function, "no memory for another request");
  slot->kind = RequestKind::Collective;
  slot->comm = handle;
  slot->persistent = persistent;
  slot->active = !persistent;
  slot->schedule = std::move(schedule);
  if (!persistent) slot->schedule->start();
  *request = handle_out;
  return MPI_SUCCESS;
}

}  // namespace tern::mpi
