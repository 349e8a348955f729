// The transport side of tag-matching offload: a device that holds posted
// receives and lets senders match their messages against them and deliver
// straight into the receive buffers, without the receiver's CPU. The
// engine keeps a shadow of what it gave the device (engine/tag/offload.hpp)
// and takes receives back when software matched them first.
//
// A device is reached two ways: the receiving iface's TagDevice (post, take
// back, completions) and the sending endpoint's Ep::tag_offload_send, which
// tries the peer's device before the message takes the ordinary path.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tern/runtime/status.hpp"

namespace tern::engine::transport {

// A receive of the device that a sender filled, or a message that came
// to the device unmatched.
struct TagDeviceCompletion {
  uint32_t slot = 0;         // what post() returned for it
  uint64_t tag = 0;          // the message's tag
  uint64_t length = 0;       // the message's length (more than the buffer: truncated)
  uint64_t sender_uuid = 0;  // the worker that sent it, as the sender wrote it
  Status status = Status::Ok;  // IoError when the sender could not write the buffer
  // Set when the device matched no receive (verbs: a tagged send the HCA
  // found no entry for): the message as the eager active message lays it
  // out, the tag (8 bytes, host order) then `length` bytes of payload;
  // `slot` names nothing then, and the sender is not known.
  const std::byte* unexpected = nullptr;
};

// Called from the iface's progress for each receive a sender filled; the
// slot is free again once it returns.
using TagCompletionHandler = void (*)(void* arg, const TagDeviceCompletion& completion);

class TagDevice {
 public:
  virtual ~TagDevice() = default;
  [[nodiscard]] virtual const char* name() const noexcept = 0;
  // Receives the device can hold at once.
  [[nodiscard]] virtual uint32_t capacity() const noexcept = 0;
  // Publishes a receive posted after every receive the device holds: its
  // slot, or -1 when the device is full.
  [[nodiscard]] virtual int post(uint64_t tag, uint64_t mask, void* buffer, std::size_t length) noexcept = 0;
  // Takes a receive back (software matched it, or it is being canceled):
  // false when a sender claimed it first, in which case its completion
  // comes through the handler.
  [[nodiscard]] virtual bool take_back(uint32_t slot) noexcept = 0;
  virtual void set_completion_handler(TagCompletionHandler handler, void* arg) noexcept = 0;
  // The owner is (or no longer is) blocked in the library waiting: senders
  // may then prefer the ordinary protocols, which put its CPU to work too;
  // the device pays where the owner is away computing.
  virtual void set_owner_waiting(bool /*waiting*/) noexcept {}
  // Whether senders fill a receive into `buffer` with a plain copy (memory
  // they map), which pays from smaller sizes than a system call does.
  [[nodiscard]] virtual bool maps(const void* /*buffer*/, std::size_t /*length*/) const noexcept { return false; }
};

}  // namespace tern::engine::transport
