// Field planes and field bytes (spec §9.2, §9.3): the transforms of a payload
// segment into whole-byte fields, split into planes or kept together, and the
// archive profile that stores payloads as zstd over them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "codec/decode/decode_chunk.hpp"
#include "codec/encode/encode_chunk.hpp"
#include "codec/planes/field_planes.hpp"
#include "common/bits.hpp"
#include "format/layout.hpp"
#include "l3/l3.hpp"

using namespace l3;
using namespace l3::internal;

namespace {

// Payload -> form -> payload gives back the same bytes for both forms, whose
// length is FieldFormBytes; the two forms hold the same bytes in another
// order.
void CheckRoundTrip(const EncodedChunk& chunk, PhysicalType type) {
  const ChunkView view = ChunkViewOf(chunk, type);
  REQUIRE(ValidateChunkMetadata(view).ok());
  std::vector<uint8_t> sorted[2];
  for (const FieldForm form : {FieldForm::kPlanes, FieldForm::kFieldBytes}) {
    const std::vector<uint8_t> data = FieldFormFromPayload(view, form);
    CHECK(data.size() == FieldFormBytes(view));
    std::vector<uint8_t> rebuilt(chunk.payload.size(), 0xA5);
    CHECK(PayloadFromFieldForm(view, form, data.data(), rebuilt.data()));
    CHECK(rebuilt == chunk.payload);
    sorted[static_cast<int>(form)] = data;
    std::sort(sorted[static_cast<int>(form)].begin(), sorted[static_cast<int>(form)].end());
  }
  CHECK(sorted[0] == sorted[1]);
}

template <typename T>
std::vector<uint8_t> Pack(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace

TEST_CASE("field planes and field bytes: the worked example of spec §9.2 and §9.3") {
  // u16, V = 64: FOR_BITPACK of 3 rows (w = 9, fields 0, 300, 7), then
  // LINEAR of 2 rows (w = 3, residuals -1, 2).
  std::vector<uint8_t> table(3 * kPartitionRecordBytes, 0);
  PartitionRecord r0{};
  r0.first_row = 0;
  r0.model_type = static_cast<uint8_t>(Model::kFor);
  r0.bit_width = 9;
  r0.param_offset = 0;
  r0.payload_offset = 0;
  PartitionRecord r1{};
  r1.first_row = 3;
  r1.model_type = static_cast<uint8_t>(Model::kLinear);
  r1.bit_width = 3;
  r1.param_offset = ParamCount(r0.model_type, r0.bit_width);
  r1.payload_offset = 1;
  PartitionRecord end{};
  end.first_row = 5;
  end.param_offset = r1.param_offset + ParamCount(r1.model_type, r1.bit_width);
  end.payload_offset = 2;
  StorePartitionRecord(table.data(), 0, r0);
  StorePartitionRecord(table.data(), 1, r1);
  StorePartitionRecord(table.data(), 2, end);
  std::vector<uint8_t> params(8 * end.param_offset, 0);
  std::vector<uint8_t> payload(8 * 2 + kPayloadPaddingBytes, 0);
  const uint64_t fields[] = {0, 300, 7};
  for (uint64_t x = 0; x < 3; ++x) WriteField(payload.data(), SlapFieldBitOffset(3, 9, 64, x), 9, fields[x]);
  const uint64_t residuals[] = {0x7 /* -1 */, 0x2};
  for (uint64_t x = 0; x < 2; ++x) {
    WriteField(payload.data(), 64 + SlapFieldBitOffset(2, 3, 64, x), 3, residuals[x]);
  }
  ChunkView view;
  view.type = PhysicalType::kUInt16;
  view.num_rows = 5;
  view.values_per_lane = 64;
  view.num_partitions = 2;
  view.partition_table = table.data();
  view.parameters = params.data();
  view.parameters_bytes = params.size();
  view.payload = payload.data();
  view.payload_bytes = payload.size();
  REQUIRE(ValidateChunkMetadata(view).ok());
  const std::vector<uint8_t> expected = {0x00, 0x2C, 0x07, 0x01, 0x04, 0x00, 0x01, 0x00};
  CHECK(FieldFormBytes(view) == expected.size());
  CHECK(FieldFormFromPayload(view, FieldForm::kPlanes) == expected);
  std::vector<uint8_t> rebuilt(payload.size(), 0xFF);
  CHECK(PayloadFromFieldForm(view, FieldForm::kPlanes, expected.data(), rebuilt.data()));
  CHECK(rebuilt == payload);
  // A bit above a field's width in its top byte (bit 2 of 300's second byte,
  // beyond its 9 bits) is not canonical.
  std::vector<uint8_t> bad = expected;
  bad[6] |= 0x04;
  CHECK_FALSE(PayloadFromFieldForm(view, FieldForm::kPlanes, bad.data(), rebuilt.data()));
  CHECK(rebuilt == payload);  // still written, with the stray bit dropped
  bad = expected;
  bad[4] |= 0x08;  // zigzag(2) = 4 has 3 bits; bit 3 is outside
  CHECK_FALSE(PayloadFromFieldForm(view, FieldForm::kPlanes, bad.data(), rebuilt.data()));

  // spec §9.3: the same fields, each whole, in the same order.
  const std::vector<uint8_t> field_bytes = {0x00, 0x00, 0x2C, 0x01, 0x07, 0x00, 0x01, 0x04};
  CHECK(FieldFormFromPayload(view, FieldForm::kFieldBytes) == field_bytes);
  std::fill(rebuilt.begin(), rebuilt.end(), 0xFF);
  CHECK(PayloadFromFieldForm(view, FieldForm::kFieldBytes, field_bytes.data(), rebuilt.data()));
  CHECK(rebuilt == payload);
  bad = field_bytes;
  bad[3] |= 0x04;  // 300's second byte again
  CHECK_FALSE(PayloadFromFieldForm(view, FieldForm::kFieldBytes, bad.data(), rebuilt.data()));
  CHECK(rebuilt == payload);
  bad = field_bytes;
  bad[7] |= 0x08;
  CHECK_FALSE(PayloadFromFieldForm(view, FieldForm::kFieldBytes, bad.data(), rebuilt.data()));
}

TEST_CASE("field planes: every model, width and type round-trips") {
  std::mt19937_64 rng(42);
  const PhysicalType types[] = {PhysicalType::kInt8,  PhysicalType::kInt16, PhysicalType::kInt32,
                                PhysicalType::kInt64, PhysicalType::kUInt8, PhysicalType::kUInt16,
                                PhysicalType::kUInt32, PhysicalType::kUInt64};
  for (PhysicalType type : types) {
    CAPTURE(PhysicalTypeName(type));
    const int bytes = PhysicalTypeBytes(type);
    const uint32_t bits = 8 * static_cast<uint32_t>(bytes);
    for (uint32_t V : {1u, 4u, 64u}) {
      CAPTURE(V);
      // A random walk with steps of growing width, runs, a line with noise and
      // full-width noise, so that every model and widths 0..bits appear.
      std::vector<uint64_t> values;
      uint64_t walk = rng();
      for (uint32_t w = 0; w <= bits; w += (bits >= 32 ? 7 : 1)) {
        for (int i = 0; i < 300; ++i) {
          walk += (w == 0 ? 0 : rng() & LowMask(w)) - (w == 0 ? 0 : uint64_t{1} << (w - 1));
          values.push_back(walk);
        }
      }
      for (int run = 0; run < 40; ++run) {
        const uint64_t v = rng();
        for (int i = 0, len = 1 + static_cast<int>(rng() % 30); i < len; ++i) values.push_back(v);
      }
      for (int i = 0; i < 2000; ++i) values.push_back(static_cast<uint64_t>(i) * 37 + rng() % 9);
      for (int i = 0; i < 700; ++i) values.push_back(rng());
      std::vector<uint8_t> packed(values.size() * bytes);
      for (size_t i = 0; i < values.size(); ++i) std::memcpy(&packed[i * bytes], &values[i], bytes);
      EncoderConfig config;
      config.type = type;
      config.values_per_lane = V;
      Result<EncodedChunk> chunk = EncodeChunk(packed.data(), values.size(), config);
      REQUIRE(chunk.ok());
      CheckRoundTrip(*chunk, type);
      // Forced models, so that each appears whatever the partitioner prefers.
      for (Model m : {Model::kConstant, Model::kFor, Model::kDelta, Model::kLinear, Model::kPoly2,
                      Model::kPoly3}) {
        CAPTURE(static_cast<int>(m));
        std::vector<PartitionChoice> choices;
        uint64_t left = values.size();
        while (left > 0) {
          const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(left, 1 + rng() % 3000));
          choices.push_back(PartitionChoice{n, m, std::nullopt});
          left -= n;
        }
        Result<EncodedChunk> forced =
            EncodeChunkWithPartitions(packed.data(), values.size(), config, choices);
        if (!forced.ok()) {
          // LINEAR/POLY on 64-bit values beyond 2^53 (spec §8.8 rule 3).
          CHECK(forced.status().code() == StatusCode::kInvalidArgument);
          continue;
        }
        CheckRoundTrip(*forced, type);
      }
    }
  }
}

TEST_CASE("field planes: whole lane blocks of every width, and groups of partitions on threads") {
  // FOR and LINEAR partitions of 64..1-bit fields, each with full tiles
  // (one lane block a lane for V = 64, two for V = 128, none for V = 32)
  // and a partial tile.
  std::mt19937_64 rng(11);
  for (uint32_t V : {32u, 64u, 128u}) {
    CAPTURE(V);
    std::vector<uint64_t> values;
    std::vector<PartitionChoice> choices;
    for (uint32_t w = 64; w >= 1; --w) {
      const uint32_t n = 8192 + 1 + static_cast<uint32_t>(rng() % 200);
      for (uint32_t i = 0; i < n; ++i) values.push_back(rng() & LowMask(w));
      // LINEAR (zigzag mapped residuals) where the values allow a line
      // (spec §8.8 rule 3: below 2^53).
      const Model model = w % 2 == 0 || w > 52 ? Model::kFor : Model::kLinear;
      choices.push_back(PartitionChoice{n, model, std::nullopt});
    }
    std::vector<uint8_t> packed(values.size() * 8);
    std::memcpy(packed.data(), values.data(), packed.size());
    EncoderConfig config;
    config.type = PhysicalType::kUInt64;
    config.values_per_lane = V;
    Result<EncodedChunk> chunk =
        EncodeChunkWithPartitions(packed.data(), values.size(), config, choices);
    REQUIRE(chunk.ok());
    CheckRoundTrip(*chunk, PhysicalType::kUInt64);
    const ChunkView view = ChunkViewOf(*chunk, PhysicalType::kUInt64);
    REQUIRE(view.payload_bytes > (uint64_t{2} << 20));  // groups of at least 1 MiB
    for (const FieldForm form : {FieldForm::kPlanes, FieldForm::kFieldBytes}) {
      CAPTURE(static_cast<int>(form));
      std::vector<uint8_t> data = FieldFormFromPayload(view, form);
      for (int threads : {2, 3, 8}) {
        CAPTURE(threads);
        std::vector<uint8_t> rebuilt(chunk->payload.size(), 0x5A);
        CHECK(PayloadFromFieldForm(view, form, data.data(), rebuilt.data(), threads));
        CHECK(rebuilt == chunk->payload);
      }
      // The last field has 1 bit and one byte: the last byte of plane 0 (one
      // byte a field) or of the field bytes. A bit above its width there is
      // found by the group that holds it (spec §9.2: CORRUPT_PAYLOAD).
      data[form == FieldForm::kPlanes ? values.size() - 1 : data.size() - 1] |= 0x80;
      for (int threads : {1, 4}) {
        std::vector<uint8_t> rebuilt(chunk->payload.size());
        CHECK_FALSE(PayloadFromFieldForm(view, form, data.data(), rebuilt.data(), threads));
      }
    }
  }
}

TEST_CASE("field planes: the archive profile stores payloads as ZstdFieldPlanes where smaller") {
  // A random walk: bit-packed deltas that zstd cannot see, and that field
  // planes expose (spec §9.2).
  std::mt19937_64 rng(7);
  std::vector<int32_t> walk(200000);
  int32_t x = 0;
  for (int32_t& v : walk) {
    x += static_cast<int32_t>(rng() % 61) - 30;
    v = x;
  }
  auto write = [&](bool planes, uint16_t format_minor) {
    WriteOptions o;
    o.chunk_rows = 50000;
    o.profile = Profile::kArchive;
    o.zstd_level = 3;
    o.archive_field_planes = planes;
    o.format_minor = format_minor;
    auto w = Writer::CreateInMemory({ColumnSpec{"walk", PhysicalType::kInt32, {}}}, o);
    REQUIRE(w.ok());
    REQUIRE(w->AppendTyped<int32_t>(0, walk.data(), walk.size()).ok());
    REQUIRE(w->Close().ok());
    return w->TakeBuffer();
  };
  const std::vector<uint8_t> with = write(true, 1);
  const std::vector<uint8_t> without = write(false, 1);
  const std::vector<uint8_t> old = write(true, 0);
  CHECK(with.size() < without.size());
  CHECK(with == write(true, 1));  // deterministic
  for (const std::vector<uint8_t>* file : {&with, &without, &old}) {
    auto r = Reader::OpenBuffer(file->data(), file->size());
    REQUIRE(r.ok());
    int planes = 0;
    for (const ChunkInfo& ci : r->column(0).chunks) {
      for (const SegmentInfo* seg : {&ci.partition_table, &ci.parameters, &ci.bounds}) {
        CHECK(seg->compression != Compression::kZstdFieldPlanes);
        CHECK(seg->compression != Compression::kZstdFieldBytes);
      }
      planes += ci.payload.compression == Compression::kZstdFieldPlanes ||
                ci.payload.compression == Compression::kZstdFieldBytes;
    }
    // spec §4.4: FIELD_PLANES is set exactly when a segment uses the form;
    // format 1.0 files and the option's off switch never do.
    CHECK(((r->info().required_features & kRequiredFieldPlanes) != 0) == (planes > 0));
    if (file == &with) {
      CHECK(planes == 4);
    } else {
      CHECK(planes == 0);
    }
    std::vector<int32_t> out(walk.size());
    REQUIRE(r->ReadRows(0, 0, walk.size(), out.data(), out.size() * 4).ok());
    CHECK(out == walk);
    CHECK(r->Validate(ValidationLevel::kDeep).ok());
    int32_t one = 0;
    REQUIRE(r->ReadRows(0, 123457, 123458, &one, 4).ok());
    CHECK(one == walk[123457]);
  }
  // The plain archive profile of format 1.1 stays readable by the 1.0 rules:
  // no FIELD_PLANES bit.
  auto r = Reader::OpenBuffer(old.data(), old.size());
  REQUIRE(r.ok());
  CHECK((r->info().required_features & ~kRequiredZstdSegments) == 0);
}

TEST_CASE("field bytes: the archive profile keeps recurring sequences of deltas whole") {
  // Ids that come in recurring sequences (as the node refs of ways that share
  // nodes): runs of 64 to 255 deltas of up to 20 bits taken from one random
  // sequence of 512, between random jumps. zstd matches a recurring sequence of whole fields in the
  // field-byte form (spec §9.3) at once; in the planes it must match it once
  // per plane, so the writer keeps the field bytes for every chunk.
  std::mt19937_64 rng(11);
  std::vector<uint64_t> pattern(512);
  for (uint64_t& d : pattern) d = rng() % (1u << 20);
  std::vector<uint64_t> ids;
  uint64_t x = 1000000;
  while (ids.size() < 200000) {
    x += rng() % 1000;
    const size_t from = rng() % 256, len = 64 + rng() % 192;
    for (size_t i = from; i < from + len && i < pattern.size(); ++i) {
      x += pattern[i];
      ids.push_back(x);
    }
  }
  ids.resize(200000);  // four whole chunks
  auto write = [&](bool large_partitions) {
    WriteOptions o;
    o.chunk_rows = 50000;
    o.profile = Profile::kArchive;
    o.zstd_level = 9;
    o.archive_large_partitions = large_partitions;
    auto w = Writer::CreateInMemory({ColumnSpec{"ids", PhysicalType::kUInt64, {}}}, o);
    REQUIRE(w.ok());
    REQUIRE(w->AppendTyped<uint64_t>(0, ids.data(), ids.size()).ok());
    REQUIRE(w->Close().ok());
    return w->TakeBuffer();
  };
  const std::vector<uint8_t> file = write(true);
  auto r = Reader::OpenBuffer(file.data(), file.size());
  REQUIRE(r.ok());
  CHECK((r->info().required_features & kRequiredFieldPlanes) != 0);
  for (int k = 0; k < 4; ++k) {
    CHECK(r->column(0).chunks[k].payload.compression == Compression::kZstdFieldBytes);
    // The whole-delta candidate: DELTA partitions without exceptions, whose
    // recurring runs of deltas zstd matches whole.
    auto parts = r->Partitions(0, k);
    REQUIRE(parts.ok());
    for (const PartitionInfo& p : *parts) {
      CHECK(p.model == ModelType::kDelta);
      CHECK((p.params[1] & 0xFFFFFFFFu) == 0);  // spec §8.9 Num_Exceptions
    }
  }
  // Without the second pass (WriteOptions::archive_large_partitions) there
  // is no whole-delta candidate, and the file is larger.
  const std::vector<uint8_t> one_pass = write(false);
  MESSAGE("whole deltas as field bytes: " << file.size() << " bytes; one pass: "
                                          << one_pass.size() << " bytes");
  CHECK(file.size() < one_pass.size());
  std::vector<uint64_t> out(ids.size());
  REQUIRE(r->ReadRows(0, 0, ids.size(), out.data(), out.size() * 8).ok());
  CHECK(out == ids);
  CHECK(r->Validate(ValidationLevel::kDeep).ok());
  uint64_t one = 0;
  REQUIRE(r->ReadRows(0, 77777, 77778, &one, 8).ok());
  CHECK(one == ids[77777]);
}
