// l3/status.hpp: error values of the L3 SDK.
//
// No exception crosses the public API. Every fallible call returns a Status or
// a Result<T>. Status codes are part of the ABI: values are never renumbered,
// only appended. Messages are for humans and may change between releases.
#pragma once

#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace l3 {

/// Stable error codes. The spec's error classes (spec §10.1) map one to one
/// onto the codes between kIoError and kResourceLimit.
enum class StatusCode : int32_t {
  kOk = 0,
  kInvalidArgument = 1,     ///< the caller passed something invalid
  kIoError = 2,             ///< spec IO_ERROR
  kNotL3 = 3,               ///< spec NOT_L3
  kTruncated = 4,           ///< spec TRUNCATED
  kChecksumMismatch = 5,    ///< spec CHECKSUM_MISMATCH
  kUnsupportedVersion = 6,  ///< spec UNSUPPORTED_VERSION
  kUnsupportedFeature = 7,  ///< spec UNSUPPORTED_FEATURE
  kCorruptFraming = 8,      ///< spec CORRUPT_FRAMING
  kCorruptFooter = 9,       ///< spec CORRUPT_FOOTER
  kCorruptMetadata = 10,    ///< spec CORRUPT_METADATA
  kCorruptPayload = 11,     ///< spec CORRUPT_PAYLOAD
  kResourceLimit = 12,      ///< spec RESOURCE_LIMIT
  kOutOfRange = 13,         ///< a row, column or chunk index past the end
  kBufferTooSmall = 14,     ///< a caller buffer is smaller than required
  kOutOfMemory = 15,
  kBackendUnavailable = 16, ///< e.g. CUDA requested but no device
  kDeviceError = 17,        ///< a CUDA runtime error
  kInternal = 18,           ///< a bug in the SDK; please report it
};

/// The stable upper-case name of a code, e.g. "CORRUPT_METADATA". Never null.
const char* StatusCodeName(StatusCode code) noexcept;

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string message);

  static Status OK() noexcept { return Status(); }

  bool ok() const noexcept { return code_ == StatusCode::kOk; }
  StatusCode code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  /// "CORRUPT_METADATA: partition 3: Bit_Width 40 > 32" or "OK".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

/// A value of type T or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : status_(), has_value_(true) {  // NOLINT(google-explicit-constructor)
    new (&storage_) T(std::move(value));
  }
  Result(Status status) : status_(std::move(status)), has_value_(false) {  // NOLINT
    if (status_.ok()) status_ = Status(StatusCode::kInternal, "Result constructed from OK status");
  }
  Result(const Result& other) : status_(other.status_), has_value_(other.has_value_) {
    if (has_value_) new (&storage_) T(other.value_ref());
  }
  Result(Result&& other) noexcept(std::is_nothrow_move_constructible<T>::value)
      : status_(std::move(other.status_)), has_value_(other.has_value_) {
    if (has_value_) new (&storage_) T(std::move(other.value_ref()));
  }
  Result& operator=(Result other) {
    this->~Result();
    new (this) Result(std::move(other));
    return *this;
  }
  ~Result() {
    if (has_value_) value_ref().~T();
  }

  bool ok() const noexcept { return has_value_; }
  const Status& status() const noexcept { return status_; }

  /// Precondition: ok().
  T& value() & { return value_ref(); }
  const T& value() const& { return value_ref(); }
  T&& value() && { return std::move(value_ref()); }
  T* operator->() { return &value_ref(); }
  const T* operator->() const { return &value_ref(); }
  T& operator*() & { return value_ref(); }
  const T& operator*() const& { return value_ref(); }

 private:
  T& value_ref() { return *reinterpret_cast<T*>(&storage_); }
  const T& value_ref() const { return *reinterpret_cast<const T*>(&storage_); }

  Status status_;
  bool has_value_;
  typename std::aligned_storage<sizeof(T), alignof(T)>::type storage_;
};

}  // namespace l3
