#include "l3/status.hpp"

namespace l3 {

const char* StatusCodeName(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kIoError: return "IO_ERROR";
    case StatusCode::kNotL3: return "NOT_L3";
    case StatusCode::kTruncated: return "TRUNCATED";
    case StatusCode::kChecksumMismatch: return "CHECKSUM_MISMATCH";
    case StatusCode::kUnsupportedVersion: return "UNSUPPORTED_VERSION";
    case StatusCode::kUnsupportedFeature: return "UNSUPPORTED_FEATURE";
    case StatusCode::kCorruptFraming: return "CORRUPT_FRAMING";
    case StatusCode::kCorruptFooter: return "CORRUPT_FOOTER";
    case StatusCode::kCorruptMetadata: return "CORRUPT_METADATA";
    case StatusCode::kCorruptPayload: return "CORRUPT_PAYLOAD";
    case StatusCode::kResourceLimit: return "RESOURCE_LIMIT";
    case StatusCode::kOutOfRange: return "OUT_OF_RANGE";
    case StatusCode::kBufferTooSmall: return "BUFFER_TOO_SMALL";
    case StatusCode::kOutOfMemory: return "OUT_OF_MEMORY";
    case StatusCode::kBackendUnavailable: return "BACKEND_UNAVAILABLE";
    case StatusCode::kDeviceError: return "DEVICE_ERROR";
    case StatusCode::kInternal: return "INTERNAL";
  }
  return "UNKNOWN";
}

Status::Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s = StatusCodeName(code_);
  if (!message_.empty()) {
    s += ": ";
    s += message_;
  }
  return s;
}

}  // namespace l3
