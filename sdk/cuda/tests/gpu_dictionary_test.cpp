// Dictionary chunks (spec §8.10) on the GPU: DecodeRows with the entries
// copied to each block's shared memory (LaunchConfig::dictionary_staging) and
// looked up in device memory, on a column whose chunks have dictionaries of
// very different sizes, against the CPU reader.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "gpu_test_util.hpp"

namespace l3::cuda::testing {
namespace {

// Chunk k draws its rows from its own set of kEntries[k] distinct 48-bit
// values: 1.6 KB of u64 entries, 40 KB, 160 KB (more than kAuto copies but
// within a block's shared memory on current GPUs) and 288 KB (more than
// any block holds, so always looked up in device memory).
constexpr uint64_t kChunkRows = 200000;
constexpr uint64_t kEntries[] = {200, 5000, 20000, 36000};

TEST_CASE("dictionary chunks decode with their entries in shared or device memory") {
  std::mt19937_64 rng(8);
  std::vector<uint64_t> values;
  for (const uint64_t entries : kEntries) {
    std::vector<uint64_t> set(entries);
    for (uint64_t& v : set) v = rng() >> 16;
    for (uint64_t i = 0; i < kChunkRows; ++i) values.push_back(set[rng() % entries]);
  }
  WriteOptions options;
  options.chunk_rows = kChunkRows;
  const std::vector<uint8_t> file =
      WriteColumn("codes", PhysicalType::kUInt64, values.data(), values.size(), options);
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  INFO(reader.status().ToString());
  REQUIRE(reader.ok());
  Result<DeviceColumnBuffer> uploaded = UploadColumn(*reader, 0, nullptr);
  INFO(uploaded.status().ToString());
  REQUIRE(uploaded.ok());
  const std::vector<DeviceChunk>& chunks = uploaded->chunks();
  // The writer chose a dictionary of every chunk's distinct values (else
  // this test would not test what it names).
  REQUIRE(chunks.size() == 4);
  for (size_t k = 0; k < chunks.size(); ++k) {
    INFO("chunk " << k);
    CHECK(chunks[k].dictionary_entries <= kEntries[k]);
    CHECK(chunks[k].dictionary_entries * 10 >= kEntries[k] * 9);
  }

  const uint64_t n = values.size();
  const std::vector<uint8_t> expected(reinterpret_cast<const uint8_t*>(values.data()),
                                      reinterpret_cast<const uint8_t*>(values.data() + n));
  using Staging = LaunchConfig::DictionaryStaging;
  for (const Staging staging : {Staging::kAuto, Staging::kOn, Staging::kOff}) {
    for (const uint32_t max_blocks : {0u, 3u}) {
      LaunchConfig config;
      config.dictionary_staging = staging;
      config.max_blocks = max_blocks;  // 3: each block crosses every chunk
      INFO("staging " << static_cast<int>(staging) << ", max_blocks " << max_blocks);
      CHECK(GpuDecode(chunks, 0, n, config) == expected);
      // A range that starts inside chunk 1 and ends inside chunk 3.
      const uint64_t a = kChunkRows + 12345;
      const uint64_t b = 3 * kChunkRows + 777;
      const std::vector<uint8_t> slice(expected.begin() + a * 8, expected.begin() + b * 8);
      CHECK(GpuDecode(chunks, a, b, config) == slice);
    }
  }
  // Blocks of every allowed size copy the entries with their own stride.
  for (const uint32_t threads : {32u, 96u, 256u}) {
    LaunchConfig config;
    config.dictionary_staging = Staging::kOn;
    config.block_threads = threads;
    INFO("block_threads " << threads);
    CHECK(GpuDecode(chunks, 0, n, config) == expected);
  }
}

}  // namespace
}  // namespace l3::cuda::testing
