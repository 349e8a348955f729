// The bootstrap as a PMI client: ranks started by a PMI-1 or PMI-2 server
// (MPICH's hydra, mpirun.mpich; Slurm's srun --mpi=pmi2) learn the job from
// it over the socket it passes in PMI_FD and exchange blobs through its
// key-value space. Only bootstrap.cpp creates one.
#pragma once

#include <memory>
#include <string>

#include "tern/runtime/bootstrap.hpp"

namespace tern::runtime {

// Connects to the server named by PMI_FD, PMI_RANK and PMI_SIZE and learns
// rank, size, local peers, node and job name. `mode`: Pmi speaks the
// launcher's own version, PMI-2 under srun (PMI-1 where the server declines
// it) and PMI-1 elsewhere; Pmi1 and Pmi2 use that version only. Each answer at start-up may take `reply_timeout_seconds`
// (0: no limit). On failure `error` names the PMI command and what the
// server answered.
[[nodiscard]] Status create_pmi_bootstrap(std::unique_ptr<Bootstrap>& out, std::string& error, BootstrapMode mode,
                                          unsigned reply_timeout_seconds);

}  // namespace tern::runtime
