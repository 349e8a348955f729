// Job start-up: bootstrap, worker, address exchange; endpoints on demand.
#include "tern/engine/job.hpp"

#include <algorithm>
#include <cstdlib>

#include "agent/agent_process.hpp"
#include "core/address.hpp"
#include "tern/runtime/log.hpp"
#include "transport/host_id.hpp"

namespace tern::engine {
namespace {

// The key every rank publishes its packed worker address under, and the one
// the first rank of a host publishes its progress agent's under (empty: none).
constexpr const char* kAddressKey = "tern.worker.address";
constexpr const char* kAgentKey = "tern.agent.address";

// Whether this job's hosts each get a progress agent (TERN_AGENT): only
// jobs over several hosts, reaching it through shared memory; every rank
// decides alike, from the same settings.
bool wants_agent(const runtime::Bootstrap& boot, const runtime::Config& config) {
  if (boot.size() <= boot.local_size() || config.agent == runtime::Switch::Off) return false;
  if (!config.transports.empty() && ("," + config.transports + ",").find(",shm,") == std::string::npos) return false;
  return config.agent == runtime::Switch::On || !config.critical_tags.empty();
}

std::string peer_host_of(std::span<const std::byte> address) {
  WorkerAddress unpacked;
  if (unpack_worker_address(address, unpacked) != Status::Ok || unpacked.host.empty()) return "?";
  return std::string(unpacked.host);
}

}  // namespace

Status Job::create(std::unique_ptr<Job>& out, std::string& error, const WorkerParams& params) {
  std::unique_ptr<Job> job(new Job());
  if (Status s = runtime::create_bootstrap(job->bootstrap_, error); s != Status::Ok) return s;
  runtime::Bootstrap& boot = *job->bootstrap_;

  WorkerParams worker_params = params;
  // Every rank must name its segments after the same job, also under
  // launchers that do not set TERN_JOB_ID.
  worker_params.job_id = boot.job_id();
  worker_params.local_peers = boot.local_size() > 0 ? boot.local_size() - 1 : 0;
  const bool agent_wanted = wants_agent(boot, worker_params.config);
  job->agent_wanted_ = agent_wanted;
  if (agent_wanted) ++worker_params.local_peers;  // the agent attaches to every rank of its host
  worker_params.on_host_only = boot.local_size() == boot.size();
  if (Status s = Worker::create(worker_params, job->worker_); s != Status::Ok) {
    error = std::string("cannot create the engine worker: ") + to_string(s);
    return s;
  }
  const auto address = job->worker_->address();
  Status s = boot.put(kAddressKey, address);
  if (s == Status::Ok && agent_wanted && job->first_on_host(boot.rank())) s = job->start_agent();
  if (s == Status::Ok) s = boot.commit();
  if (s == Status::Ok) s = boot.fence(true);
  if (s != Status::Ok) {
    error = std::string("cannot exchange worker addresses through ") + boot.name() + ": " + boot.last_error();
    return s;
  }
  job->endpoints_.assign(boot.size(), nullptr);
  job->worker_->set_peer_namer(&Job::name_peer, job.get());
  job->worker_->on_peer_failure(&Job::peer_failed, job.get());
  job->attach_local_peers();
  if (agent_wanted) job->attach_agent();
  out = std::move(job);
  return Status::Ok;
}

Status Job::start_agent() {
  std::string why;
  agent_ = AgentProcess::start(
      bootstrap_->job_id(), bootstrap_->local_size(),
      [this](const std::string& message) {
        const std::string text = describe_rank(rank()) + ": " + message + "; ending the job";
        TERN_LOG(Error, "%s", text.c_str());
        abort(1, text.c_str());
      },
      why);
  if (!agent_) {
    TERN_LOG(Warn, "job: no progress agent on host %s (%s): critical sends to other hosts go the ordinary way",
             transport::local_host_name().c_str(), why.c_str());
  }
  const std::vector<std::byte> none;
  return bootstrap_->put(kAgentKey, agent_ ? agent_->address() : none);
}

bool Job::first_on_host(unsigned rank) const {
  const std::vector<unsigned>& local = bootstrap_->local_peers();
  return local.empty() ? rank == bootstrap_->rank() : rank == *std::min_element(local.begin(), local.end());
}

// The agent of the host `peer_id`'s rank is on: the one its host's lowest
// rank published. Only from what every rank published (addresses carry
// their hosts), since this runs inside the worker's calls, on whichever
// thread sends.
bool Job::agent_of_peer(void* arg, uint64_t peer_id, std::vector<std::byte>& agent_address) {
  auto* job = static_cast<Job*>(arg);
  std::vector<std::string> hosts;
  for (unsigned rank = 0; rank < job->size(); ++rank) {
    std::vector<std::byte> address;
    WorkerAddress unpacked;
    if (job->bootstrap_->get(rank, kAddressKey, address) != Status::Ok ||
        unpack_worker_address(address, unpacked) != Status::Ok) {
      return false;
    }
    hosts.emplace_back(unpacked.host);
    if (unpacked.uuid != peer_id) continue;
    // The lowest rank of that host is this one or one seen before it.
    const auto first = std::find(hosts.begin(), hosts.end(), hosts.back()) - hosts.begin();
    return job->bootstrap_->get(static_cast<unsigned>(first), kAgentKey, agent_address) == Status::Ok &&
           !agent_address.empty();
  }
  return false;
}

void Job::attach_agent() {
  const std::vector<unsigned>& local = bootstrap_->local_peers();
  if (local.empty()) return;
  const unsigned first = *std::min_element(local.begin(), local.end());
  std::vector<std::byte> address;
  if (bootstrap_->get(first, kAgentKey, address) != Status::Ok || address.empty()) return;
  Endpoint* agent = nullptr;
  if (Status s = worker_->connect(address, agent); s != Status::Ok) {
    TERN_LOG(Warn, "job: cannot reach this host's progress agent (%s): critical sends to other hosts go the "
                   "ordinary way", to_string(s));
    return;
  }
  worker_->set_peer_name(agent, "the progress agent of host " + transport::local_host_name());
  const bool relay = runtime::global_config().agent_relay == runtime::Switch::On;
  worker_->set_agent(agent, bootstrap_->local_rank(), relay ? &Job::agent_of_peer : nullptr, this);
}

void Job::attach_local_peers() {
  // Each rank's shm segment loses its name at the last attach it expects
  // (one per local peer): attaching every local peer now, rather than on
  // first use, makes that happen at start-up, so that from here on a kill of
  // any process leaves nothing in /dev/shm, also where some local ranks
  // never talk. A rank alone on its host needs its name for no one.
  const std::vector<std::string> transports = worker_->transport_names();
  if (std::find(transports.begin(), transports.end(), "shm") == transports.end()) return;
  if (bootstrap_->local_size() <= 1) {
    if (!agent_wanted_) worker_->release_shared_names();  // else the agent attaches still
    return;
  }
  for (unsigned peer : bootstrap_->local_peers()) {
    Endpoint* endpoint = nullptr;
    if (peer != rank()) (void)this->endpoint(peer, endpoint);  // a failure is logged, and met again on use
  }
}

Job::~Job() {
  worker_.reset();
  agent_.reset();  // every rank of the host is done with it (MPI_Finalize's barrier)
  if (bootstrap_) (void)bootstrap_->finalize();
}

Status Job::endpoint(unsigned rank, Endpoint*& out) {
  out = nullptr;
  if (rank >= endpoints_.size()) return Status::InvalidParam;
  if (endpoints_[rank] != nullptr) {
    out = endpoints_[rank];
    return Status::Ok;
  }
  std::vector<std::byte> address;
  if (Status s = bootstrap_->get(rank, kAddressKey, address); s != Status::Ok) {
    last_error_ = "no address for rank " + std::to_string(rank) + ": " + bootstrap_->last_error();
    TERN_LOG(Error, "job: %s", last_error_.c_str());
    return s;
  }
  if (Status s = worker_->connect(address, endpoints_[rank]); s != Status::Ok) {
    const std::string why = s == Status::Unreachable ? worker_->explain_unreachable(address) : to_string(s);
    last_error_ = "rank " + std::to_string(this->rank()) + " (" + transport::local_host_name() + ") cannot reach rank " +
                  std::to_string(rank) + " (" + peer_host_of(address) + "): " + why;
    TERN_LOG(Error, "%s", last_error_.c_str());
    return s;
  }
  out = endpoints_[rank];
  // The host from the address just unpacked: no second look-up.
  worker_->set_peer_name(out, "rank " + std::to_string(rank) + " (host " + worker_->peer_host(out) + ")");
  if (rank != this->rank()) {
    TERN_LOG(Info, "rank %u (host %s) via %s", rank, worker_->peer_host(out).c_str(), worker_->describe(out).c_str());
  }
  return Status::Ok;
}

std::string Job::host_of(unsigned rank) {
  std::vector<std::byte> address;
  if (rank >= size() || bootstrap_->get(rank, kAddressKey, address) != Status::Ok) return "?";
  return peer_host_of(address);
}

std::string Job::describe_rank(unsigned rank) {
  return "rank " + std::to_string(rank) + " (host " + host_of(rank) + ")";
}

// Only for a peer that misbehaved: a walk over the ranks' published
// addresses, which the bootstrap has here since the fence.
int Job::rank_of(uint64_t peer_id) {
  for (unsigned rank = 0; rank < size(); ++rank) {
    if (endpoints_[rank] != nullptr && worker_->peer_id(endpoints_[rank]) == peer_id) return static_cast<int>(rank);
    std::vector<std::byte> address;
    WorkerAddress unpacked;
    if (bootstrap_->get(rank, kAddressKey, address) == Status::Ok &&
        unpack_worker_address(address, unpacked) == Status::Ok && unpacked.uuid == peer_id) {
      return static_cast<int>(rank);
    }
  }
  return -1;
}

std::string Job::name_peer(void* arg, uint64_t peer_id) {
  auto* job = static_cast<Job*>(arg);
  const int rank = job->rank_of(peer_id);
  return rank < 0 ? std::string() : job->describe_rank(static_cast<unsigned>(rank));
}

void Job::peer_failed(void* arg, Endpoint* endpoint, Status reason) {
  auto* job = static_cast<Job*>(arg);
  const int rank = endpoint != nullptr ? job->rank_of(job->worker_->peer_id(endpoint)) : -1;
  if (endpoint != nullptr && rank < 0) return;  // no rank of ours waits for it; the worker logged it
  const std::string self = job->describe_rank(job->rank());
  job->last_error_ = endpoint != nullptr
                         ? self + " disconnected " + job->worker_->peer_name(endpoint) + ", which broke the protocol"
                         : self + ": its shared-memory receive queue was corrupted, so local ranks cannot reach it";
  if (job->peer_failure_handler_ != nullptr) {
    job->peer_failure_handler_(job->peer_failure_arg_, rank, reason);
    return;
  }
  const std::string message = job->last_error_ + " (see the log); ending the job";
  TERN_LOG(Error, "%s", message.c_str());
  job->abort(1, message.c_str());
}

void Job::abort(int exit_code, const char* message) {
  // No launcher sweeps up after a singleton; and under one, the sooner the
  // better.
  if (worker_) worker_->release_shared_names();
  bootstrap_->abort(exit_code, message);
  std::_Exit(exit_code);  // not reached: the bootstrap's abort does not return
}

}  // namespace tern::engine
