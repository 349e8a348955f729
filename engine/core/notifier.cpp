#include "tern/engine/notifier.hpp"

#include <chrono>

namespace tern::engine {

bool Notifier::wait(int timeout_ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto ready = [this] { return stopped_ || !queue_.empty(); };
  if (timeout_ms < 0) {
    cv_.wait(lock, ready);
  } else {
    cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), ready);
  }
  return !stopped_ && !queue_.empty();
}

unsigned Notifier::run_pending() {
  std::vector<Entry> batch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch.swap(queue_);
  }
  // Run without the lock: a callback may start operations whose callbacks
  // the progress thread queues here meanwhile.
  for (const Entry& entry : batch) entry.callback.function(entry.callback.user_data, entry.status, entry.info);
  return static_cast<unsigned>(batch.size());
}

void Notifier::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
  }
  cv_.notify_all();
}

bool Notifier::stopped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stopped_;
}

std::size_t Notifier::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

void Notifier::post(const Callback& callback, Status status, const TagRecvInfo& info) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back({callback, status, info});
  }
  cv_.notify_one();
}

}  // namespace tern::engine
