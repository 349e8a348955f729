// The shm transport: one receive FIFO per iface in a POSIX shared-memory
// segment that every local peer maps; CMA for zero copy; a datagram socket
// to wake a sleeping receiver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "offer_table.hpp"
#include "segment_layout.hpp"
#include "shared_arena.hpp"
#include "shm_address.hpp"
#include "shm_ep.hpp"
#include "shm_segment.hpp"
#include "shm_tag_device.hpp"
#include "wakeup.hpp"
#include "transport/fifo_inbox.hpp"
#include "transport/iface.hpp"
#include "transport/iface_params.hpp"
#include "tern/runtime/intrusive_list.hpp"

namespace tern::engine::transport::shm {

class ShmIface final : public Iface {
 public:
  [[nodiscard]] static std::unique_ptr<Iface> create(const IfaceParams& params, Status& status);
  // Destroys the remaining endpoints and removes the segment's name.
  ~ShmIface() override;
  ShmIface(const ShmIface&) = delete;
  ShmIface& operator=(const ShmIface&) = delete;

  [[nodiscard]] const IfaceAttr& attr() const noexcept override { return attr_; }
  unsigned progress() override;
  void set_am_handler(uint8_t id, AmHandler handler, void* arg) override;
  [[nodiscard]] std::vector<std::byte> address() const override { return packed_address_; }
  [[nodiscard]] bool is_reachable(std::span<const std::byte> remote_address) const override;
  [[nodiscard]] Ep* create_ep(std::span<const std::byte> remote_address, Status& status) override;
  void destroy_ep(Ep* ep) override;
  [[nodiscard]] int event_fd() const noexcept override { return wakeup_.fd(); }
  [[nodiscard]] Status arm() override;
  void disarm() override;
  void release_shared_names() noexcept override;
  [[nodiscard]] TagDevice* tag_device() noexcept override { return tags_ ? &*tags_ : nullptr; }
  [[nodiscard]] void* mem_alloc(std::size_t size) noexcept override { return arena_.allocate(size); }
  bool mem_free(void* pointer) noexcept override { return arena_.deallocate(pointer); }
  [[nodiscard]] bool mem_owns(const void* pointer, std::size_t length) const noexcept override {
    return arena_.contains(pointer, length);
  }

  // For ShmEp.
  void schedule_pending(ShmEp& ep) noexcept;
  void schedule_zcopy(ShmEp& ep) noexcept;
  void signal(const WakeupAddress& peer) const noexcept { wakeup_.signal(peer); }
  [[nodiscard]] std::size_t cma_chunk() const noexcept { return cma_chunk_; }
  [[nodiscard]] bool split_copies() const noexcept { return split_copies_; }
  [[nodiscard]] OfferTable& offers() noexcept { return offers_; }
  // An endpoint found its peer's FIFO corrupted.
  void peer_failed(ShmEp& ep, const char* why) noexcept;

  // Messages of our FIFO and rings dropped as malformed (tests, diagnostics).
  [[nodiscard]] uint64_t rejected_messages() const noexcept { return inbox_.rejected(); }
  // How long a claimed cell may stay unpublished before the FIFO counts as
  // corrupted (FifoInbox::health); tests shorten it.
  void set_stall_limit(uint64_t nanoseconds) noexcept { stall_limit_ns_ = nanoseconds; }
  // Checks the FIFO's shared indices now (progress does so when idle, arm
  // before every sleep); Corrupt once the FIFO was found corrupted,
  // reported and let go.
  FifoReceiver::Health check_inbox();

 private:
  ShmIface(const IfaceParams& params, FifoGeometry geometry, std::string segment_name, ShmSegment segment,
           WakeupSocket wakeup);
  [[nodiscard]] bool reachable(const ShmAddress& peer) const noexcept;
  // ShmTagDevice's check of the process a shared copy names.
  static bool is_peer_process(void* arg, pid_t pid);
  unsigned dispatch_pending();
  unsigned progress_zcopy();

  // Touched by every progress(); the inbox's handler table comes last in it.
  runtime::IntrusiveList<ShmEp, &ShmEp::pending_hook> pending_eps_;
  runtime::IntrusiveList<ShmEp, &ShmEp::zcopy_hook> zcopy_eps_;
  uint32_t cells_;
  FifoInbox inbox_;

  SegmentHeader* header_;
  IfaceAttr attr_;
  ShmAddress address_;
  std::vector<std::byte> packed_address_;
  ShmSegment segment_;
  WakeupSocket wakeup_;
  runtime::Switch cma_mode_;
  std::size_t cma_chunk_;
  bool split_copies_;
  bool fence_before_sleep_;  // arm() calls remote_fence()
  OfferTable offers_;  // of our buffers, in our segment
  runtime::IntrusiveList<ShmEp, &ShmEp::iface_hook> eps_;
  SharedArena arena_;
  // Peers read this word with CMA to learn whether the kernel lets them.
  uint64_t probe_word_ = kProbeMagic;
  FailureHandler on_failure_;
  void* failure_arg_;
  uint64_t stall_limit_ns_;
  bool inbox_lost_ = false;  // the FIFO was found corrupted and let go
  std::optional<ShmTagDevice> tags_;  // offloaded receives (TERN_TM_OFFLOAD)
};

}  // namespace tern::engine::transport::shm
