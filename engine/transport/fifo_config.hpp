// Defaults of the FIFO transports and their reading from the configuration.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fifo.hpp"
#include "tern/runtime/config.hpp"

namespace tern::engine::transport {

// 8 KiB cells keep an eager fragment in one cell; 128 of them (1 MiB) absorb a
// burst of small sends from several peers before senders see WouldBlock.
inline constexpr uint32_t kDefaultCellSize = 8192;
inline constexpr uint32_t kDefaultFifoCells = 128;
// Where zero copy starts to pay off; a placeholder until measured.
inline constexpr std::size_t kDefaultRndvThreshold = 16384;

// The geometry the configuration asks for (0 means default). False if it is
// not one the FIFO supports.
[[nodiscard]] inline bool fifo_geometry_from(const runtime::Config& config, FifoGeometry& out) noexcept {
  const std::size_t cell_size = config.shm_cell_size != 0 ? config.shm_cell_size : kDefaultCellSize;
  const std::size_t cells = config.shm_fifo_cells != 0 ? config.shm_fifo_cells : kDefaultFifoCells;
  if (cell_size > FifoGeometry::kMaxCellSize || cells > FifoGeometry::kMaxCells) return false;
  out.cell_size = static_cast<uint32_t>(cell_size);
  out.cells = static_cast<uint32_t>(cells);
  return out.valid();
}

[[nodiscard]] inline std::size_t rndv_threshold_from(const runtime::Config& config) noexcept {
  return config.rndv_threshold != 0 ? config.rndv_threshold : kDefaultRndvThreshold;
}

}  // namespace tern::engine::transport
