// fuzz_zstd.cpp: fuzz target 2, the zstd segment cascade (spec §9).
//
// Input: a 4-byte little-endian decoded_length L, then the stored bytes of a
// segment. The target calls ZstdDecompressExact, the function the Reader
// uses for every Zstd, ZstdFieldPlanes and ZstdFieldBytes segment once L has
// passed the length and limit checks (reader.cpp, Materialize*), with an output buffer
// of exactly L bytes (L is reduced modulo kMaxDecoded + 1, as a reader's
// limits would bound it).
//
// Properties:
// - a failure is CORRUPT_PAYLOAD, never anything else;
// - an accepted segment is what spec §9.1 calls exactly one zstd frame: it
//   starts with the zstd magic (not a skippable frame), its frame header has
//   the reserved bit clear and, when it has a Window_Descriptor, a window
//   exponent of at most 21, its Frame_Content_Size is absent or L, and the
//   frame ends where the stored bytes end;
// - the writer's ZstdCompress of the stored bytes (as content) is accepted
//   by ZstdDecompressExact and gives those bytes back.
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/zstd_codec.hpp"
#include "fuzz_check.hpp"

namespace {

constexpr uint32_t kMaxDecoded = uint32_t{1} << 20;
constexpr size_t kMaxRoundTrip = size_t{1} << 16;

uint32_t LoadU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

/// Checks an accepted segment against RFC 8878 §3.1.1 as spec §9.1 restricts it.
void CheckAcceptedFrame(const uint8_t* stored, size_t size, uint32_t decoded_length) {
  L3_FUZZ_CHECK(size >= 5 && LoadU32(stored) == 0xFD2FB528u,
                "accepted a segment that does not start with a zstd frame");
  const uint8_t descriptor = stored[4];
  L3_FUZZ_CHECK((descriptor & 0x08) == 0, "accepted a frame whose header sets the reserved bit");
  const bool single_segment = (descriptor & 0x20) != 0;
  if (!single_segment) {
    L3_FUZZ_CHECK(size >= 6, "accepted a frame without its Window_Descriptor");
    L3_FUZZ_CHECK((stored[5] >> 3) <= 21, "accepted a window exponent above 21");
  }
  const unsigned long long content = ZSTD_getFrameContentSize(stored, size);
  L3_FUZZ_CHECK(content == ZSTD_CONTENTSIZE_UNKNOWN || content == decoded_length,
                "accepted a Frame_Content_Size other than decoded_length");
  L3_FUZZ_CHECK(ZSTD_findFrameCompressedSize(stored, size) == size,
                "accepted bytes after the frame");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace l3;
  if (size < 4) return 0;
  const uint32_t decoded_length = LoadU32(data) % (kMaxDecoded + 1);
  const uint8_t* stored = data + 4;
  const size_t stored_size = size - 4;

  // Exactly decoded_length bytes, so that ASan sees any write past them.
  std::vector<uint8_t> out(decoded_length);
  const Status st =
      internal::ZstdDecompressExact(stored, stored_size, out.data(), out.size());
  L3_FUZZ_CHECK(st.ok() || st.code() == StatusCode::kCorruptPayload,
                "ZstdDecompressExact: " + st.ToString());
  if (st.ok()) CheckAcceptedFrame(stored, stored_size, decoded_length);

  if (stored_size <= kMaxRoundTrip) {
    const int level = 1 + static_cast<int>(decoded_length % 5);
    Result<std::vector<uint8_t>> frame = internal::ZstdCompress(stored, stored_size, level);
    L3_FUZZ_CHECK(frame.ok(), "ZstdCompress: " + frame.status().ToString());
    std::vector<uint8_t> back(stored_size);
    const Status rt =
        internal::ZstdDecompressExact(frame->data(), frame->size(), back.data(), back.size());
    L3_FUZZ_CHECK(rt.ok(), "a frame of ZstdCompress is refused: " + rt.ToString());
    L3_FUZZ_CHECK(stored_size == 0 || std::memcmp(back.data(), stored, stored_size) == 0,
                  "ZstdCompress and ZstdDecompressExact do not round-trip");
    CheckAcceptedFrame(frame->data(), frame->size(), static_cast<uint32_t>(stored_size));
  }
  return 0;
}
