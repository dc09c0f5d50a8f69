#include "common/crc32c.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define L3_HAVE_X86_CRC 1
#endif

namespace l3::internal {
namespace {

constexpr uint32_t kPolyReflected = 0x82F63B78u;

// Slicing-by-8 tables, built once at compile time.
struct Tables {
  uint32_t t[8][256];
};

constexpr Tables MakeTables() {
  Tables tables{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolyReflected : (c >> 1);
    tables.t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (int s = 1; s < 8; ++s) {
      const uint32_t prev = tables.t[s - 1][i];
      tables.t[s][i] = (prev >> 8) ^ tables.t[0][prev & 0xFF];
    }
  }
  return tables;
}

constexpr Tables kTables = MakeTables();

uint32_t Crc32cSoftware(uint32_t state, const uint8_t* p, size_t n) {
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    word ^= state;
    state = kTables.t[7][word & 0xFF] ^ kTables.t[6][(word >> 8) & 0xFF] ^
            kTables.t[5][(word >> 16) & 0xFF] ^ kTables.t[4][(word >> 24) & 0xFF] ^
            kTables.t[3][(word >> 32) & 0xFF] ^ kTables.t[2][(word >> 40) & 0xFF] ^
            kTables.t[1][(word >> 48) & 0xFF] ^ kTables.t[0][word >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) state = (state >> 8) ^ kTables.t[0][(state ^ *p++) & 0xFF];
  return state;
}

#if defined(L3_HAVE_X86_CRC)
__attribute__((target("sse4.2"))) uint32_t Crc32cHardware(uint32_t state, const uint8_t* p,
                                                          size_t n) {
  uint64_t s = state;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    s = _mm_crc32_u64(s, word);
    p += 8;
    n -= 8;
  }
  uint32_t s32 = static_cast<uint32_t>(s);
  while (n--) s32 = _mm_crc32_u8(s32, *p++);
  return s32;
}

bool CpuHasSse42() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace

uint32_t Crc32c(uint32_t crc, const void* data, size_t size) noexcept {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t state = ~crc;
#if defined(L3_HAVE_X86_CRC)
  if (CpuHasSse42()) return ~Crc32cHardware(state, p, size);
#endif
  return ~Crc32cSoftware(state, p, size);
}

}  // namespace l3::internal
