// fuzz_check.hpp: the property checks of the fuzz targets.
//
// A target returns normally for every input the SDK rejects with a Status;
// it aborts (a crash to libFuzzer and to the replay driver) only when a
// property that must hold for every input is violated: a Status code the
// call may not return, two reads of the same rows that disagree, a lookup
// that contradicts the decoded values.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "l3/l3.hpp"

#define L3_FUZZ_CHECK(cond, what)                                                      \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "%s:%d: fuzz property violated: %s (%s)\n", __FILE__,       \
                   __LINE__, #cond, std::string(what).c_str());                        \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

namespace l3::fuzz {

/// Whether `code` is one of the spec's error classes (spec §10.1), the only
/// codes a hostile file may produce.
inline bool IsSpecClass(StatusCode code) {
  return code >= StatusCode::kIoError && code <= StatusCode::kResourceLimit;
}

/// A failure of `call` must be a spec error class.
inline void ExpectClass(const Status& st, const char* call) {
  L3_FUZZ_CHECK(st.ok() || IsSpecClass(st.code()), std::string(call) + ": " + st.ToString());
}

/// The Reader options of the .l3 targets: resource limits (ReadOptions,
/// spec §13) lowered so that a small input cannot claim its way past
/// libFuzzer's memory limit.
inline ReadOptions FuzzReadOptions(bool verify_checksums = true) {
  ReadOptions options;
  options.verify_checksums = verify_checksums;
  options.use_mmap = false;
  options.max_footer_bytes = uint64_t{1} << 20;
  options.max_partitions_per_chunk = uint64_t{1} << 16;
  options.max_segment_bytes = uint64_t{1} << 24;
  options.max_validation_rows = uint64_t{1} << 18;
  return options;
}

/// Value `i` of `data` (values of `type`) as its 64-bit canonical extension
/// (spec §8.2).
inline uint64_t WordAt(const uint8_t* data, uint64_t i, PhysicalType type) {
  const int width = PhysicalTypeBytes(type);
  uint64_t v = 0;
  std::memcpy(&v, data + i * width, static_cast<size_t>(width));  // little-endian host
  if (PhysicalTypeIsSigned(type) && width < 8) {
    const int shift = 64 - 8 * width;
    v = static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
  }
  return v;
}

/// The ordered key of a canonical word (spec §11.3.1).
inline uint64_t OrderedKey(uint64_t word, PhysicalType type) {
  return PhysicalTypeIsSigned(type) ? word ^ (uint64_t{1} << 63) : word;
}

}  // namespace l3::fuzz
