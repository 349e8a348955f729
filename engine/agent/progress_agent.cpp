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
  explicit Agent(Worker& worker) : worker_(worker), own_address_(worker.address().begin(), worker.address().end()) {}

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

  // Posts the receive of the next message another agent relays here.
  bool wait_for_relay() {
    auto relay = std::make_unique<Relay>();
    relay->agent = this;
    Relay* r = relay.release();
    const Status s = worker_.tag_recv_multi(agent::kRelayTag, kTagMaskAll, FrameAllocator{&Agent::allocate_frame, r},
                                            r->frames, Callback{&Agent::on_relay, r, nullptr});
    if (s == Status::InProgress) return true;
    delete r;
    return fail("posting a relay receive", s);
  }

  [[nodiscard]] bool failed() const noexcept { return failed_; }

 private:
  // A message from a rank of this host.
  struct Message {
    Agent* agent;
    std::vector<std::byte> data;
    uint64_t sender_uuid;
    uint64_t ticket;
    std::vector<std::byte> receiver_address;
    std::vector<std::byte> receiver_agent;  // empty: announce to the receiver from here
    std::vector<std::byte> relay_header;    // RelayHeader and the receiver's address, when relayed
  };
  // A message from another agent: frame 0 its RelayHeader and receiver's
  // address, frame 1 its data, in this agent's arena.
  struct Relay {
    Agent* agent;
    std::vector<RecvFrame> frames;
    unsigned allocated = 0;  // frames the allocator was asked for so far
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
    if (command.address_length > length - sizeof(command) ||
        command.agent_address_length != length - sizeof(command) - command.address_length || command.ticket == 0 ||
        command.length > kMaxMessageLength) {
      return fail("a malformed command", Status::InvalidParam);
    }
    auto message = std::make_unique<Message>();
    message->agent = this;
    message->sender_uuid = command.sender_uuid;
    message->ticket = command.ticket;
    const auto address = command_.begin() + sizeof(command);
    const auto agent_address = address + static_cast<std::ptrdiff_t>(command.address_length);
    message->receiver_address.assign(address, agent_address);
    message->receiver_agent.assign(agent_address, command_.begin() + static_cast<std::ptrdiff_t>(length));
    if (message->receiver_agent == own_address_) message->receiver_agent.clear();
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
    if (!m->receiver_agent.empty()) return relay(m);
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

  // To the receiver's host's agent, which keeps it there until the receive.
  bool relay(Message* m) {
    const agent::RelayHeader header{m->sender_uuid, m->ticket, m->receiver_address.size()};
    m->relay_header.resize(sizeof(header) + m->receiver_address.size());
    std::memcpy(m->relay_header.data(), &header, sizeof(header));
    std::memcpy(m->relay_header.data() + sizeof(header), m->receiver_address.data(), m->receiver_address.size());
    Endpoint* other = nullptr;
    Status s = worker_.connect(m->receiver_agent, other);
    if (s == Status::Ok) {
      const SendFrame frames[2] = {{m->relay_header.data(), m->relay_header.size()}, {m->data.data(), m->data.size()}};
      s = worker_.tag_send_multi(other, frames, agent::kRelayTag, Callback{&Agent::on_relayed, m, nullptr});
    }
    if (s == Status::Ok) {
      on_relayed(m, s, TagRecvInfo{});
      return true;
    }
    if (s != Status::InProgress) {
      delete m;
      return fail("relaying a message to the receiver's agent", s);
    }
    return true;
  }

  static void on_relayed(void* user_data, Status status, const TagRecvInfo& /*info*/) {
    std::unique_ptr<Message> m(static_cast<Message*>(user_data));
    if (status != Status::Ok) {
      m->agent->fail("relaying a message", status);
      return;
    }
    m->agent->worker_.agent_done(m->sender_uuid, m->data.size());  // off this host: the sender's bytes are free
  }

  // Frame 0 (the header) in ordinary memory, the data in the arena, which
  // the receiver maps: its fetch is a memcpy.
  static void* allocate_frame(void* user_data, std::size_t size, MemoryKind /*kind*/) {
    auto* r = static_cast<Relay*>(user_data);
    const bool header = r->allocated++ == 0;
    if (size == 0) return nullptr;
    return header ? std::malloc(size) : r->agent->worker_.mem_alloc(size);
  }

  static void release(Relay* r) {
    for (std::size_t i = 0; i < r->frames.size(); ++i) {
      if (i == 0) {
        std::free(r->frames[i].data);
      } else {
        r->agent->worker_.mem_free(r->frames[i].data);
      }
    }
    delete r;
  }

  static void on_relay(void* user_data, Status status, const TagRecvInfo& /*info*/) {
    auto* r = static_cast<Relay*>(user_data);
    Agent& agent = *r->agent;
    if (status != Status::Ok) {
      release(r);
      agent.fail("receiving a relayed message", status);
      return;
    }
    agent::RelayHeader header{};
    const bool whole = r->frames.size() == 2 && r->frames[0].size >= sizeof(header);
    if (whole) std::memcpy(&header, r->frames[0].data, sizeof(header));
    if (!whole || header.ticket == 0 || header.address_length != r->frames[0].size - sizeof(header)) {
      release(r);
      agent.fail("a malformed relayed message", Status::InvalidParam);
      return;
    }
    TERN_LOG(Debug, "progress agent: relayed message %llu (%zu bytes) from another host's agent",
             static_cast<unsigned long long>(header.ticket), r->frames[1].size);
    const auto* address = static_cast<const std::byte*>(r->frames[0].data) + sizeof(header);
    Endpoint* receiver = nullptr;
    Status s = agent.worker_.connect({address, header.address_length}, receiver);
    if (s == Status::Ok) {
      s = agent.worker_.agent_forward(receiver, r->frames[1].data, r->frames[1].size, header.sender_uuid,
                                      header.ticket, Callback{&Agent::on_relay_forwarded, r, nullptr});
    }
    if (s != Status::InProgress) {
      release(r);
      agent.fail("forwarding a relayed message", s);
      return;
    }
    (void)agent.wait_for_relay();
  }

  static void on_relay_forwarded(void* user_data, Status status, const TagRecvInfo& /*info*/) {
    auto* r = static_cast<Relay*>(user_data);
    Agent& agent = *r->agent;
    release(r);
    if (status != Status::Ok) agent.fail("delivering a relayed message", status);
  }

  bool fail(const char* what, Status status) {
    TERN_LOG(Error, "progress agent: %s failed: %s", what, to_string(status));
    failed_ = true;
    return false;
  }

  Worker& worker_;
  std::vector<std::byte> own_address_;
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
// from the first), else anywhere its cgroup allows. True when it has a
// core of its own.
bool place_agent(unsigned local_ranks) {
  runtime::Topology topology;
  if (runtime::Topology::load(topology) != Status::Ok) return false;
  const unsigned cores = topology.cores();
  const bool own_core = local_ranks < cores;
  const Status s = own_core ? topology.bind_self_to_core(cores - 1) : topology.unbind_self();
  TERN_LOG(Info, "progress agent: %s (%u ranks, %u cores on this host)",
           s == Status::Ok ? topology.binding_of_self().c_str() : "left where its starter runs", local_ranks, cores);
  return own_core && s == Status::Ok;
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

  // Idle, it sleeps on its worker's wakeup fd after a short spin, even with
  // a core to itself: a core it only seems to own (another job's ranks, or
  // emulated hosts sharing the machine) would lose milliseconds to a
  // spinning agent (a critical ping-pong across two emulated hosts on 2
  // cores: 7 ms with the ranks' 20000 polls, 0.2-0.4 ms with 64).
  (void)place_agent(static_cast<unsigned>(peers));
  constexpr std::size_t spins = 256;
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
  if (!agent.wait_for_command() || !agent.wait_for_relay()) return 1;
  const pid_t starter = getppid();
  std::size_t idle = 0;
  bool stop = false;
  while (!stop && !agent.failed()) {
    if (worker->progress() != 0) {
      idle = 0;
      continue;
    }
    if (++idle < spins) continue;
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
