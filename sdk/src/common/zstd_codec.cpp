#include "common/zstd_codec.hpp"

#include <zstd.h>

#include <memory>
#include <string>

namespace l3::internal {
namespace {

struct CCtxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxFree {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

Status ZstdError(const char* what, size_t code) {
  return Status(StatusCode::kCorruptPayload,
                std::string(what) + ": " + ZSTD_getErrorName(code));
}

}  // namespace

int ZstdMinLevel() { return ZSTD_minCLevel(); }
int ZstdMaxLevel() { return ZSTD_maxCLevel(); }

Result<std::vector<uint8_t>> ZstdCompress(const uint8_t* data, size_t size, int level) {
  std::unique_ptr<ZSTD_CCtx, CCtxFree> cctx(ZSTD_createCCtx());
  if (!cctx) return Status(StatusCode::kOutOfMemory, "ZSTD_createCCtx failed");
  // spec §9: the frame SHOULD carry its content size and a content checksum.
  // No worker threads, so the output does not depend on scheduling.
  size_t rc = ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
  if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1);
  if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
  if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_nbWorkers, 0);
  if (ZSTD_isError(rc)) {
    return Status(StatusCode::kInvalidArgument,
                  std::string("zstd parameter: ") + ZSTD_getErrorName(rc));
  }
  std::vector<uint8_t> out(ZSTD_compressBound(size));
  const size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), data, size);
  if (ZSTD_isError(n)) {
    return Status(StatusCode::kInternal, std::string("ZSTD_compress2: ") + ZSTD_getErrorName(n));
  }
  out.resize(n);
  return out;
}

Status ZstdDecompressExact(const uint8_t* stored, size_t stored_size, uint8_t* out,
                           size_t out_size) {
  // spec §9.1: the stored bytes begin with a zstd frame. A skippable frame is
  // not one, even alone (libzstd would decode it to zero bytes).
  const uint32_t magic = stored_size < 4 ? 0
                                         : static_cast<uint32_t>(stored[0]) |
                                               static_cast<uint32_t>(stored[1]) << 8 |
                                               static_cast<uint32_t>(stored[2]) << 16 |
                                               static_cast<uint32_t>(stored[3]) << 24;
  if (magic != ZSTD_MAGICNUMBER) {
    return Status(StatusCode::kCorruptPayload, "zstd segment does not start with a zstd frame");
  }
  // spec §9: exactly one frame. A frame followed by more bytes (another frame
  // or garbage) is not a valid segment.
  const size_t frame_size = ZSTD_findFrameCompressedSize(stored, stored_size);
  if (ZSTD_isError(frame_size)) return ZstdError("zstd frame", frame_size);
  if (frame_size != stored_size) {
    return Status(StatusCode::kCorruptPayload,
                  "zstd segment holds " + std::to_string(stored_size) +
                      " bytes but its frame ends after " + std::to_string(frame_size));
  }
  const unsigned long long content = ZSTD_getFrameContentSize(stored, stored_size);
  if (content == ZSTD_CONTENTSIZE_ERROR) {
    return Status(StatusCode::kCorruptPayload, "zstd frame header is invalid");
  }
  if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != out_size) {
    return Status(StatusCode::kCorruptPayload,
                  "zstd frame content size " + std::to_string(content) +
                      " != decoded_length " + std::to_string(out_size));
  }
  std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx(ZSTD_createDCtx());
  if (!dctx) return Status(StatusCode::kOutOfMemory, "ZSTD_createDCtx failed");
  // The output buffer has the exact expected size, so a frame that decodes to
  // more bytes fails with dstSize_tooSmall instead of growing anything.
  const size_t n = ZSTD_decompressDCtx(dctx.get(), out, out_size, stored, stored_size);
  if (ZSTD_isError(n)) return ZstdError("zstd decompression", n);
  if (n != out_size) {
    return Status(StatusCode::kCorruptPayload, "zstd frame decoded to " + std::to_string(n) +
                                                   " bytes, decoded_length is " +
                                                   std::to_string(out_size));
  }
  return Status::OK();
}

}  // namespace l3::internal
