// MPI_Init / MPI_Finalize and the environment queries: one engine job per
// process, MPI_COMM_WORLD and MPI_COMM_SELF built on it.
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "p2p/p2p.hpp"
#include "tool/tool.hpp"
#include "tern/runtime/config.hpp"

#ifndef TERN_VERSION
#define TERN_VERSION "0.0.0"
#endif

namespace tern::mpi {

State* g_state = nullptr;
std::atomic<bool> g_finalized{false};

namespace {

double monotonic_seconds() noexcept {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

std::unique_ptr<Comm> make_comm(uint16_t context, int rank, std::vector<unsigned> job_ranks) {
  auto comm = std::make_unique<Comm>();
  comm->context = context;
  comm->rank = rank;
  comm->size = static_cast<int>(job_ranks.size());
  comm->job_ranks = std::move(job_ranks);
  comm->endpoints.reset(new std::atomic<engine::Endpoint*>[comm->job_ranks.size()]);
  for (std::size_t i = 0; i < comm->job_ranks.size(); ++i) comm->endpoints[i].store(nullptr);
  comm->predefined = true;
  return comm;
}

// Under MPI_ERRORS_ARE_FATAL, the only handler before MPI_COMM_WORLD
// exists, a failed start ends the process: ranks that carried on would run
// without MPI and exit 0.
[[noreturn]] void start_failed(const char* function, const std::string& why) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s\n", function, why.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

// TERN_PROGRESS when set; else MPICH's habit, MPIR_CVAR_ASYNC_PROGRESS=1,
// which asks for a progress thread: the blocking one, so that a rank that
// asked for asynchronous progress does not pay a core for it while idle.
runtime::ProgressMode progress_mode(const runtime::Config& config) {
  const char* tern = std::getenv("TERN_PROGRESS");
  if (tern != nullptr && *tern != '\0') return config.progress;
  const char* mpich = std::getenv("MPIR_CVAR_ASYNC_PROGRESS");
  if (mpich != nullptr && std::strcmp(mpich, "1") == 0) return runtime::ProgressMode::ThreadBlocking;
  return config.progress;
}

int initialize(const char* function, int required, int* provided) {
  if (g_state != nullptr) {
    return raise(nullptr, MPI_ERR_OTHER, function,
                 "MPI is already initialized (MPI_Init or MPI_Init_thread called twice)");
  }
  if (g_finalized.load(std::memory_order_acquire)) {
    start_failed(function, "MPI cannot be initialized again after MPI_Finalize");
  }
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) required = MPI_THREAD_SINGLE;
  auto state = std::make_unique<State>();
  state->thread_level = required;
  state->multiple = required == MPI_THREAD_MULTIPLE;
  state->requests.locked = state->multiple;
  state->main_thread = std::this_thread::get_id();
  const runtime::Config& config = runtime::global_config();
  state->wait_mode = config.wait_mode;
  state->spin_count = config.spin_count != 0 ? config.spin_count : 20000;
  state->coll_shm = config.coll_shm;
  state->win_share = config.win_share;
  if (!config.critical_tags.empty()) state->critical_tags = &config.critical_tags;

  engine::WorkerParams params;
  params.thread_safe = state->multiple;
  params.progress = progress_mode(config);
  state->progress_thread = params.progress != runtime::ProgressMode::Caller;
  std::string error;
  if (Status s = engine::Job::create(state->job, error, params); s != Status::Ok) {
    start_failed(function, "cannot start: " + error + " (" + to_string(s) + ")");
  }
  state->worker = &state->job->worker();
  state->delayed = state->worker->delays_submissions();
  const unsigned size = state->job->size();
  const unsigned rank = state->job->rank();
  if (size > static_cast<unsigned>(kMaxCommSize)) {
    const std::string why = std::string(function) + ": a job of " + std::to_string(size) +
                            " ranks exceeds Tern's limit of " + std::to_string(kMaxCommSize);
    std::fprintf(stderr, "%s\n", why.c_str());
    state->job->abort(1, why.c_str());
  }
  std::vector<unsigned> world(size);
  for (unsigned i = 0; i < size; ++i) world[i] = i;
  state->comms[MPI_COMM_WORLD] = make_comm(0, static_cast<int>(rank), std::move(world));
  state->comms[MPI_COMM_SELF] = make_comm(1, 0, std::vector<unsigned>{rank});
  state->comms[MPI_COMM_WORLD]->name = "MPI_COMM_WORLD";
  state->comms[MPI_COMM_SELF]->name = "MPI_COMM_SELF";
  state->wtime_base = monotonic_seconds();
  if (provided != nullptr) *provided = state->thread_level;
  g_state = state.release();
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  return initialize("MPI_Init", MPI_THREAD_SINGLE, nullptr);
}

int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  (void)argc;
  (void)argv;
  return initialize("MPI_Init_thread", required, provided);
}

int PMPI_Query_thread(int* provided) {
  if (g_state == nullptr) return not_initialized("MPI_Query_thread");
  if (provided == nullptr) return raise(nullptr, MPI_ERR_ARG, "MPI_Query_thread", "null provided argument");
  *provided = g_state->thread_level;
  return MPI_SUCCESS;
}

int PMPI_Is_thread_main(int* flag) {
  if (g_state == nullptr) return not_initialized("MPI_Is_thread_main");
  if (flag == nullptr) return raise(nullptr, MPI_ERR_ARG, "MPI_Is_thread_main", "null flag argument");
  *flag = std::this_thread::get_id() == g_state->main_thread;
  return MPI_SUCCESS;
}

int PMPI_Finalize(void) {
  if (g_state == nullptr) return not_initialized("MPI_Finalize");
  State* state = g_state;
  // MPI_COMM_SELF's attributes go before anything else, newest first (the
  // standard's hook for work at process end: their delete callbacks may
  // still use MPI), then
  // MPI_COMM_WORLD's, so that every delete callback runs. A failing one is
  // reported once finalizing is done.
  int attribute_error = MPI_SUCCESS;
  for (MPI_Comm predefined : {MPI_COMM_SELF, MPI_COMM_WORLD}) {
    Comm& comm = *state->comms[predefined];
    if (int err = attr_delete_all(AttrObject::Comm, predefined, comm.attributes);
        err != MPI_SUCCESS && attribute_error == MPI_SUCCESS) {
      attribute_error = raise(&comm, err, "MPI_Finalize", "an attribute delete callback returned error %d", err);
    }
  }
  // Buffered sends still under way end first (MPI_Finalize waits for them).
  buffered_finalize();
  finalize_packed_requests();
  // So do held sends (critical tags), which end at their receivers.
  state->worker->finish_held_sends();
  // Every rank reaches this point before any leaves, so no peer still needs
  // our endpoints (rendezvous reads, acks) once we tear them down.
  Status s = coll_barrier(*state->comms[MPI_COMM_WORLD]);
  if (s != Status::Ok) {
    std::fprintf(stderr, "MPI_Finalize: barrier failed: %s\n", to_string(s));
  }
  // The tool interface's counters keep the worker's final counts.
  tool::retire_worker(*state->worker);
  // Requests the user never completed must not outlive the worker.
  g_state = nullptr;
  g_finalized.store(true, std::memory_order_release);
  delete state;
  if (attribute_error != MPI_SUCCESS) return attribute_error;
  return s == Status::Ok ? MPI_SUCCESS : error_class_of(s);
}

int PMPI_Initialized(int* flag) {
  if (flag == nullptr) return MPI_ERR_ARG;
  *flag = g_state != nullptr || g_finalized.load(std::memory_order_acquire);
  return MPI_SUCCESS;
}

int PMPI_Finalized(int* flag) {
  if (flag == nullptr) return MPI_ERR_ARG;
  *flag = g_finalized.load(std::memory_order_acquire);
  return MPI_SUCCESS;
}

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  char message[128];
  const unsigned rank = g_state != nullptr ? g_state->job->rank() : 0;
  std::snprintf(message, sizeof(message), "MPI_Abort: rank %u aborted the job (communicator %d, error code %d)",
                rank, comm, errorcode);
  std::fprintf(stderr, "%s\n", message);
  std::fflush(stderr);
  // The error code goes to the environment as the job's exit code, 0
  // included, as far as an exit status can carry it: a nonzero code whose
  // low byte is 0 would read as success, so it becomes 1.
  const int exit_code = errorcode == 0 ? 0 : ((errorcode & 0xFF) != 0 ? (errorcode & 0xFF) : 1);
  if (g_state != nullptr) g_state->job->abort(exit_code, message);
  std::_Exit(exit_code);
}

double PMPI_Wtime(void) {
  const double base = g_state != nullptr ? g_state->wtime_base : 0;
  return monotonic_seconds() - base;
}

double PMPI_Wtick(void) {
  timespec resolution{};
  clock_getres(CLOCK_MONOTONIC, &resolution);
  return static_cast<double>(resolution.tv_sec) + 1e-9 * static_cast<double>(resolution.tv_nsec);
}

int PMPI_Get_processor_name(char* name, int* resultlen) {
  if (name == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0) std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
  name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}

int PMPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}

int PMPI_Get_version(int* version, int* subversion) {
  if (version == nullptr || subversion == nullptr) return MPI_ERR_ARG;
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int PMPI_Get_library_version(char* version, int* resultlen) {
  if (version == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "Tern MPI %s (MPI %d.%d over the Tern engine)",
                TERN_VERSION, MPI_VERSION, MPI_SUBVERSION);
  *resultlen = static_cast<int>(std::strlen(version));
  return MPI_SUCCESS;
}

#pragma weak MPI_Init = PMPI_Init
#pragma weak MPI_Init_thread = PMPI_Init_thread
#pragma weak MPI_Query_thread = PMPI_Query_thread
#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
#pragma weak MPI_Finalize = PMPI_Finalize
#pragma weak MPI_Initialized = PMPI_Initialized
#pragma weak MPI_Finalized = PMPI_Finalized
#pragma weak MPI_Abort = PMPI_Abort
#pragma weak MPI_Wtime = PMPI_Wtime
#pragma weak MPI_Wtick = PMPI_Wtick
#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
#pragma weak MPI_Get_version = PMPI_Get_version
#pragma weak MPI_Get_library_version = PMPI_Get_library_version

}  // extern "C"
