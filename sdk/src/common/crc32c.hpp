// CRC32C (Castagnoli), the checksum of spec §5.
#pragma once

#include <cstddef>
#include <cstdint>

namespace l3::internal {

/// Continues a CRC32C over `data`. Start with crc = 0; Crc32c(0, "123456789", 9)
/// == 0xE3069283. Uses the SSE4.2 instruction when the CPU has it.
uint32_t Crc32c(uint32_t crc, const void* data, size_t size) noexcept;

}  // namespace l3::internal
