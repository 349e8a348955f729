#include "verbs_api.hpp"

namespace tern::engine::transport::verbs {

const char* to_string(WcStatus status) noexcept {
  switch (status) {
    case WcStatus::Success: return "success";
    case WcStatus::LocalLengthError: return "local length error";
    case WcStatus::LocalProtectionError: return "local protection error";
    case WcStatus::RemoteAccessError: return "remote access error";
    case WcStatus::RemoteInvalidRequest: return "remote invalid request";
    case WcStatus::RnrRetryExceeded: return "receiver not ready, retries exceeded";
    case WcStatus::RetryExceeded: return "transport retries exceeded";
    case WcStatus::Flushed: return "flushed";
    case WcStatus::TagListError: return "tag list operation refused";
    case WcStatus::GeneralError: return "general error";
  }
  return "unknown";
}

void pack_tag_header(const TagHeader& header, std::byte* out) noexcept {
  out[0] = static_cast<std::byte>(header.opcode);
  out[1] = out[2] = out[3] = std::byte{0};
  for (int i = 0; i < 4; ++i) out[4 + i] = static_cast<std::byte>(header.app_context >> (24 - 8 * i));
  for (int i = 0; i < 8; ++i) out[8 + i] = static_cast<std::byte>(header.tag >> (56 - 8 * i));
}

bool unpack_tag_header(const std::byte* data, std::size_t length, TagHeader& out) noexcept {
  if (length < kTagHeaderBytes || data[1] != std::byte{0} || data[2] != std::byte{0} || data[3] != std::byte{0}) {
    return false;
  }
  const auto opcode = std::to_integer<uint8_t>(data[0]);
  if (opcode > static_cast<uint8_t>(TagOpcode::Eager)) return false;
  out.opcode = static_cast<TagOpcode>(opcode);
  out.app_context = 0;
  for (int i = 0; i < 4; ++i) out.app_context = (out.app_context << 8) | std::to_integer<uint32_t>(data[4 + i]);
  out.tag = 0;
  for (int i = 0; i < 8; ++i) out.tag = (out.tag << 8) | std::to_integer<uint64_t>(data[8 + i]);
  return true;
}

}  // namespace tern::engine::transport::verbs
