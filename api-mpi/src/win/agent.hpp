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
  // The replies of one message's whole requests, gathered to leave as one
  // message once the message is handled (protocol.hpp).
  struct JointReply {
    std::size_t count = 0;  // replies, zero-byte ones too
    std::size_t size = 0;   // their bytes
    // The first, where it lies until a second one comes (`owned` by it or null).
    const std::byte* first = nullptr;
    void* first_owned = nullptr;
    // From the second on: all of them, copied.
    std::byte* data = nullptr;
    std::size_t capacity = 0;
  };
  // A message from `source`: one request or a batch, `length` bytes at
  // `message`; answers its whole requests' replies together.
  void handle(const std::byte* message, std::size_t length, int source);
  void handle_requests(const std::byte* message, std::size_t length, int source, JointReply& joint);
  // One request of it, whose header (copied out, checked for length) is at `message`.
  void handle_one(const RmaHeader& header, const std::byte* message, int source, JointReply& joint);
  // A checked request (its layout and data in `body` when not separate);
  // its reply joins `joint`, or leaves alone when that is null.
  void apply(const RmaHeader& header, const std::byte* body, int source, JointReply* joint);
  // Where [address, address + span) is in this process; null (and the
  // origin's error set) when outside the window.
  std::byte* resolve(uint64_t address, uint64_t span, int source);
  void refuse(int source, int error_class, const char* format, ...) __attribute__((format(printf, 4, 5)));
  void send_ack(int origin, uint32_t kind);
  // Sends `bytes` at `data` to `origin` as a reply, or adds them to `joint`
  // when it is not null; frees `owned` afterwards (malloc's, or with
  // `pooled_bytes` temp_get's of that size).
  void send_reply(int origin, const void* data, std::size_t bytes, void* owned, JointReply* joint = nullptr,
                  std::size_t pooled_bytes = 0);
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
