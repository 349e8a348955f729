// A notifier (../shared/seeds/004's notifier thread): completion callbacks
// routed to it are queued by whoever progresses the worker and run by a
// thread of the program's choosing, which waits on the notifier. So a
// progress thread never runs user code that may block (take a lock the
// program holds, wait on another completion, call into an interpreter): it
// only appends to this queue.
//
//   Notifier notifier;                       // outlives the worker's use of it
//   worker->set_notifier(&notifier);         // or Callback::notifier per call
//   std::thread thread([&] {
//     while (notifier.wait()) notifier.run_pending();
//     notifier.run_pending();                // what came before stop()
//   });
//   ...
//   notifier.stop();                         // wait() returns false from now on
//   thread.join();
//
// Callbacks of one notifier run in the order their operations ended (the
// order the worker would have run them in), one at a time on the thread that
// calls run_pending (with several such threads, batches may overlap).
// Everything here is safe from any thread.
#pragma once

#include <condition_variable>
#include <mutex>
#include <vector>

#include "tern/engine/callback.hpp"

namespace tern::engine {

class Notifier {
 public:
  Notifier() = default;
  ~Notifier() = default;
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  // Sleeps until callbacks are pending or stop() was called, at most
  // `timeout_ms` (negative: no limit). True when callbacks are pending and
  // the notifier runs; false once stopped (run_pending still runs what is
  // left) or when the time ran out with nothing pending.
  [[nodiscard]] bool wait(int timeout_ms = -1);
  // Runs the callbacks pending now on the calling thread, oldest first, and
  // returns how many ran. Callbacks queued while they run wait for the next call.
  unsigned run_pending();
  // Wakes every waiter; wait() returns false from then on.
  void stop();
  [[nodiscard]] bool stopped() const;
  // Callbacks queued and not yet run.
  [[nodiscard]] std::size_t pending() const;

  // Queues one callback (the worker's progress does this). Never runs user code.
  void post(const Callback& callback, Status status, const TagRecvInfo& info);

 private:
  struct Entry {
    Callback callback;
    Status status;
    TagRecvInfo info;
  };

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Entry> queue_;  // guarded by mutex_
  bool stopped_ = false;      // guarded by mutex_
};

}  // namespace tern::engine
