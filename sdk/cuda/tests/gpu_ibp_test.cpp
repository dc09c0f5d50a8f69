// IBP float columns on the GPU (spec §11.2.3): full decode and gather of
// rows, with payloads in device memory and in pinned host memory, against the
// CPU reader, byte for byte: generated tensors of every float type and word
// width, several chunks, the real float arrays and every float file the CPU
// tests wrote. Corrupt rows decode to zeros and never fault. Float columns in
// the integer form (spec §11.2.2) decode through the integer decoder.
#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "l3/cuda.hpp"
#include "l3/datagen.hpp"
#include "l3/l3.hpp"

namespace l3::cuda::testing {
namespace {

std::vector<uint8_t> WriteIbp(const std::vector<uint8_t>& bytes, PhysicalType type,
                              uint32_t row_width, uint64_t float_chunk_bytes = 64 << 20) {
  WriteOptions options;
  options.float_encoding = FloatEncoding::kIbp;
  options.float_chunk_bytes = float_chunk_bytes;
  auto writer = Writer::CreateInMemory({{"x", type, {}, row_width}}, options);
  REQUIRE(writer.ok());
  REQUIRE(writer->Append(0, bytes.data(), bytes.size() / PhysicalTypeBytes(type)).ok());
  REQUIRE(writer->Close().ok());
  return writer->TakeBuffer();
}

// Whole-column decode and a random gather (with repeats and one id past the
// end) on the GPU, in both residencies, against the CPU reader.
void CheckIbpColumn(const Reader& reader, int column, uint64_t seed) {
  const ColumnInfo& col = reader.column(column);
  const uint64_t row_bytes = uint64_t{col.row_width} * PhysicalTypeBytes(col.type);
  const uint64_t rows = col.num_rows;
  std::vector<uint8_t> cpu(rows * row_bytes);
  REQUIRE(reader.ReadRows(column, 0, rows, cpu.data(), cpu.size()).ok());
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> ids(std::min<uint64_t>(4096, rows * 3));
  for (uint64_t& id : ids) id = rng() % rows;
  ids.push_back(rows);  // outside the column: a row of zeros
  for (IbpResidency residency : {IbpResidency::kDevice, IbpResidency::kPinnedHost}) {
    CAPTURE(static_cast<int>(residency));
    Result<DeviceIbpColumn> uploaded = UploadIbpColumn(reader, column, residency, nullptr);
    REQUIRE_MESSAGE(uploaded.ok(), uploaded.status().ToString());
    const std::vector<DeviceIbpChunk>& chunks = uploaded->chunks();
    DeviceBuffer out(cpu.size() + 64);
    REQUIRE(cudaMemset(out.data(), 0xEE, out.size()) == cudaSuccess);
    const Status full =
        DecodeIbpRows(chunks.data(), chunks.size(), 0, rows, out.data(), cpu.size(), nullptr);
    REQUIRE_MESSAGE(full.ok(), full.ToString());
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<uint8_t> gpu = out.ToHost();
    CHECK(std::memcmp(gpu.data(), cpu.data(), cpu.size()) == 0);
    CHECK(gpu[cpu.size()] == 0xEE);  // nothing past the rows
    // Inner ranges: across index blocks and chunks, inside one block of 64
    // rows, and the last row alone.
    const std::pair<uint64_t, uint64_t> ranges[] = {
        {rows / 3, rows - 1}, {65, 70}, {rows - 1, rows}};
    for (const auto& [a, b] : ranges) {
      if (b > rows || a >= b) continue;
      CAPTURE(a);
      CAPTURE(b);
      DeviceBuffer part((b - a) * row_bytes);
      REQUIRE(DecodeIbpRows(chunks.data(), chunks.size(), a, b, part.data(), part.size(), nullptr)
                  .ok());
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      std::vector<uint8_t> got = part.ToHost();
      CHECK(std::memcmp(got.data(), cpu.data() + a * row_bytes, got.size()) == 0);
    }
    DeviceBuffer d_ids(ids.data(), ids.size() * 8);
    DeviceBuffer gathered(ids.size() * row_bytes);
    REQUIRE(cudaMemset(gathered.data(), 0xEE, gathered.size()) == cudaSuccess);
    const Status gather = GatherIbpRows(chunks.data(), chunks.size(),
                                        static_cast<const uint64_t*>(d_ids.data()), ids.size(),
                                        gathered.data(), gathered.size(), nullptr);
    REQUIRE_MESSAGE(gather.ok(), gather.ToString());
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<uint8_t> g = gathered.ToHost();
    size_t wrong = 0;
    for (size_t i = 0; i + 1 < ids.size(); ++i) {
      wrong += std::memcmp(g.data() + i * row_bytes, cpu.data() + ids[i] * row_bytes, row_bytes) != 0;
    }
    CHECK(wrong == 0);
    const std::vector<uint8_t> zeros(row_bytes, 0);
    CHECK(std::memcmp(g.data() + (ids.size() - 1) * row_bytes, zeros.data(), row_bytes) == 0);
  }
}

template <typename U>
std::vector<uint8_t> Patterns(size_t n, uint64_t seed, uint32_t keep_bits,
                              uint64_t outlier_every = 97) {
  // Values sharing their top bits (as embeddings and features do) with
  // occasional outliers (about one in `outlier_every`) and special patterns,
  // so rows are mostly packed.
  std::mt19937_64 rng(seed);
  std::vector<U> v(n);
  const U base = static_cast<U>(rng());
  for (U& x : v) {
    x = static_cast<U>((base & ~static_cast<U>((U{1} << keep_bits) - 1)) |
                       (rng() & ((U{1} << keep_bits) - 1)));
    if (rng() % outlier_every == 0) x = static_cast<U>(rng());
  }
  std::vector<uint8_t> out(n * sizeof(U));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST_CASE("IBP tensors of every float type decode and gather on the GPU as on the CPU") {
  struct Case {
    PhysicalType type;
    uint32_t width;
    uint64_t chunk_bytes;
    uint32_t keep_bits = 0;  // varying low bits; 0: by type
    uint64_t outlier_every = 97;
  };
  const Case cases[] = {
      {PhysicalType::kFloat32, 64, 64 << 20},  {PhysicalType::kFloat32, 3, 64 << 20},
      {PhysicalType::kFloat32, 1433, 1 << 20}, {PhysicalType::kFloat64, 17, 256 << 10},
      {PhysicalType::kFloat16, 3, 64 << 20},   {PhysicalType::kBFloat16, 129, 128 << 10},
      // Rows of 8400 bytes that barely pack: longer than a gather's stage in
      // shared memory, so gathers take the row decoders.
      {PhysicalType::kFloat32, 2100, 64 << 20, 31},
      // Wide rows, most of whose words all participate, a few with an
      // outlier word, in 2-, 4- and 8-byte values, across chunks.
      {PhysicalType::kFloat32, 700, 1 << 20, 13, 40000},
      {PhysicalType::kFloat64, 300, 1 << 20, 29, 30000},
      {PhysicalType::kFloat16, 1001, 256 << 10, 7, 60000},
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    CAPTURE(PhysicalTypeName(c.type));
    CAPTURE(c.width);
    const uint64_t rows = 3000;
    const size_t n = rows * c.width;
    std::vector<uint8_t> bytes;
    switch (PhysicalTypeBytes(c.type)) {
      case 2:
        bytes = Patterns<uint16_t>(n, seed, c.keep_bits > 0 ? c.keep_bits : 7, c.outlier_every);
        break;
      case 4:
        bytes = Patterns<uint32_t>(n, seed, c.keep_bits > 0 ? c.keep_bits : 13, c.outlier_every);
        break;
      default:
        bytes = Patterns<uint64_t>(n, seed, c.keep_bits > 0 ? c.keep_bits : 29, c.outlier_every);
        break;
    }
    const std::vector<uint8_t> file = WriteIbp(bytes, c.type, c.width, c.chunk_bytes);
    Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
    REQUIRE(reader.ok());
    for (const ChunkInfo& chunk : reader->column(0).chunks) REQUIRE(chunk.encoding == 2);
    CheckIbpColumn(*reader, 0, seed++);
  }
}

// Sparse feature rows, as Cora's and Citeseer's: most values 0.0, a few
// 1.0 (words that stay whole), every 13th column 0.5 (bit values that are
// not 0) and every 50th column a varying value (words with free bits), so
// that some 32-word steps of a row have free bits and most do not.
std::vector<uint8_t> SparseFeatures(uint64_t rows, uint32_t width, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(rows * width);
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint32_t c = 0; c < width; ++c) {
      float x = rng() % 40 == 0 ? 1.0f : 0.0f;
      if (c % 13 == 0) x = 0.5f;
      if (c % 50 == 7) x = 1.0f + static_cast<float>(rng() % 64) / 64.0f;
      v[r * width + c] = x;
    }
  }
  std::vector<uint8_t> bytes(v.size() * 4);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

TEST_CASE("sparse feature rows decode and gather on the GPU as on the CPU") {
  // 1433 values: 717 8-byte words, rows starting on 4 bytes every other
  // row; 4500: more than 64 steps of 32 words; 40: one step. With one mask
  // and with two (a mask id per row).
  for (uint32_t width : {1433u, 4500u, 40u}) {
    for (uint32_t masks : {1u, 2u}) {
      CAPTURE(width);
      CAPTURE(masks);
      const std::vector<uint8_t> bytes = SparseFeatures(1500, width, width + masks);
      WriteOptions options;
      options.float_encoding = FloatEncoding::kIbp;
      options.ibp_masks = masks;
      auto writer = Writer::CreateInMemory({{"x", PhysicalType::kFloat32, {}, width}}, options);
      REQUIRE(writer.ok());
      REQUIRE(writer->Append(0, bytes.data(), bytes.size() / 4).ok());
      REQUIRE(writer->Close().ok());
      const std::vector<uint8_t> file = writer->TakeBuffer();
      Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
      REQUIRE(reader.ok());
      for (const ChunkInfo& chunk : reader->column(0).chunks) REQUIRE(chunk.encoding == 2);
      std::vector<uint8_t> cpu(bytes.size());
      REQUIRE(reader->ReadRows(0, 0, 1500, cpu.data(), cpu.size()).ok());
      REQUIRE(cpu == bytes);
      CheckIbpColumn(*reader, 0, width);
    }
  }
}

void CheckCorruptRowIsZeroed(uint32_t width) {
  CAPTURE(width);
  std::mt19937_64 rng(5);
  const uint64_t rows = 300;
  std::vector<float> v(rows * width);
  for (float& x : v) x = (rng() % 20 == 0) ? 1.0f : 0.0f;
  for (uint32_t j = 0; j < width; ++j) v[j] = 0.0f;  // row 0 packed, agrees with every word
  std::vector<uint8_t> bytes(v.size() * 4);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  std::vector<uint8_t> file = WriteIbp(bytes, PhysicalType::kFloat32, width);
  Result<Reader> clean = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(clean.ok());
  // Intact, row 0 is only its bitmap (every field 0 bits, L = H) and
  // decodes like every other row.
  CheckIbpColumn(*clean, 0, 9);
  const ChunkInfo chunk = clean->column(0).chunks[0];
  // Flip row 0's participation bit of a word whose mask covers all W bits:
  // its length no longer matches (spec §11.2.3 rule 5).
  Result<IbpRowStats> stats = clean->IbpStats(0, 0);
  REQUIRE(stats.ok());
  int full = -1;
  for (size_t j = 0; j < stats->masks[0].size() && full < 0; ++j) {
    if (__builtin_popcountll(stats->masks[0][j]) == static_cast<int>(8 * stats->word_bytes)) {
      full = static_cast<int>(j);
    }
  }
  REQUIRE(full >= 0);
  file[chunk.payload.offset + full / 8] ^= static_cast<uint8_t>(1u << (full % 8));
  ReadOptions no_crc;
  no_crc.verify_checksums = false;
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size(), no_crc);
  REQUIRE(reader.ok());
  std::vector<uint8_t> row0(width * 4);
  CHECK(reader->ReadRows(0, 0, 1, row0.data(), row0.size()).code() == StatusCode::kCorruptPayload);
  Result<DeviceIbpColumn> uploaded = UploadIbpColumn(*reader, 0, IbpResidency::kDevice, nullptr);
  REQUIRE(uploaded.ok());
  DeviceBuffer out(bytes.size());
  REQUIRE(cudaMemset(out.data(), 0xEE, out.size()) == cudaSuccess);
  REQUIRE(DecodeIbpRows(uploaded->chunks().data(), uploaded->chunks().size(), 0, rows, out.data(),
                        out.size(), nullptr)
              .ok());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<uint8_t> gpu = out.ToHost();
  const std::vector<uint8_t> zeros(width * 4, 0);
  CHECK(std::memcmp(gpu.data(), zeros.data(), zeros.size()) == 0);
  CHECK(std::memcmp(gpu.data() + width * 4, bytes.data() + width * 4, bytes.size() - width * 4) == 0);
  // Gathered: the same zeros, and its neighbours intact.
  const uint64_t ids[] = {1, 0, 2};
  DeviceBuffer d_ids(ids, sizeof(ids));
  DeviceBuffer gathered(3 * width * 4);
  REQUIRE(GatherIbpRows(uploaded->chunks().data(), uploaded->chunks().size(),
                        static_cast<const uint64_t*>(d_ids.data()), 3, gathered.data(),
                        gathered.size(), nullptr)
              .ok());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<uint8_t> g = gathered.ToHost();
  CHECK(std::memcmp(g.data(), bytes.data() + width * 4, width * 4) == 0);
  CHECK(std::memcmp(g.data() + width * 4, zeros.data(), zeros.size()) == 0);
  CHECK(std::memcmp(g.data() + 2 * width * 4, bytes.data() + 2 * width * 4, width * 4) == 0);
}

TEST_CASE("a corrupt packed row decodes to zeros on the GPU, its neighbours intact") {
  // Rows of 32 f32 values go through the row kernel; of 40 and 96 (17..64
  // words) through the short-row decoder; of 600 (300 or 600 words) are
  // gathered through the shared-memory stage.
  for (uint32_t width : {32u, 40u, 96u, 600u}) CheckCorruptRowIsZeroed(width);
}

std::vector<uint8_t> WriteIntegerForm(const std::vector<uint8_t>& bytes, PhysicalType type,
                                      uint32_t row_width, uint64_t float_chunk_bytes = 64 << 20) {
  WriteOptions options;
  options.float_encoding = FloatEncoding::kIntegerForm;
  options.float_chunk_bytes = float_chunk_bytes;
  auto writer = Writer::CreateInMemory({{"x", type, {}, row_width}}, options);
  REQUIRE(writer.ok());
  REQUIRE(writer->Append(0, bytes.data(), bytes.size() / PhysicalTypeBytes(type)).ok());
  REQUIRE(writer->Close().ok());
  return writer->TakeBuffer();
}

// A float column in the integer form (spec §11.2.2) through UploadColumn:
// its device chunks count values; DecodeRows of every value and of an inner
// range, and Take of random value ids (with one past the end, which gives
// 0), against the CPU reader's float bit patterns.
void CheckIntegerFormColumn(const Reader& reader, int column, uint64_t seed) {
  const ColumnInfo& col = reader.column(column);
  const int value_bytes = PhysicalTypeBytes(col.type);
  const uint64_t values = col.num_rows * col.row_width;
  std::vector<uint8_t> cpu(values * value_bytes);
  REQUIRE(reader.ReadRows(column, 0, col.num_rows, cpu.data(), cpu.size()).ok());
  Result<DeviceColumnBuffer> uploaded = UploadColumn(reader, column, nullptr);
  REQUIRE_MESSAGE(uploaded.ok(), uploaded.status().ToString());
  CHECK(uploaded->num_rows() == values);
  const std::vector<DeviceChunk>& chunks = uploaded->chunks();
  DeviceBuffer out(cpu.size() + 64);
  REQUIRE(cudaMemset(out.data(), 0xEE, out.size()) == cudaSuccess);
  Status full = DecodeRows(chunks.data(), chunks.size(), 0, values, out.data(), cpu.size(),
                           nullptr, 0, nullptr);
  REQUIRE_MESSAGE(full.ok(), full.ToString());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<uint8_t> gpu = out.ToHost();
  CHECK(std::memcmp(gpu.data(), cpu.data(), cpu.size()) == 0);
  CHECK(gpu[cpu.size()] == 0xEE);  // nothing past the values
  if (values > 3) {
    const uint64_t a = values / 3 + 1, b = values - 1;
    DeviceBuffer part((b - a) * value_bytes);
    REQUIRE(DecodeRows(chunks.data(), chunks.size(), a, b, part.data(), part.size(), nullptr, 0,
                       nullptr)
                .ok());
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<uint8_t> got = part.ToHost();
    CHECK(std::memcmp(got.data(), cpu.data() + a * value_bytes, got.size()) == 0);
  }
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> ids(std::min<uint64_t>(4096, values * 3));
  for (uint64_t& id : ids) id = rng() % values;
  ids.push_back(values);  // outside the column: 0
  DeviceBuffer d_ids(ids.data(), ids.size() * 8);
  DeviceBuffer taken(ids.size() * value_bytes);
  REQUIRE(cudaMemset(taken.data(), 0xEE, taken.size()) == cudaSuccess);
  const Status take = Take(chunks.data(), chunks.size(), static_cast<const uint64_t*>(d_ids.data()),
                           ids.size(), taken.data(), taken.size(), nullptr, 0, nullptr);
  REQUIRE_MESSAGE(take.ok(), take.ToString());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<uint8_t> t = taken.ToHost();
  size_t wrong = 0;
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    wrong += std::memcmp(t.data() + i * value_bytes, cpu.data() + ids[i] * value_bytes,
                         value_bytes) != 0;
  }
  CHECK(wrong == 0);
  const std::vector<uint8_t> zeros(value_bytes, 0);
  CHECK(std::memcmp(t.data() + (ids.size() - 1) * value_bytes, zeros.data(), value_bytes) == 0);
}

// Bit patterns of a smooth signal with every special value mixed in: +-0,
// +-inf, NaNs of both signs and payloads, subnormals, the extremes.
template <typename U>
std::vector<uint8_t> SmoothWithSpecials(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr int kBits = 8 * sizeof(U);
  const U sign = static_cast<U>(U{1} << (kBits - 1));
  const U specials[] = {0, sign, static_cast<U>(~U{0}), static_cast<U>(sign - 1), 1,
                        static_cast<U>(sign | 1), static_cast<U>(~U{0} >> 1)};
  std::vector<U> v(n);
  U x = static_cast<U>(U{1} << (kBits - 3));
  for (size_t i = 0; i < n; ++i) {
    x = static_cast<U>(x + (rng() % 64) - 20);
    v[i] = rng() % 101 == 0 ? specials[rng() % 7] : static_cast<U>(x ^ (i % 3 == 0 ? sign : 0));
  }
  std::vector<uint8_t> out(n * sizeof(U));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST_CASE("float columns in the integer form decode and take on the GPU as on the CPU") {
  struct Case {
    PhysicalType type;
    uint32_t row_width;
    uint64_t chunk_bytes;
  };
  uint64_t seed = 300;
  for (const Case& c : {Case{PhysicalType::kFloat32, 1, 64 << 20}, Case{PhysicalType::kFloat32, 5, 40000},
                        Case{PhysicalType::kFloat64, 3, 64 << 20}, Case{PhysicalType::kFloat64, 1, 90000},
                        Case{PhysicalType::kFloat16, 7, 64 << 20}, Case{PhysicalType::kBFloat16, 2, 30000}}) {
    CAPTURE(static_cast<int>(c.type));
    CAPTURE(c.row_width);
    const size_t n = 50001 / c.row_width * c.row_width;
    std::vector<uint8_t> bytes;
    switch (PhysicalTypeBytes(c.type)) {
      case 2: bytes = SmoothWithSpecials<uint16_t>(n, seed); break;
      case 4: bytes = SmoothWithSpecials<uint32_t>(n, seed); break;
      default: bytes = SmoothWithSpecials<uint64_t>(n, seed); break;
    }
    const std::vector<uint8_t> file = WriteIntegerForm(bytes, c.type, c.row_width, c.chunk_bytes);
    Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
    REQUIRE(reader.ok());
    REQUIRE(reader->column(0).chunks.front().encoding == 1);
    if (c.chunk_bytes < (1 << 20)) CHECK(reader->column(0).chunks.size() > 1);
    CheckIntegerFormColumn(*reader, 0, seed++);
    // The decoded bits are the input's: the order map was undone.
    std::vector<uint8_t> cpu(bytes.size());
    REQUIRE(reader->ReadRows(0, 0, reader->column(0).num_rows, cpu.data(), cpu.size()).ok());
    CHECK(cpu == bytes);
  }
}

TEST_CASE("each GPU float path refuses the other form") {
  std::vector<uint8_t> bytes(64 * 8 * 4, 0);
  const std::vector<uint8_t> file = WriteIntegerForm(bytes, PhysicalType::kFloat32, 8);
  Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(reader.ok());
  CHECK(UploadIbpColumn(*reader, 0, IbpResidency::kDevice, nullptr).status().code() ==
        StatusCode::kUnsupportedFeature);
  const std::vector<uint8_t> ibp_file = WriteIbp(bytes, PhysicalType::kFloat32, 8);
  Result<Reader> ibp = Reader::OpenBuffer(ibp_file.data(), ibp_file.size());
  REQUIRE(ibp.ok());
  REQUIRE(ibp->column(0).chunks.front().encoding == 2);
  CHECK(UploadColumn(*ibp, 0, nullptr).status().code() == StatusCode::kUnsupportedFeature);
  Result<ChunkView> view = ibp->GetChunkView(0, 0);
  REQUIRE(view.ok());
  CHECK(MakeDeviceChunk(*view, view->partition_table, view->parameters, view->payload).status().code() ==
        StatusCode::kUnsupportedFeature);
  CHECK(DecodeIbpRows(nullptr, 0, 0, 1, nullptr, 0, nullptr).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("the real float arrays and the CPU tests' float files decode on the GPU") {
  int columns = 0;
  int integer_form_columns = 0;
  Result<std::vector<datagen::FloatArray>> arrays = datagen::LoadRealFloatArrays();
  if (arrays.ok()) {
    uint64_t seed = 50;
    for (const datagen::FloatArray& a : *arrays) {
      CAPTURE(a.name);
      const std::vector<uint8_t> file = WriteIbp(a.bytes, a.type, a.row_width, 4 << 20);
      Result<Reader> reader = Reader::OpenBuffer(file.data(), file.size());
      REQUIRE(reader.ok());
      CheckIbpColumn(*reader, 0, seed++);
      ++columns;
      if (a.bytes.size() <= (8u << 20)) {
        const std::vector<uint8_t> integer_form = WriteIntegerForm(a.bytes, a.type, a.row_width, 4 << 20);
        Result<Reader> as_integers = Reader::OpenBuffer(integer_form.data(), integer_form.size());
        REQUIRE(as_integers.ok());
        CheckIntegerFormColumn(*as_integers, 0, seed++);
        ++integer_form_columns;
      }
    }
  } else {
    MESSAGE("skipped the real float arrays: " << arrays.status().ToString());
  }
  const char* dir = std::getenv("L3_TEST_FILES_DIR");
  if (dir != nullptr && *dir != '\0' && std::filesystem::is_directory(dir)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".l3") continue;
      Result<Reader> reader = Reader::Open(entry.path().string());
      if (!reader.ok()) continue;
      for (int c = 0; c < reader->num_columns(); ++c) {
        const ColumnInfo& col = reader->column(c);
        if (!PhysicalTypeIsFloat(col.type) || col.chunks.empty()) continue;
        bool all_ibp = true, all_integer_form = true;
        for (const ChunkInfo& ch : col.chunks) {
          all_ibp = all_ibp && ch.encoding == 2;
          all_integer_form = all_integer_form && ch.encoding == 1;
        }
        CAPTURE(entry.path().string());
        if (all_ibp) {
          CheckIbpColumn(*reader, c, 77);
          ++columns;
        } else if (all_integer_form) {
          CheckIntegerFormColumn(*reader, c, 78);
          ++integer_form_columns;
        }
      }
    }
  }
  MESSAGE("checked " << columns << " IBP columns and " << integer_form_columns
                     << " float columns in the integer form");
}

}  // namespace
}  // namespace l3::cuda::testing
