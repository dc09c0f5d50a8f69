// Temporary device storage handed out from one caller-owned buffer (the CUB
// convention of the device layer: the caller allocates what *TempBytes
// reports). Sizing and use run the same allocation sequence: an arena over a
// null buffer only counts bytes, so a *TempBytes function and its operation
// cannot disagree.
#pragma once

#include <cstddef>
#include <cstdint>

#include "l3/status.hpp"

namespace l3::cuda {

class TempArena {
 public:
  /// Every allocation is aligned to this many bytes (CUB's temporary
  /// storage asks for 256).
  static constexpr size_t kAlignment = 256;

  /// Counts bytes only.
  TempArena() = default;
  /// Hands out [base, base + capacity).
  TempArena(void* base, size_t capacity)
      : base_(static_cast<uint8_t*>(base)), capacity_(capacity) {}

  bool counting() const { return base_ == nullptr; }
  size_t used() const { return used_; }

  /// `count` elements of U (at least one byte's worth); null in a counting
  /// arena. kBufferTooSmall when the buffer is exhausted.
  template <typename U>
  Status Allocate(uint64_t count, U** out) {
    return AllocateBytes(count * sizeof(U), reinterpret_cast<void**>(out));
  }

  Status AllocateBytes(uint64_t bytes, void** out) {
    const uint64_t size = (bytes == 0 ? 1 : bytes) + kAlignment - 1;
    const uint64_t rounded = size - size % kAlignment;
    *out = nullptr;
    if (counting()) {
      used_ += rounded;
      return Status::OK();
    }
    if (rounded > capacity_ - used_) {
      return Status(StatusCode::kBufferTooSmall,
                    "temporary storage is smaller than its *TempBytes function reported");
    }
    *out = base_ + used_;
    used_ += rounded;
    return Status::OK();
  }

 private:
  uint8_t* base_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
};

}  // namespace l3::cuda
