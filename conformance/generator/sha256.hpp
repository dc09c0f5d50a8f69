// SHA-256 (FIPS 180-4), for the manifest's digests of files and decoded
// values. Small and dependency-free; run.py checks the same digests with
// Python's hashlib.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace l3::conformance {

/// Lower-case hex SHA-256 of `size` bytes.
std::string Sha256Hex(const uint8_t* data, size_t size);

inline std::string Sha256Hex(const std::vector<uint8_t>& bytes) {
  return Sha256Hex(bytes.data(), bytes.size());
}

}  // namespace l3::conformance
