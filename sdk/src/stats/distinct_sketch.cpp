// The distinct-count sketch of spec §7.6.1. See l3/distinct_sketch.hpp.
#include "l3/distinct_sketch.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/bits.hpp"
#include "common/zstd_codec.hpp"

namespace l3 {
namespace {

constexpr uint8_t kFormHashes = 0;     // spec Sketch_Form HASHES
constexpr uint8_t kFormRegisters = 1;  // spec Sketch_Form REGISTERS
constexpr uint32_t kRemainderBits = 64 - DistinctSketch::kPrecision;  // q = 49
constexpr uint8_t kMaxRegister = kRemainderBits + 1;                  // 50
constexpr int kRegisterZstdLevel = 19;

Status Corrupt(const std::string& what) {
  return Status(StatusCode::kCorruptMetadata, "statistics.distinct_sketch: " + what);
}

// sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1), for 0 <= x < 1 (Ertl 2017).
double Sigma(double x) {
  if (x == 1.0) return INFINITY;
  double y = 1.0, z = x, previous;
  do {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  } while (z != previous);
  return z;
}

// tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3, for 0 <= x <= 1.
double Tau(double x) {
  if (x == 0.0 || x == 1.0) return 0.0;
  double y = 1.0, z = 1.0 - x, previous;
  do {
    x = std::sqrt(x);
    previous = z;
    y *= 0.5;
    z -= (1.0 - x) * (1.0 - x) * y;
  } while (z != previous);
  return z / 3.0;
}

}  // namespace

DistinctSketch::DistinctSketch() : registers_(kRegisters, 0) {}

uint64_t DistinctSketch::Hash(uint64_t x) noexcept {
  // spec §7.6.1: the splitmix64 finaliser, a bijection of 64-bit words.
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void DistinctSketch::AddHash(uint64_t hash) {
  // spec §7.6.1: register h >> q gets rho, one more than the leading zeros
  // of the q low bits (q + 1 when they are all zero).
  const uint32_t index = static_cast<uint32_t>(hash >> kRemainderBits);
  const uint64_t rest = hash & internal::LowMask(kRemainderBits);
  const uint8_t rho = static_cast<uint8_t>(kMaxRegister - internal::BitLength(rest));
  if (rho > registers_[index]) registers_[index] = rho;
  if (!exact_) return;
  const auto at = std::lower_bound(hashes_.begin(), hashes_.end(), hash);
  if (at != hashes_.end() && *at == hash) return;
  if (hashes_.size() == kMaxExactHashes) {
    exact_ = false;
    hashes_.clear();
    hashes_.shrink_to_fit();
    return;
  }
  hashes_.insert(at, hash);
}

void DistinctSketch::Merge(const DistinctSketch& other) {
  for (uint32_t j = 0; j < kRegisters; ++j) {
    registers_[j] = std::max(registers_[j], other.registers_[j]);
  }
  if (!exact_) return;
  if (!other.exact_) {
    exact_ = false;
    hashes_.clear();
    hashes_.shrink_to_fit();
    return;
  }
  std::vector<uint64_t> merged;
  merged.reserve(hashes_.size() + other.hashes_.size());
  std::set_union(hashes_.begin(), hashes_.end(), other.hashes_.begin(), other.hashes_.end(),
                 std::back_inserter(merged));
  if (merged.size() > kMaxExactHashes) {
    exact_ = false;
    hashes_.clear();
    hashes_.shrink_to_fit();
  } else {
    hashes_ = std::move(merged);
  }
}

uint64_t DistinctSketch::Estimate() const {
  if (exact_) return hashes_.size();
  // Ertl, "New cardinality estimation algorithms for HyperLogLog sketches"
  // (2017), the improved raw estimator: unbiased over the whole range
  // without empirical bias tables.
  uint32_t histogram[kMaxRegister + 1] = {};
  for (const uint8_t r : registers_) ++histogram[r];
  const double m = kRegisters;
  double z = m * Tau(1.0 - histogram[kMaxRegister] / m);
  for (int k = kRemainderBits; k >= 1; --k) z = 0.5 * (z + histogram[k]);
  z += m * Sigma(histogram[0] / m);
  const double alpha_inf = 0.5 / std::log(2.0);
  return static_cast<uint64_t>(std::llround(alpha_inf * m * m / z));
}

std::vector<uint8_t> DistinctSketch::ToBytes() const {
  std::vector<uint8_t> out;
  if (exact_) {
    out.resize(5 + 8 * hashes_.size());
    out[0] = kFormHashes;
    internal::StoreLE32(out.data() + 1, static_cast<uint32_t>(hashes_.size()));
    for (size_t i = 0; i < hashes_.size(); ++i) internal::StoreLE64(out.data() + 5 + 8 * i, hashes_[i]);
  } else {
    // The registers as one zstd frame: at most about 12 KiB instead of 32.
    Result<std::vector<uint8_t>> frame =
        internal::ZstdCompress(registers_.data(), registers_.size(), kRegisterZstdLevel);
    out = {kFormRegisters, static_cast<uint8_t>(kPrecision)};
    // A failed compression (out of memory) leaves the sketch out rather than
    // writing a wrong one; callers treat an empty result as "no sketch".
    if (!frame.ok()) return {};
    out.insert(out.end(), frame->begin(), frame->end());
  }
  return out;
}

Result<DistinctSketch> DistinctSketch::FromBytes(const uint8_t* data, size_t size) {
  if (data == nullptr || size == 0) return Corrupt("empty");
  DistinctSketch sketch;
  if (data[0] == kFormHashes) {
    if (size < 5) return Corrupt("a HASHES sketch shorter than 5 bytes");
    const uint32_t count = internal::LoadLE32(data + 1);
    if (count > kMaxExactHashes) {
      return Corrupt(std::to_string(count) + " hashes, more than Max_Hashes " +
                     std::to_string(kMaxExactHashes));
    }
    if (size != 5 + 8 * uint64_t{count}) {
      return Corrupt("length " + std::to_string(size) + " is not 5 + 8 * " + std::to_string(count));
    }
    uint64_t previous = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t hash = internal::LoadLE64(data + 5 + 8 * uint64_t{i});
      if (i > 0 && hash <= previous) return Corrupt("hashes are not strictly increasing");
      previous = hash;
      sketch.AddHash(hash);
    }
    return sketch;
  }
  if (data[0] == kFormRegisters) {
    if (size < 3) return Corrupt("a REGISTERS sketch shorter than 3 bytes");
    if (data[1] != kPrecision) {
      return Corrupt("Precision " + std::to_string(data[1]) + " is not 15");
    }
    // One zstd frame (spec §9.1 rules) whose content is the 2^15 registers.
    const Status st = internal::ZstdDecompressExact(data + 2, size - 2, sketch.registers_.data(),
                                                   sketch.registers_.size());
    if (!st.ok()) return Corrupt("the registers' zstd frame: " + st.message());
    for (uint32_t j = 0; j < kRegisters; ++j) {
      if (sketch.registers_[j] > kMaxRegister) {
        return Corrupt("register " + std::to_string(j) + " is " +
                       std::to_string(sketch.registers_[j]) + ", above 50");
      }
    }
    sketch.exact_ = false;
    return sketch;
  }
  return Corrupt("unknown Sketch_Form " + std::to_string(data[0]));
}

bool DistinctSketch::operator==(const DistinctSketch& other) const {
  if (exact_ != other.exact_) return false;
  return exact_ ? hashes_ == other.hashes_ : registers_ == other.registers_;
}

}  // namespace l3
