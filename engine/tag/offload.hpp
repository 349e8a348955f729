// Tag-matching offload, the engine's side: which posted receives go to the
// tag device (transport/tag_device.hpp), and the software shadow of the
// device's list.
//
// Every posted receive stays in the matcher, so software matching keeps
// MPI's order over all of them; a receive given to the device is there
// too, where senders may match it first. Whoever takes it first owns it:
// software through claim() (the device gives it back), a sender through
// the device, which then reports it done (completed()).
//
// The rules that keep MPI's order with two matchers:
//  - A receive goes to the device only when no receive posted before it
//    and kept in software could match a message it matches: a sender sees
//    only the device, so an earlier receive it cannot see must not match
//    its message. Software-only receives are remembered (up to
//    kTrackedSoftware of them) to tell; beyond that, none goes to the
//    device until they are matched.
//  - It goes only when no unexpected message matches it (the caller has
//    looked), and a sender uses the device only when the receiver has read
//    everything that sender sent before (the transport checks): so no
//    earlier message from that sender can still be on its way to software.
//    This per-sender condition plays the part of the hardware's count of
//    unexpected messages consumed (the sync rule of the kernel's
//    tag-matching document): software and device never disagree on what a
//    sender's earlier messages matched.
//  - A receive that software matches is taken back from the device first; if
//    a sender claimed it meanwhile, software matches the next receive.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tag/matcher.hpp"
#include "tern/runtime/compiler.hpp"
#include "transport/tag_device.hpp"

namespace tern::engine::tag {

class Offload {
 public:
  // Receives of at least `threshold` bytes go to `device` (null: none do),
  // and from `mapped_threshold` those the device fills with a plain copy.
  void attach(transport::TagDevice* device, std::size_t threshold, std::size_t mapped_threshold);
  [[nodiscard]] transport::TagDevice* device() const noexcept { return device_; }

  // `entry` was just posted to the matcher: gives it to the device when the
  // rules above allow.
  void posted(ExpectedEntry* entry, void* buffer, std::size_t length) noexcept {
    if (TERN_LIKELY(device_ == nullptr)) {
      entry->device_slot = kUntracked;
      return;
    }
    if (length < threshold_ && (length < mapped_threshold_ || !device_->maps(buffer, length))) {
      keep_in_software(entry);
      return;
    }
    if (untracked_ != 0 || overlaps_software(entry) || !give(entry, buffer, length)) {
      keep_in_software(entry);
    }
  }
  // Software matched (or is canceling) `entry`: true when it is software's
  // now, false when a sender claimed it through the device (it completes
  // from there).
  [[nodiscard]] bool claim(ExpectedEntry* entry) noexcept {
    if (TERN_LIKELY(entry->device_slot == kUntracked)) {
      if (device_ != nullptr) --untracked_;
      return true;
    }
    if (entry->device_slot < 0) {
      forget_software(entry);
      return true;
    }
    return take_back(entry);
  }
  // The receive a device completion reports, taken out of the shadow; null
  // when the device named a slot it was not given.
  [[nodiscard]] ExpectedEntry* completed(uint32_t slot) noexcept;

  // Posted receives the device holds now (tests, tern_info).
  [[nodiscard]] std::size_t offloaded() const noexcept { return offloaded_; }

 private:
  // device_slot of a software-only receive: kUntracked, or a place in
  // software_ encoded below it (kTrackedBase - index).
  static constexpr int32_t kUntracked = -1;
  static constexpr int32_t kTrackedBase = -2;
  static constexpr std::size_t kTrackedSoftware = 16;

  bool give(ExpectedEntry* entry, void* buffer, std::size_t length) noexcept;
  bool take_back(ExpectedEntry* entry) noexcept;
  // Whether a message could match both `entry` and a software-only receive.
  [[nodiscard]] bool overlaps_software(const ExpectedEntry* entry) const noexcept;
  void keep_in_software(ExpectedEntry* entry) noexcept;
  void forget_software(ExpectedEntry* entry) noexcept;

  transport::TagDevice* device_ = nullptr;
  std::size_t threshold_ = SIZE_MAX;
  std::size_t mapped_threshold_ = SIZE_MAX;
  std::array<ExpectedEntry*, kTrackedSoftware> software_{};  // software-only receives, remembered
  std::size_t tracked_ = 0;
  std::size_t untracked_ = 0;  // software-only receives beyond software_
  std::size_t offloaded_ = 0;
  std::vector<ExpectedEntry*> shadow_;  // by device slot: what the device holds
};

}  // namespace tern::engine::tag
