// The progress agent's loop: take commands and data from the host's ranks
// (proto/agent_wire.hpp), announce each message to its receiver and serve
// the receiver's fetch (Worker::agent_forward), sleeping on the worker's
// wakeup fd when there is nothing to do. A message it cannot carry ends it
// with an error: its starter then ends the job, since a receiver would
// otherwise wait for that message forever.
#include "tern/engine/progress_agent.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "proto/agent_wire.hpp"
#include "tern/engine/worker.hpp"
#include "tern/runtime/config.hpp"
#include "tern/runtime/log.hpp"
#include "tern/runtime/pipe_io.hpp"
#include "tern/runtime/topology.hpp"

namespace tern::engine {
namespace {

class Agent {
 public:
  explicit Agent(Worker& worker) : worker_(worker) {}

  // Posts the receive of the next command (taking those already here);
  // false when it cannot.
  bool wait_for_command() {
    for (;;) {
      TagRecvInfo info;
      const Status s = worker_.tag_recv_nb(command_.data(), command_.size(), agent::kAgentCommandTag, kTagMaskAll,
                                           Callback{&Agent::on_command, this, nullptr}, &info);
      if (s == Status::InProgress) return true;
      if (s != Status::Ok) return fail("posting a command receive", s);
      if (!take_command(info.length)) return false;
    }
  }

  [[nodiscard]] bool failed() const noexcept { return failed_; }

 private:
  struct Message {
    Agent* agent;
    std::vector<std::byte> data;
    uint64_t sender_uuid;
    uint64_t ticket;
    std::vector<std::byte> receiver_address;
  };

  static void on_command(void* user_data, Status status, const TagRecvInfo& info) {
    auto* agent = static_cast<Agent*>(user_data);
    if (status != Status::Ok) {
      agent->fail("receiving a command", status);
      return;
    }
    if (agent->take_command(info.length)) (void)agent->wait_for_command();
  }

  // A command has arrived whole in command_: its data is next from the same rank.
  bool take_command(std::size_t length) {
    agent::AgentCommand command;
    if (length < sizeof(command)) return fail("a command too short", Status::InvalidParam);
    std::memcpy(&command, command_.data(), sizeof(command));
    if (command.address_length != length - sizeof(command) || command.ticket == 0 ||
        command.length > kMaxMessageLength) {
      return fail("a malformed command", Status::InvalidParam);
    }
    auto message = std::make_unique<Message>();
    message->agent = this;
    message->sender_uuid = command.sender_uuid;
    message->ticket = command.ticket;
    message->receiver_address.assign(command_.begin() + sizeof(command), command_.begin() + length);
    message->data.resize(command.length);
    Message* m = message.release();
    TagRecvInfo info;
    const Status s = worker_.tag_recv_nb(m->data.data(), m->data.size(), command.data_tag, kTagMaskAll,
                                         Callback{&Agent::on_data, m, nullptr}, &info);
    if (s == Status::Ok) return forward(m);
    if (s != Status::InProgress) {
      delete m;
      return fail("posting a data receive", s);
    }
    return true;
  }

  static void on_data(void* user_data, Status status, const TagRecvInfo& /*info*/) {
    auto* m = static_cast<Message*>(user_data);
    if (status != Status::Ok) {
      m->agent->fail("receiving a message's data", status);
      delete m;
      return;
    }
    (void)m->agent->forward(m);
  }

  bool forward(Message* m) {
    Endpoint* receiver = nullptr;
    Status s = worker_.connect(m->receiver_address, receiver);
    if (s == Status::Ok) {
      s = worker_.agent_forward(receiver, m->data.data(), m->data.size(), m->sender_uuid, m->ticket,
                                Callback{&Agent::on_forwarded, m, nullptr});
    }
    if (s != Status::InProgress) {
      delete m;
      return fail("forwarding a message", s);
    }
    return true;
  }

  static void on_forwarded(void* user_data, Status status, const TagRecvInfo& /*info*/) {
    std::unique_ptr<Message> m(static_cast<Message*>(user_data));
    if (status != Status::Ok) m->agent->fail("delivering a message", status);
  }

  bool fail(const char* what, Status status) {
    TERN_LOG(Error, "progress agent: %s failed: %s", what, to_string(status));
    failed_ = true;
    return false;
  }

  Worker& worker_;
  std::vector<std::byte> command_ = std::vector<std::byte>(agent::kMaxCommandBytes);
  bool failed_ = false;
};

bool read_unsigned(const char* name, unsigned long& out) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text < '0' || *text > '9') return false;
  char* end = nullptr;
  out = std::strtoul(text, &end, 10);
  return *end == '\0';
}

// The agent inherits its starter's binding (a rank's core): it moves to the
// last core when the host has more cores than ranks (launchers fill cores
// from the first), else anywhere its cgroup allows.
void place_agent(unsigned local_ranks) {
  runtime::Topology topology;
  if (runtime::Topology::load(topology) != Status::Ok) return;
  const unsigned cores = topology.cores();
  const Status s = local_ranks < cores ? topology.bind_self_to_core(cores - 1) : topology.unbind_self();
  TERN_LOG(Info, "progress agent: %s (%u ranks, %u cores on this host)",
           s == Status::Ok ? topology.binding_of_self().c_str() : "left where its starter runs", local_ranks, cores);
}

}  // namespace

int run_progress_agent() {
  const char* job = std::getenv("TERN_AGENT_JOB");
  unsigned long peers = 0;
  unsigned long fd = 0;
  if (job == nullptr || !read_unsigned("TERN_AGENT_PEERS", peers) || !read_unsigned("TERN_AGENT_FD", fd) ||
      fd > 1023) {
    std::fprintf(stderr, "tern_agent: started without TERN_AGENT_JOB, TERN_AGENT_PEERS and TERN_AGENT_FD: "
                         "a Tern job starts it, not a user\n");
    return 2;
  }
  // SIGTERM (from the starter, or sent at its death) is read from a
  // signalfd beside the worker's wakeup fd, so that a sleeping agent wakes.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
  const int stop_fd = signalfd(-1, &stop_signals, SFD_CLOEXEC | SFD_NONBLOCK);
  if (stop_fd < 0) {
    std::fprintf(stderr, "tern_agent: signalfd: %s\n", std::strerror(errno));
    return 1;
  }

  place_agent(static_cast<unsigned>(peers));
  WorkerParams params;
  params.job_id = job;
  params.local_peers = static_cast<unsigned>(peers);
  params.progress = runtime::ProgressMode::Caller;
  std::unique_ptr<Worker> worker;
  if (Status s = Worker::create(params, worker); s != Status::Ok) {
    std::fprintf(stderr, "tern_agent: cannot create the engine worker: %s\n", to_string(s));
    return 1;
  }
  const auto address = worker->address();
  const uint32_t length = static_cast<uint32_t>(address.size());
  const int out = static_cast<int>(fd);
  if (!runtime::write_all(out, &length, sizeof(length)) || !runtime::write_all(out, address.data(), address.size())) {
    std::fprintf(stderr, "tern_agent: cannot give its address to its starter\n");
    return 1;
  }
  close(out);

  Agent agent(*worker);
  if (!agent.wait_for_command()) return 1;
  const pid_t starter = getppid();
  std::size_t idle = 0;
  bool stop = false;
  while (!stop && !agent.failed()) {
    if (worker->progress() != 0) {
      idle = 0;
      continue;
    }
    if (++idle < runtime::global_config().spin_count) continue;
    idle = 0;
    if (getppid() != starter) break;  // the starter is gone without a word: so is the job
    if (worker->arm() != Status::Ok) continue;  // events came in meanwhile
    pollfd fds[2] = {{worker->efd(), POLLIN, 0}, {stop_fd, POLLIN, 0}};
    (void)poll(fds, 2, 1000);
    stop = (fds[1].revents & POLLIN) != 0;
  }
  worker.reset();
  close(stop_fd);
  return agent.failed() ? 1 : 0;
}

}  // namespace tern::engine
