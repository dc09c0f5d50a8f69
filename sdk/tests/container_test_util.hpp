// Test helpers for the container and the reference decoder: chunks built by
// hand straight from the spec (§7.3–§8.7, field by field with WriteField),
// files assembled from them, and small data generators. Independent of the
// chunk encoder.
#pragma once

#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "codec/predictor.hpp"
#include "common/bits.hpp"
#include "common/crc32c.hpp"
#include "common/output_sink.hpp"
#include "common/zstd_codec.hpp"
#include "format/file_assembler.hpp"
#include "format/framing.hpp"
#include "format/layout.hpp"
#include "l3/l3.hpp"

namespace l3::testing {

using internal::Model;

template <typename T>
constexpr PhysicalType TypeOf() {
  if (std::is_same<T, int8_t>::value) return PhysicalType::kInt8;
  if (std::is_same<T, int16_t>::value) return PhysicalType::kInt16;
  if (std::is_same<T, int32_t>::value) return PhysicalType::kInt32;
  if (std::is_same<T, int64_t>::value) return PhysicalType::kInt64;
  if (std::is_same<T, uint8_t>::value) return PhysicalType::kUInt8;
  if (std::is_same<T, uint16_t>::value) return PhysicalType::kUInt16;
  if (std::is_same<T, uint32_t>::value) return PhysicalType::kUInt32;
  return PhysicalType::kUInt64;
}

/// The canonical extension of a value (spec §8.2).
template <typename T>
uint64_t Canonical(T v) {
  return std::is_signed<T>::value ? static_cast<uint64_t>(static_cast<int64_t>(v))
                                  : static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}

inline uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}

/// How to encode one partition.
struct HandPartition {
  uint32_t num_rows = 0;
  Model model = Model::kFor;
  std::array<double, 4> theta{};  ///< LINEAR/POLY2/POLY3
  /// Use this Bit_Width instead of the minimal one (must be wide enough).
  std::optional<uint32_t> bit_width;
};

/// The decoded bytes of a chunk's segments, built by hand.
struct HandChunk {
  PhysicalType type = PhysicalType::kInt64;
  uint64_t num_rows = 0;
  uint32_t values_per_lane = 64;
  uint32_t num_partitions = 0;
  std::vector<uint8_t> partition_table, parameters, payload, bounds;
  ChunkStatistics statistics;
  PgmIndexInfo pgm;  // spec §11.3, stored when present
  bool uses_delta = false;  // a partition is DELTA: the file sets DELTA_MODEL (spec §4.4)

  ChunkView View() const {
    ChunkView v;
    v.type = type;
    v.num_rows = num_rows;
    v.values_per_lane = values_per_lane;
    v.num_partitions = num_partitions;
    v.partition_table = partition_table.data();
    v.parameters = parameters.data();
    v.parameters_bytes = parameters.size();
    v.payload = payload.data();
    v.payload_bytes = payload.size();
    v.bounds = bounds.empty() ? nullptr : bounds.data();
    v.bounds_bytes = bounds.size();
    return v;
  }
};

/// Builds a chunk from `values` with the given partitioning, following the
/// spec literally: records (§7.3), parameter words (§8.2), SLAP fields at the
/// positions of §8.5 and runs as in §8.7. CONSTANT partitions become runs
/// when their values are not all equal.
template <typename T>
HandChunk BuildHandChunk(const std::vector<T>& values, const std::vector<HandPartition>& parts,
                         uint32_t values_per_lane = 64, bool with_bounds = true) {
  using U = std::make_unsigned_t<T>;
  constexpr uint32_t kBits = 8 * sizeof(T);
  HandChunk chunk;
  chunk.type = TypeOf<T>();
  chunk.num_rows = values.size();
  chunk.values_per_lane = values_per_lane;
  chunk.num_partitions = static_cast<uint32_t>(parts.size());
  std::vector<uint64_t> params;
  std::vector<std::vector<uint64_t>> payloads;  // per partition, in words
  std::vector<internal::PartitionRecord> records;
  std::vector<T> mins, maxs;
  uint64_t row = 0, param_offset = 0, payload_offset = 0;
  for (const HandPartition& hp : parts) {
    const T* v = values.data() + row;
    const uint64_t n = hp.num_rows;
    REQUIRE(n >= 1);
    REQUIRE(row + n <= values.size());
    const T lo = *std::min_element(v, v + n);
    const T hi = *std::max_element(v, v + n);
    mins.push_back(lo);
    maxs.push_back(hi);
    internal::PartitionRecord rec{};
    rec.first_row = static_cast<uint32_t>(row);
    rec.param_offset = static_cast<uint32_t>(param_offset);
    rec.payload_offset = static_cast<uint32_t>(payload_offset);
    rec.model_type = static_cast<uint8_t>(hp.model);
    std::vector<uint64_t> words;
    std::vector<uint64_t> my_params;
    if (hp.model == Model::kConstant) {
      // Runs (spec §8.7), or a single value.
      std::vector<T> run_values;
      std::vector<uint64_t> starts;
      for (uint64_t x = 0; x < n; ++x) {
        if (x == 0 || v[x] != v[x - 1]) {
          run_values.push_back(v[x]);
          starts.push_back(x);
        }
      }
      const T run_lo = *std::min_element(run_values.begin(), run_values.end());
      const T run_hi = *std::max_element(run_values.begin(), run_values.end());
      const uint32_t w = hp.bit_width.value_or(
          internal::BitLength(static_cast<U>(static_cast<U>(run_hi) - static_cast<U>(run_lo))));
      rec.bit_width = static_cast<uint8_t>(w);
      my_params.push_back(Canonical(run_lo));
      if (w > 0) {
        const uint64_t runs = run_values.size();
        my_params.push_back(runs);
        const uint32_t pb = internal::RunStartBits(n);
        words.assign(internal::RunPayloadWords(n, w, runs) + 2, 0);
        auto* bytes = reinterpret_cast<uint8_t*>(words.data());
        for (uint64_t i = 0; i < runs; ++i) {
          internal::WriteField(bytes, i * w, w,
                               static_cast<U>(static_cast<U>(run_values[i]) - static_cast<U>(run_lo)));
        }
        for (uint64_t i = 1; i < runs; ++i) {
          internal::WriteField(bytes, runs * w + (i - 1) * pb, pb, starts[i]);
        }
        words.resize(internal::RunPayloadWords(n, w, runs));
      }
    } else {
      // SLAP (spec §8.5): the field of local row x at SlapFieldBitOffset.
      std::vector<uint64_t> fields(n);
      uint32_t w = 0;
      if (hp.model == Model::kFor) {
        my_params.push_back(Canonical(lo));
        for (uint64_t x = 0; x < n; ++x) {
          fields[x] = static_cast<U>(static_cast<U>(v[x]) - static_cast<U>(lo));
          w = std::max(w, internal::BitLength(fields[x]));
        }
      } else {
        const uint32_t count = internal::ParamCount(rec.model_type, 1);
        for (uint32_t i = 0; i < count; ++i) my_params.push_back(DoubleBits(hp.theta[i]));
        for (uint64_t x = 0; x < n; ++x) {
          const int64_t pred = internal::PredictRow(rec.model_type, hp.theta.data(), x,
                                                    values_per_lane);
          // spec §8.8 rule 1: r = (v - pred) mod 2^N as N-bit two's complement.
          const uint64_t diff = static_cast<uint64_t>(Canonical(v[x])) - static_cast<uint64_t>(pred);
          const int64_t r = internal::SignExtend(diff, kBits);
          fields[x] = static_cast<uint64_t>(r);
          w = std::max(w, internal::SignedWidth(r));
        }
      }
      if (hp.bit_width) {
        REQUIRE(*hp.bit_width >= w);
        w = *hp.bit_width;
      }
      rec.bit_width = static_cast<uint8_t>(w);
      words.assign(internal::SlapPayloadWords(n, w) + 2, 0);
      auto* bytes = reinterpret_cast<uint8_t*>(words.data());
      for (uint64_t x = 0; x < n; ++x) {
        internal::WriteField(bytes, internal::SlapFieldBitOffset(n, w, values_per_lane, x), w,
                             fields[x]);
      }
      words.resize(internal::SlapPayloadWords(n, w));
    }
    REQUIRE(my_params.size() == internal::ParamCount(rec.model_type, rec.bit_width));
    params.insert(params.end(), my_params.begin(), my_params.end());
    param_offset += my_params.size();
    payload_offset += words.size();
    payloads.push_back(std::move(words));
    records.push_back(rec);
    row += n;
  }
  REQUIRE(row == values.size());
  internal::PartitionRecord sentinel{};
  sentinel.first_row = static_cast<uint32_t>(row);
  sentinel.param_offset = static_cast<uint32_t>(param_offset);
  sentinel.payload_offset = static_cast<uint32_t>(payload_offset);
  records.push_back(sentinel);

  chunk.partition_table.assign(16 * records.size(), 0);
  for (size_t p = 0; p < records.size(); ++p) {
    internal::StorePartitionRecord(chunk.partition_table.data(), p, records[p]);
  }
  chunk.parameters.assign(8 * params.size(), 0);
  for (size_t i = 0; i < params.size(); ++i) internal::StoreLE64(&chunk.parameters[8 * i], params[i]);
  for (const auto& words : payloads) {
    for (uint64_t w : words) {
      uint8_t b[8];
      internal::StoreLE64(b, w);
      chunk.payload.insert(chunk.payload.end(), b, b + 8);
    }
  }
  chunk.payload.insert(chunk.payload.end(), internal::kPayloadPaddingBytes, 0);
  if (with_bounds) {
    chunk.bounds.resize(2 * parts.size() * sizeof(T));
    for (size_t p = 0; p < parts.size(); ++p) {
      std::memcpy(&chunk.bounds[sizeof(T) * p], &mins[p], sizeof(T));
      std::memcpy(&chunk.bounds[sizeof(T) * (parts.size() + p)], &maxs[p], sizeof(T));
    }
  }
  std::vector<T> sorted(values);
  std::sort(sorted.begin(), sorted.end());
  chunk.statistics.present = true;
  chunk.statistics.has_min_max = true;
  chunk.statistics.min_value = Canonical(sorted.front());
  chunk.statistics.max_value = Canonical(sorted.back());
  chunk.statistics.distinct_count =
      static_cast<uint64_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  chunk.statistics.distinct_count_exact = true;
  return chunk;
}

/// Cuts `n` rows into partitions of `size` rows (the last may be shorter),
/// cycling through `models`.
inline std::vector<HandPartition> Partitioning(uint64_t n, uint32_t size,
                                               const std::vector<HandPartition>& models) {
  std::vector<HandPartition> parts;
  for (uint64_t row = 0, i = 0; row < n; row += size, ++i) {
    HandPartition p = models[i % models.size()];
    p.num_rows = static_cast<uint32_t>(std::min<uint64_t>(size, n - row));
    parts.push_back(p);
  }
  return parts;
}

inline HandPartition Part(Model model, std::array<double, 4> theta = {}) {
  HandPartition p;
  p.model = model;
  p.theta = theta;
  return p;
}

/// A column of hand-built chunks, for AssembleFile.
struct HandColumn {
  std::string name;
  PhysicalType type = PhysicalType::kInt64;
  std::vector<HandChunk> chunks;
};

struct AssembleOptions {
  bool zstd = false;
  bool bounds = true;
  bool statistics = true;
  std::vector<std::pair<std::string, std::string>> metadata;
};

/// Lays out a file from hand-built chunks with the writer's FileAssembler.
inline std::vector<uint8_t> AssembleFile(const std::vector<HandColumn>& columns,
                                         const AssembleOptions& options = {}) {
  internal::MemorySink sink;
  internal::FileAssembler assembler(&sink);
  REQUIRE(assembler.Start().ok());
  std::vector<ColumnInfo> infos(columns.size());
  uint64_t num_rows = 0;
  for (size_t c = 0; c < columns.size(); ++c) {
    infos[c].name = columns[c].name;
    infos[c].type = columns[c].type;
    uint64_t rows = 0;
    for (const HandChunk& hc : columns[c].chunks) {
      ChunkInfo ci;
      ci.num_rows = hc.num_rows;
      ci.encoding = 1;
      ci.values_per_lane = hc.values_per_lane;
      ci.num_partitions = hc.num_partitions;
      auto add = [&](const std::vector<uint8_t>& bytes, SegmentInfo* seg) {
        if (options.zstd) {
          auto packed = internal::ZstdCompress(bytes.data(), bytes.size(), 3);
          REQUIRE(packed.ok());
          auto r = assembler.AppendSegment(packed->data(), packed->size(), bytes.size(),
                                           Compression::kZstd);
          REQUIRE(r.ok());
          *seg = *r;
        } else {
          auto r = assembler.AppendSegment(bytes.data(), bytes.size(), bytes.size(),
                                           Compression::kNone);
          REQUIRE(r.ok());
          *seg = *r;
        }
      };
      add(hc.partition_table, &ci.partition_table);
      add(hc.parameters, &ci.parameters);
      add(hc.payload, &ci.payload);
      if (options.bounds && !hc.bounds.empty()) add(hc.bounds, &ci.bounds);
      if (options.statistics) ci.statistics = hc.statistics;
      ci.pgm = hc.pgm;
      ci.has_pgm = hc.pgm.present;
      ci.uses_delta = hc.uses_delta;
      rows += hc.num_rows;
      infos[c].chunks.push_back(ci);
    }
    num_rows = rows;
  }
  FileInfo info;
  info.num_rows = num_rows;
  info.writer_name = "hand";
  info.writer_version = "0";
  info.metadata = options.metadata;
  REQUIRE(assembler.Finish(info, infos).ok());
  return sink.Take();
}

/// Rewrites the postscript of `file` with `edit` applied to its fields and a
/// fresh Postscript_Checksum.
template <typename Edit>
void EditPostscript(std::vector<uint8_t>* file, Edit edit) {
  uint8_t* ps = file->data() + file->size() - 64;
  edit(ps);
  internal::StoreLE32(ps + internal::kPsPostscriptChecksum,
                      internal::Crc32c(0, ps, internal::kPsChecksummedBytes));
}

/// Replaces the footer of `file` (which ends at the postscript) with `footer`
/// and fixes the postscript's length and checksums. Feature bits stay.
inline std::vector<uint8_t> ReplaceFooter(const std::vector<uint8_t>& file,
                                          const std::vector<uint8_t>& footer) {
  const uint8_t* ps = file.data() + file.size() - 64;
  const uint64_t footer_offset = internal::LoadLE64(ps + internal::kPsFooterOffset);
  std::vector<uint8_t> out(file.begin(), file.begin() + footer_offset);
  out.insert(out.end(), footer.begin(), footer.end());
  out.insert(out.end(), ps, ps + 64);
  EditPostscript(&out, [&](uint8_t* p) {
    internal::StoreLE64(p + internal::kPsFooterLength, footer.size());
    internal::StoreLE32(p + internal::kPsFooterChecksum,
                        internal::Crc32c(0, footer.data(), footer.size()));
  });
  return out;
}

// ---------------------------------------------------------------------------
// Data generators

template <typename T>
std::vector<T> RandomValues(size_t n, uint64_t seed, uint64_t span = 0) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    uint64_t r = rng();
    if (span != 0) r %= span;
    x = static_cast<T>(r);
  }
  return v;
}

/// Roughly linear data with small noise, wrapped into T.
template <typename T>
std::vector<T> LinearValues(size_t n, uint64_t seed, double slope = 3.0, int noise = 8) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t base = static_cast<int64_t>(std::llround(slope * static_cast<double>(i))) + 100;
    const int64_t jitter = noise > 0 ? static_cast<int64_t>(rng() % (2 * noise + 1)) - noise : 0;
    v[i] = static_cast<T>(base + jitter);
  }
  return v;
}

/// Runs of random lengths with random values.
template <typename T>
std::vector<T> RunValues(size_t n, uint64_t seed, uint32_t max_run = 20) {
  std::mt19937_64 rng(seed);
  std::vector<T> v;
  v.reserve(n);
  while (v.size() < n) {
    const T value = static_cast<T>(rng() % 50);
    const size_t len = 1 + rng() % max_run;
    for (size_t i = 0; i < len && v.size() < n; ++i) v.push_back(value);
  }
  return v;
}

// The bytes of a gzip file; false when it cannot be read whole.
inline bool ReadGzipFile(const std::string& path, std::vector<uint8_t>* out) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  std::vector<uint8_t> buffer(1 << 20);
  int got;
  while ((got = gzread(f, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) {
    out->insert(out->end(), buffer.begin(), buffer.begin() + got);
  }
  gzclose(f);
  return got == 0;
}

#ifdef L3_REAL_DATA_DIR
// A gzip-compressed little-endian array of T from the real data directory.
template <typename T>
bool LoadRealArray(const std::string& name, std::vector<T>* out) {
  std::vector<uint8_t> bytes;
  if (!ReadGzipFile(std::string(L3_REAL_DATA_DIR) + "/" + name, &bytes) ||
      bytes.size() % sizeof(T) != 0) {
    return false;
  }
  out->resize(bytes.size() / sizeof(T));
  std::memcpy(out->data(), bytes.data(), bytes.size());
  return true;
}
#endif

/// A file of one column "v" of `type` holding `v`, written in memory with
/// `options`.
template <typename T>
std::vector<uint8_t> WriteOneColumn(const std::vector<T>& v, PhysicalType type,
                                    const WriteOptions& options) {
  Result<Writer> writer = Writer::CreateInMemory({{"v", type, {}}}, options);
  REQUIRE(writer.ok());
  REQUIRE(writer->AppendTyped(0, v.data(), v.size()).ok());
  REQUIRE(writer->Close().ok());
  return writer->TakeBuffer();
}

// Keeps a copy of a file a test wrote in $L3_TEST_FILES_DIR, when set, so that
// the GPU tests can decode every file the CPU tests write and compare with the
// CPU reference (ctest sets the variable; see sdk/tests/CMakeLists.txt).
inline void KeepTestFile(const std::string& name, const std::vector<uint8_t>& file) {
  const char* dir = std::getenv("L3_TEST_FILES_DIR");
  if (dir == nullptr || *dir == '\0') return;
  std::ofstream out(std::string(dir) + "/" + name + ".l3", std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  REQUIRE_MESSAGE(out.good(), "cannot write " << name << ".l3 to " << dir);
}

}  // namespace l3::testing
