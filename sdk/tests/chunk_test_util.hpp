// Shared checks of encoded chunks for the codec tests.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "codec/decode/decode_chunk.hpp"
#include "codec/encode/value_traits.hpp"
#include "l3/l3.hpp"

namespace l3::internal::testing {

/// `count` random slices [a, b) of the chunk (at most `max_rows` rows each,
/// 0: any length, empty ones included) decode to `v`'s values, and so does
/// row a alone.
template <typename T>
void CheckRandomSlices(const ChunkView& view, const std::vector<T>& v, std::mt19937_64& rng,
                       int count, uint64_t max_rows = 0) {
  const uint64_t n = v.size();
  for (int k = 0; k < count; ++k) {
    const uint64_t a = rng() % n;
    const uint64_t b = max_rows == 0 ? a + rng() % (n - a + 1)
                                     : a + 1 + rng() % std::min<uint64_t>(n - a, max_rows);
    std::vector<T> part(b - a);
    REQUIRE(DecodeChunkRows(view, a, b, part.data()).ok());
    CHECK(std::equal(part.begin(), part.end(), v.begin() + static_cast<std::ptrdiff_t>(a)));
    uint64_t value = 0;
    REQUIRE(DecodeChunkValue(view, a, &value).ok());
    CHECK(value == ValueTraits<T>::Canonical(v[a]));
  }
}

}  // namespace l3::internal::testing
