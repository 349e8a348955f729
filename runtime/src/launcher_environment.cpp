// What the environment says about who started this process. A process
// started by a launcher that Tern cannot bootstrap through must not carry on
// as a job of one: N such ranks would each run the whole job alone and exit
// 0. Only a program started with no launcher in sight is a singleton.
#include <cstdlib>
#include <cstring>
#include <string>

#include "tern/runtime/bootstrap.hpp"

namespace tern::runtime {
namespace {

const char* env_value(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

// The variable's value as a count; 0 when unset or not a number.
unsigned long env_count(const char* name) {
  const char* value = env_value(name);
  if (value == nullptr) return 0;
  char* end = nullptr;
  const unsigned long count = std::strtoul(value, &end, 10);
  return end != value && *end == '\0' ? count : 0;
}

std::string seen(const char* name) { return std::string(name) + "=" + env_value(name); }

constexpr const char* kWhatWorks =
    "; start it with a launcher Tern speaks to: ternrun, Open MPI's mpirun, srun --mpi=pmix or srun --mpi=pmi2, "
    "or MPICH's mpirun (mpirun.mpich); to run it as a job of one anyway, set TERN_BOOTSTRAP=singleton";

}  // namespace

bool pmi_environment_present() noexcept { return env_value("PMI_FD") != nullptr; }

std::string unsupported_launcher() {
  if (pmix_environment_present() || pmi_environment_present()) return {};
  if (env_value("PMI_PORT") != nullptr) {
    return "a PMI launcher started this process and asks it to connect to " + seen("PMI_PORT") +
           " (the port form of PMI, e.g. mpiexec -pmi-port or a PMI singleton), which Tern does not speak; "
           "without -pmi-port MPICH's mpirun hands its ranks a connected socket (PMI_FD) instead" +
           kWhatWorks;
  }
  if (env_value("PMI_RANK") != nullptr || env_value("PMI_SIZE") != nullptr) {
    std::string what = env_value("PMI_RANK") != nullptr ? seen("PMI_RANK") : seen("PMI_SIZE");
    return "a PMI launcher started this process (" + what +
           ") but gave it no PMI_FD to reach the launcher through" + kWhatWorks;
  }
  if (env_value("SLURM_STEP_ID") != nullptr) {
    const char* tasks_name = env_value("SLURM_STEP_NUM_TASKS") != nullptr ? "SLURM_STEP_NUM_TASKS" : "SLURM_NTASKS";
    if (env_count(tasks_name) > 1) {
      return "srun started this process as one of " + std::string(env_value(tasks_name)) + " tasks (" +
             seen("SLURM_STEP_ID") + ", " + seen(tasks_name) +
             ") without a PMIx or PMI server (no PMIX_* variable, no PMI_FD): srun needs --mpi=pmix or "
             "--mpi=pmi2 (or MpiDefault in slurm.conf)" +
             kWhatWorks;
    }
  }
  if (env_count("OMPI_COMM_WORLD_SIZE") > 1) {
    return "Open MPI's launcher started this process as one of " + std::string(env_value("OMPI_COMM_WORLD_SIZE")) +
           " ranks (" + seen("OMPI_COMM_WORLD_SIZE") +
           ") without naming a PMIx server (no PMIX_* variable)" + kWhatWorks;
  }
  if (env_count("MPI_LOCALNRANKS") > 1) {
    return "MPICH's launcher started this process as one of " + std::string(env_value("MPI_LOCALNRANKS")) +
           " ranks on this host (" + seen("MPI_LOCALNRANKS") + ") but gave it no PMI_FD" + kWhatWorks;
  }
  return {};
}

}  // namespace tern::runtime
