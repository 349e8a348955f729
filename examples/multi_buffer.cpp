// Multi-buffer transfers, completion callbacks and a notifier through the
// engine's C++ API. Run with two ranks:
//
//   ternrun -n 2 examples/example_multi_buffer
//
// Rank 0 sends three "tables" to rank 1, each a list of columns of its own
// sizes (1, 12 and 300 columns, from a few bytes to 1 MiB each), every
// table by one tag_send_multi. Rank 1 does not know how many columns come or
// how large they are: tag_recv_multi asks its allocator for each column as
// the header describes it. Neither rank tests or waits on requests: the
// worker's progress thread moves the data, and the completion callbacks run
// on a notifier thread of the program's, where they may block (here they
// take the program's lock and hand the table to the main thread), which the
// progress thread itself must never do.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tern/engine/job.hpp"
#include "tern/engine/notifier.hpp"
#include "tern/engine/worker.hpp"

namespace {

using tern::Status;
namespace engine = tern::engine;

constexpr uint64_t kTableTag = 0x100;  // the tables are tagged 0x100 + their index
constexpr uint64_t kTableMask = ~uint64_t{0xff};
constexpr uint64_t kByeTag = 0x200;
constexpr std::size_t kColumns[] = {1, 12, 300};
constexpr std::size_t kTables = sizeof(kColumns) / sizeof(kColumns[0]);

std::size_t column_size(std::size_t table, std::size_t column) {
  const std::size_t sizes[] = {8, 100, 4000, 65536, 1u << 20, 333};
  return sizes[(table + column) % 6];
}
unsigned char column_byte(std::size_t table, std::size_t column, std::size_t i) {
  return static_cast<unsigned char>(table * 7 + column * 3 + i);
}

// What the callbacks hand to the main thread, under the program's lock.
struct Shared {
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t sent = 0;
  std::size_t received = 0;
  std::size_t received_bytes = 0;
  bool failed = false;
};

// One table being received: its columns, allocated by the allocator below.
struct Incoming {
  Shared* shared = nullptr;
  std::vector<engine::RecvFrame> columns;
  std::vector<std::unique_ptr<unsigned char[]>> memory;
};

// Runs in progress (with the worker's lock held): it only allocates.
void* allocate_column(void* user_data, std::size_t size, engine::MemoryKind) {
  auto* incoming = static_cast<Incoming*>(user_data);
  incoming->memory.emplace_back(new unsigned char[size == 0 ? 1 : size]);
  return incoming->memory.back().get();
}

// Runs on the notifier thread: checks the table and takes the program's lock.
void table_received(void* user_data, Status status, const engine::TagRecvInfo& info) {
  auto* incoming = static_cast<Incoming*>(user_data);
  const std::size_t table = info.sender_tag - kTableTag;
  bool good = status == Status::Ok && table < kTables && incoming->columns.size() == kColumns[table];
  for (std::size_t c = 0; good && c < incoming->columns.size(); ++c) {
    const auto* bytes = static_cast<const unsigned char*>(incoming->columns[c].data);
    good = incoming->columns[c].size == column_size(table, c);
    for (std::size_t i = 0; good && i < incoming->columns[c].size; ++i) good = bytes[i] == column_byte(table, c, i);
  }
  if (!good) std::fprintf(stderr, "multi_buffer: table %zu arrived wrong (%s)\n", table, tern::to_string(status));
  std::lock_guard<std::mutex> lock(incoming->shared->mutex);
  incoming->shared->failed = incoming->shared->failed || !good;
  incoming->shared->received_bytes += info.length;
  ++incoming->shared->received;
  incoming->shared->changed.notify_all();
}

void table_sent(void* user_data, Status status, const engine::TagRecvInfo&) {
  auto* shared = static_cast<Shared*>(user_data);
  std::lock_guard<std::mutex> lock(shared->mutex);
  shared->failed = shared->failed || status != Status::Ok;
  ++shared->sent;
  shared->changed.notify_all();
}

int fail(const char* what, Status status) {
  std::fprintf(stderr, "multi_buffer: %s failed: %s\n", what, tern::to_string(status));
  return 1;
}

int send_tables(engine::Worker& worker, engine::Endpoint* endpoint, Shared& shared) {
  std::vector<std::vector<std::vector<unsigned char>>> tables(kTables);
  for (std::size_t t = 0; t < kTables; ++t) {
    std::vector<engine::SendFrame> columns;
    for (std::size_t c = 0; c < kColumns[t]; ++c) {
      std::vector<unsigned char>& column = tables[t].emplace_back(column_size(t, c));
      for (std::size_t i = 0; i < column.size(); ++i) column[i] = column_byte(t, c, i);
    }
    for (const auto& column : tables[t]) columns.push_back({column.data(), column.size()});
    // Ok: every column went out inside the call (no callback will run).
    const Status s = worker.tag_send_multi(endpoint, columns, kTableTag + t, {&table_sent, &shared});
    if (s == Status::Ok) {
      table_sent(&shared, Status::Ok, {});
    } else if (s != Status::InProgress) {
      return fail("tag_send_multi", s);
    }
  }
  // The columns stay untouched until the receiver has them all.
  std::unique_lock<std::mutex> lock(shared.mutex);
  shared.changed.wait(lock, [&] { return shared.sent == kTables; });
  return shared.failed ? 1 : 0;
}

int receive_tables(engine::Worker& worker, Shared& shared) {
  std::vector<Incoming> incoming(kTables);
  for (Incoming& table : incoming) {
    table.shared = &shared;
    const Status s = worker.tag_recv_multi(kTableTag, kTableMask, {&allocate_column, &table}, table.columns,
                                           {&table_received, &table});
    if (s != Status::InProgress) return fail("tag_recv_multi", s);
  }
  std::unique_lock<std::mutex> lock(shared.mutex);
  shared.changed.wait(lock, [&] { return shared.received == kTables; });
  if (shared.failed) return 1;
  std::printf("multi_buffer: rank 1 received %zu tables (%zu, %zu and %zu columns, %zu bytes) through the notifier\n",
              kTables, kColumns[0], kColumns[1], kColumns[2], shared.received_bytes);
  return 0;
}

}  // namespace

int main() {
  engine::WorkerParams params;
  params.progress = tern::runtime::ProgressMode::ThreadBlocking;
  std::unique_ptr<engine::Job> job;
  std::string error;
  if (Status s = engine::Job::create(job, error, params); s != Status::Ok) {
    std::fprintf(stderr, "multi_buffer: cannot start: %s\n", error.c_str());
    return 1;
  }
  if (job->size() != 2) {
    std::fprintf(stderr, "multi_buffer: run me with two ranks (ternrun -n 2)\n");
    return 1;
  }
  engine::Worker& worker = job->worker();
  engine::Endpoint* endpoint = nullptr;
  if (Status s = job->endpoint(1 - job->rank(), endpoint); s != Status::Ok) return fail("connecting", s);

  // Declared after the job, the notifier is destroyed before the worker:
  // routing to it is turned off, and its thread ended, before that.
  engine::Notifier notifier;
  std::thread notifier_thread([&notifier] {
    while (notifier.wait()) notifier.run_pending();
    notifier.run_pending();
  });
  worker.set_notifier(&notifier);

  Shared shared;
  int rc = job->rank() == 0 ? send_tables(worker, endpoint, shared) : receive_tables(worker, shared);
  // Rank 1 stays until rank 0 has every acknowledgement (its last one may
  // still be on its way when rank 1's callbacks have run).
  if (rc == 0) {
    const Status s = job->rank() == 0 ? worker.tag_send(endpoint, nullptr, 0, kByeTag)
                                      : worker.tag_recv(nullptr, 0, kByeTag, engine::kTagMaskAll);
    if (s != Status::Ok) rc = fail("the last message", s);
  }

  worker.set_notifier(nullptr);
  notifier.stop();
  notifier_thread.join();
  return rc;
}
