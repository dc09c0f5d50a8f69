// A byte vector whose resize leaves the new bytes uninitialised, for buffers
// that are written whole right after they are sized (decompressed segments,
// rebuilt payloads): std::vector<uint8_t> would zero them first, one more
// pass over memory on the reader's serial path.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace l3::internal {

/// std::allocator, except that construct() without arguments
/// default-initialises (for bytes: leaves them as they are).
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// Bytes that the caller writes in full after every resize.
using ByteBuffer = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

}  // namespace l3::internal
