// Defaults of the FIFO transports and their reading from the configuration.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fifo.hpp"
#include "tern/runtime/config.hpp"

namespace tern::engine::transport {

// From this many ranks on a node (this process and its local peers), some
// defaults below differ: many cores copying at once favour fewer copies
// and more room in each FIFO.
inline constexpr unsigned kManyLocalRanks = 8;
// `local_peers`: the other processes on the node (0: not known).
[[nodiscard]] constexpr bool many_local_ranks(unsigned local_peers) noexcept {
  return local_peers + 1 >= kManyLocalRanks;
}

// 16 KiB cells take an 8 KiB message (the size applications pick most) in
// one cell, and larger ones in half the cells; 64 of them (1 MiB) absorb a
// window of 64 sends (osu_bw, osu_mbw_mr) before senders see WouldBlock.
// Alternating runs on a 2-core VM, 4-5 rounds, medians, against 64 cells of
// 8 KiB: osu_bw 8 KiB 15.0 against 12.6 GB/s, 64 KiB 21.1 against 14.3;
// osu_bibw 8 KiB 18.1 against 13.5, 64 KiB 23.5 against 17.1; osu_latency
// 8 KiB 1.28 against 1.35 us (0.38 against 0.45 where the two processes
// share a core's caches), 64 KiB 3.75 against 5.0; osu_mbw_mr 8.9 against
// 8.95 M/s and osu_bibw 16 B 200 against 206 MB/s, level. 32 cells of 16 KiB
// did as well except in osu_bibw (16 B 180 MB/s, 32 KiB 19.0 against 22.0
// GB/s). With 8 KiB cells, 128 of them had lost osu_bibw at 4-128 KiB
// (0.3-12 GB/s against 7-18 with 64), but that was before mapped segments
// were touched page by page (shm_segment.cpp), which also took away the
// slow first pass through a larger FIFO.
//
// 20 KiB rather than 16: a 16 KiB message and its headers then fit one cell
// (in 16 KiB cells it took two), and every cell still starts at the same
// place in a page, which only address space pays for (a message touches the
// lines it fills).
// Alternating runs on the 2-core VM, 8-10 rounds, medians, 16 -> 20 KiB:
// osu_latency 16 KiB 1.89 -> 1.81 us, 64 KiB 4.21 -> 4.05, 128 KiB 7.78 ->
// 7.22, 512 B-8 KiB within 4%; osu_bw 16 KiB 19.2 -> 22.2 GB/s, 32 KiB 19.6
// -> 22.3, 64 KiB 19.9 -> 21.0; osu_bibw 16 KiB 20.7 -> 23.5, 32 KiB 23.0 ->
// 24.4. Cells of 16 KiB and one line (16448 B) did better still at 16 KiB
// (latency 1.92 -> 1.62 us, osu_bibw 20.4 -> 26.7 GB/s), but cells that
// start all over a page let short messages straddle two pages, and
// osu_latency 1-2 KiB lost 7-11% (2 KiB 0.79 -> 0.88 us in 12 rounds).
inline constexpr uint32_t kDefaultCellSize = 20480;
inline constexpr uint32_t kDefaultFifoCells = 64;
// With 8 or more ranks on a node, twice as many: osu_mbw_mr with 16 ranks
// on a 16-core Xeon, 4 alternating runs, 64 -> 128 cells: 4 KiB 19-50 ->
// 48-63 GB/s, 8 KiB 47-60 -> 70-91, 16-32 KiB 67-95 -> 76-102, 64 KiB
// 24-103 -> 78-114. On the 2-core VM 128 cells cost osu_bibw 8 KiB a fifth
// (13.5-15.1 against 14.6-19.1 GB/s), so two ranks keep 64.
inline constexpr uint32_t kDefaultFifoCellsManyRanks = 128;
// Where zero copy starts to pay off, measured on a 2-core node. A CMA call
// costs about 2 us before it copies anything, and its speed depends on how
// the buffers are paged: from huge pages (what large allocations get with
// transparent huge pages) a 128 KiB message takes 7-8.5 us shared between
// the two sides (shm offers) against 9.5-10 through the FIFO, and osu_bw
// rises from 14-15 to 17-21 GB/s; from 4 KiB pages it takes 10.5-12 us
// against 9.5, with more bandwidth still (17-21 against 15 GB/s).
inline constexpr std::size_t kDefaultRndvThreshold = 128 * 1024;
// With many ranks on a node copying at once, the FIFO's two copies (and the
// cell lines going back and forth between the cores) compete for the
// caches and the memory that the one copy of a zero copy needs half as
// much of. osu_mbw_mr at 64 KiB on a 16-core Xeon, 4 alternating runs of
// each, 128 KiB against 64 KiB threshold: 4 ranks 22.4-24.8 against
// 21.3-27.3 GB/s (level), 8 ranks 39.2-46.9 against 47.9-53.4, 16 ranks
// 82-88 against 98-107.
inline constexpr std::size_t kDefaultRndvThresholdManyRanks = 64 * 1024;
// That crossover holds while the FIFO is busy (osu_bw keeps a window of
// messages in flight). When the receiver has read everything, an eager
// message streams through empty cells with both sides copying at once, and
// the crossover moves up: a 128 KiB ping-pong took 3.1 us eager against 5.6
// shared zero copy where the two processes share a core's cache, and 8.9
// against 8.1-8.6 where they do not; with 16 KiB cells, 256 KiB took 5.4
// eager against 7.6-7.9 in the first case and 9.2-9.4 against 8.9-9.4 in
// the second. Up to there the ProtocolMeter picks, per endpoint.
inline constexpr std::size_t kDefaultDrainedRndvThreshold = 512 * 1024;
// Where the meter starts. On a 16-core Xeon a 64 KiB ping-pong took 7.0-9.5
// us eager against 4.6-6.3 metered (which there means rendezvous); on the
// 2-core VM metering 64 KiB cost about 4% (its tries of the rendezvous, 4.0
// -> 4.2 us). From 32 KiB it cost the VM 10-15% and gave the Xeon less.
inline constexpr std::size_t kDefaultMeteredRndvThreshold = 64 * 1024;
// From memory the receiver has mapped (mem_alloc), the get is one memcpy,
// already faster than two FIFO fragments: anything that does not fit one cell.
inline constexpr std::size_t kDefaultMappedRndvThreshold = 0;  // 0: one cell's payload

// The geometry the configuration asks for (0 means default) for a process
// with `local_peers` others on its node (0: not known). False if it is not
// one the FIFO supports.
[[nodiscard]] inline bool fifo_geometry_from(const runtime::Config& config, unsigned local_peers,
                                             FifoGeometry& out) noexcept {
  const std::size_t default_cells =
      many_local_ranks(local_peers) ? kDefaultFifoCellsManyRanks : kDefaultFifoCells;
  const std::size_t cell_size = config.shm_cell_size != 0 ? config.shm_cell_size : kDefaultCellSize;
  const std::size_t cells = config.shm_fifo_cells != 0 ? config.shm_fifo_cells : default_cells;
  if (cell_size > FifoGeometry::kMaxCellSize || cells > FifoGeometry::kMaxCells) return false;
  out.cell_size = static_cast<uint32_t>(cell_size);
  out.cells = static_cast<uint32_t>(cells);
  return out.valid();
}

// `local_peers`: the other processes on the node (0: not known).
[[nodiscard]] inline std::size_t rndv_threshold_from(const runtime::Config& config, unsigned local_peers) noexcept {
  if (config.rndv_threshold != 0) return config.rndv_threshold;
  return many_local_ranks(local_peers) ? kDefaultRndvThresholdManyRanks : kDefaultRndvThreshold;
}

[[nodiscard]] inline std::size_t metered_rndv_threshold_from(const runtime::Config& config) noexcept {
  return config.rndv_threshold != 0 ? config.rndv_threshold : kDefaultMeteredRndvThreshold;
}

// TERN_RNDV_THRESH, when set, is the one threshold for every case.
[[nodiscard]] inline std::size_t drained_rndv_threshold_from(const runtime::Config& config) noexcept {
  return config.rndv_threshold != 0 ? config.rndv_threshold : kDefaultDrainedRndvThreshold;
}

[[nodiscard]] inline std::size_t mapped_rndv_threshold_from(const runtime::Config& config,
                                                            std::size_t one_cell_payload) noexcept {
  if (config.rndv_threshold != 0) return config.rndv_threshold;
  return kDefaultMappedRndvThreshold != 0 ? kDefaultMappedRndvThreshold : one_cell_payload + 1;
}

}  // namespace tern::engine::transport
