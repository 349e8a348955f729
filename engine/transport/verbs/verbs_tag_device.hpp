// The verbs transport's tag-matching device (transport/tag_device.hpp)
// over the iface's TM SRQ (verbs_api.hpp, "Hardware tag matching").
//
// post() adds the receive to the device's tag list, take_back() deletes
// it, and the tagged-buffer completions the iface polls become the
// engine's device completions. Senders reach it with
// VerbsEp::tag_offload_send: an Eager tag-matching header that the
// receiver's HCA matches against the list, with no receiver CPU involved.
//
// What keeps MPI's order with the HCA matching (tag/offload.hpp has the
// engine's rules):
//  - Every message to a TM iface carries a tag-matching header; ordinary
//    ones an Eager header with kUntaggedTag, which no receive the device
//    holds can match (post() leaves such receives to software), so that
//    the device counts them as unexpected like tagged sends it did not
//    match. The sync rule: each Add carries software's count of unexpected
//    messages handled and the device refuses it while that count is
//    behind, so a receive never enters the list while a message that could
//    have matched it waits in the SRQ unseen.
//  - A sender's tagged send goes only once the peer has handled every
//    ordinary message it sent it before (the peer writes its count of them
//    into a word of the sender's, by RDMA WRITE, after each progress):
//    otherwise the HCA could match the tagged send to a receive that an
//    earlier message of the same sender, waiting in the SRQ, should take.
//    This is the per-sender condition the shared-memory device checks in
//    the receiver's queue (ShmEp::tag_offload_send).
// Messages without a tag (NoTag) are not counted, hence the Eager header
// on ordinary ones too.
//
// List operations are asynchronous in verbs; the device waits for each
// one's completion (the iface polls its CQ meanwhile and keeps whatever
// else comes for its next progress), because the engine's shadow list
// needs an answer at once: an Add refused (stale count) keeps the receive
// in software; a Del that fails because a message consumed the entry
// first (the race the kernel's document describes) makes take_back()
// false, and the receive completes through the handler when its TagRecv
// is handled, in the order the iface polled it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transport/tag_device.hpp"
#include "verbs_api.hpp"

namespace tern::engine::transport::verbs {

class VerbsIface;
class MrCache;

// The tag of every message that is not a tagged offload send: all ones.
inline constexpr uint64_t kUntaggedTag = ~uint64_t{0};
// The application context of a tagged offload send (ordinary messages
// carry their active-message id there).
inline constexpr uint32_t kAppContextTagged = 0xffffff01u;

class VerbsTagDevice final : public TagDevice {
 public:
  VerbsTagDevice(VerbsIface& iface, TagSrq& srq, MrCache& mr_cache, uint32_t capacity);

  [[nodiscard]] const char* name() const noexcept override { return "verbs"; }
  [[nodiscard]] uint32_t capacity() const noexcept override { return static_cast<uint32_t>(slots_.size()); }
  [[nodiscard]] int post(uint64_t tag, uint64_t mask, void* buffer, std::size_t length) noexcept override;
  [[nodiscard]] bool take_back(uint32_t slot) noexcept override;
  void set_completion_handler(TagCompletionHandler handler, void* arg) noexcept override {
    handler_ = handler;
    handler_arg_ = arg;
  }

  // --- for the iface
  // A TagRecv or list-operation completion, with the sender of a TagRecv.
  void on_completion(const WorkCompletion& wc, uint64_t sender_uuid);
  // A list-operation or TagRecv completion that the iface polled while the
  // device waits for its operation: seen now, handled in order later.
  void on_polled_early(const WorkCompletion& wc) noexcept;
  // An unexpected message, handled (software took it): the sync count.
  void count_handled() noexcept { ++handled_; }
  // The device asked for the count (kWcSyncRequest): a Sync, not waited for.
  void sync();
  // A tagged offload send that the device matched to nothing: delivered to
  // the engine as an eager message. `message` holds its (checked) header,
  // whose bytes are rewritten, and `length` bytes of payload after it.
  void on_unexpected(std::byte* message, std::size_t length);

  // Tests and tern_info.
  [[nodiscard]] uint32_t handled() const noexcept { return handled_; }
  [[nodiscard]] uint64_t refused_adds() const noexcept { return refused_adds_; }
  [[nodiscard]] uint64_t lost_races() const noexcept { return lost_races_; }
  [[nodiscard]] uint64_t syncs() const noexcept { return syncs_; }

 private:
  enum class SlotState : uint8_t { Free, Posted, Consumed };
  struct Slot {
    SlotState state = SlotState::Free;
    uint32_t handle = 0;
  };
  // Posts `wr` and waits for its completion's status: Success or
  // TagListError; GeneralError when it could not be posted or never came.
  [[nodiscard]] WcStatus run(TagListWr wr, uint32_t& handle) noexcept;

  VerbsIface& iface_;
  TagSrq& srq_;
  MrCache& mr_cache_;
  std::vector<Slot> slots_;
  uint32_t handled_ = 0;  // unexpected messages software took, modulo 2^32
  uint64_t next_op_ = 0;
  uint64_t waiting_for_ = 0;  // the wr_id of the operation run() waits for
  bool waited_done_ = false;
  WcStatus waited_status_ = WcStatus::Success;
  uint64_t refused_adds_ = 0;
  uint64_t lost_races_ = 0;
  uint64_t syncs_ = 0;
  TagCompletionHandler handler_ = nullptr;
  void* handler_arg_ = nullptr;
};

}  // namespace tern::engine::transport::verbs
