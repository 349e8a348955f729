// The target side of a served window (window.hpp): a receive kept posted on
// the window's private context for the requests of protocol.hpp. Whatever
// progresses the worker runs it (the target's MPI calls, its progress
// thread), one request at a time under the worker's lock, so the agent's
// state needs no lock of its own.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "tern/engine/callback.hpp"
#include "win/protocol.hpp"
#include "win/window.hpp"

namespace tern::mpi {

class Agent {
 public:
  explicit Agent(Window& win);
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Posts the first receive; the MPI error class.
  [[nodiscard]] int start();
  // MPI_Win_free, after its barrier: tells itself to stop and waits until
  // it has (no receive stays posted for a window that is gone).
  void stop();

 private:
  static void on_request(void* agent, Status status, const engine::TagRecvInfo& info);
  static void on_data(void* context, Status status, const engine::TagRecvInfo& info);
  void post();
  // A message from `source`: one request or a batch, `length` bytes at `message`.
  void handle(const std::byte* message, std::size_t length, int source);
  // One request of it, whose header (copied out, checked for length) is at `message`.
  void handle_one(const RmaHeader& header, const std::byte* message, int source);
  // A checked request (its layout and data in `body` when not separate).
  void apply(const RmaHeader& header, const std::byte* body, int source);
  // Where [address, address + span) is in this process; null (and the
  // origin's error set) when outside the window.
  std::byte* resolve(uint64_t address, uint64_t span, int source);
  void refuse(int source, int error_class, const char* format, ...) __attribute__((format(printf, 4, 5)));
  void send_ack(int origin, uint32_t kind);
  // Sends `bytes` at `data` to `origin` as a reply; frees `owned` afterwards.
  void send_reply(int origin, const void* data, std::size_t bytes, void* owned);
  void grant_waiting();
  // The requests `origin` sent while its separate data was on its way.
  void drain(int origin);

  Window& win_;
  std::vector<uint64_t> buffer_;  // the posted receive's, kBatchBytes bytes
  std::atomic<bool> stopped_{false};
  bool stopping_ = false;
  std::vector<int> pending_data_;                        // by origin
  std::vector<std::deque<std::vector<std::byte>>> held_;  // by origin: requests behind pending data
  std::vector<int> errors_;                              // by origin: first refusal since its last ack
  int shared_holders_ = 0;
  bool exclusive_held_ = false;
  std::deque<std::pair<int, bool>> lock_waiters_;  // (origin, exclusive)
};

}  // namespace tern::mpi
