// fuzz_npy.cpp: fuzz target 3a, the .npy reader of the command-line tools
// (tools/common/npy.cpp), as `l3 compress` uses it on an input file.
//
// The input is a whole .npy file. It goes through ReadNpyHeader on a stream
// (what `l3 compress` calls) and through ParseNpyHeader on the bytes.
//
// Properties:
// - the only exception is CliError with the bad-input exit code;
// - both functions accept the same files and return the same header;
// - after ReadNpyHeader the stream is positioned at data_offset, where
//   `l3 compress` starts reading values;
// - an accepted header is one of the eight integer dtypes, and the header
//   MakeNpyHeader writes for its type and length parses back to them.
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/errors.hpp"
#include "common/npy.hpp"
#include "fuzz_check.hpp"

namespace {

struct Outcome {
  bool ok = false;
  l3::cli::NpyHeader header;
  long position = -1;
};

Outcome FromStream(const std::string& bytes) {
  Outcome out;
  // fmemopen refuses an empty buffer; an empty file is a tmpfile.
  std::FILE* file = bytes.empty() ? std::tmpfile()
                                  : fmemopen(const_cast<char*>(bytes.data()), bytes.size(), "rb");
  L3_FUZZ_CHECK(file != nullptr, "cannot open the input as a stream");
  try {
    out.header = l3::cli::ReadNpyHeader(file, "fuzz.npy");
    out.ok = true;
    out.position = std::ftell(file);
  } catch (const l3::cli::CliError& e) {
    L3_FUZZ_CHECK(e.exit_code() == l3::cli::kExitBadInput, e.what());
  }
  std::fclose(file);
  return out;
}

bool SameHeader(const l3::cli::NpyHeader& a, const l3::cli::NpyHeader& b) {
  return a.type == b.type && a.big_endian == b.big_endian && a.num_values == b.num_values &&
         a.data_offset == b.data_offset;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace l3::cli;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const Outcome streamed = FromStream(bytes);
  Outcome parsed;
  try {
    parsed.header = ParseNpyHeader(bytes, "fuzz.npy");
    parsed.ok = true;
  } catch (const CliError& e) {
    L3_FUZZ_CHECK(e.exit_code() == kExitBadInput, e.what());
  }
  L3_FUZZ_CHECK(streamed.ok == parsed.ok, "ReadNpyHeader and ParseNpyHeader disagree");
  if (!parsed.ok) return 0;
  const NpyHeader& h = parsed.header;
  L3_FUZZ_CHECK(SameHeader(streamed.header, h), "ReadNpyHeader and ParseNpyHeader disagree");
  L3_FUZZ_CHECK(streamed.position >= 0 && static_cast<uint64_t>(streamed.position) == h.data_offset,
                "ReadNpyHeader leaves the stream at " + std::to_string(streamed.position) +
                    ", data_offset is " + std::to_string(h.data_offset));
  L3_FUZZ_CHECK(h.data_offset <= size, "data_offset past the end of the file");
  const int width = l3::PhysicalTypeBytes(h.type);
  L3_FUZZ_CHECK(width == 1 || width == 2 || width == 4 || width == 8, "not an integer dtype");
  L3_FUZZ_CHECK(width > 1 || !h.big_endian, "a one-byte dtype needs no byte swap");

  const std::string canonical = MakeNpyHeader(h.type, h.num_values);
  const NpyHeader back = ParseNpyHeader(canonical, "canonical.npy");
  L3_FUZZ_CHECK(back.type == h.type && back.num_values == h.num_values && !back.big_endian &&
                    back.data_offset == canonical.size(),
                "MakeNpyHeader does not parse back");
  return 0;
}
