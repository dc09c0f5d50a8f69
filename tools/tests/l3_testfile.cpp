// l3_testfile: rewrites the version and feature fields of an .l3 file's
// File_Header and Postscript (spec §4.1, §4.2) and recomputes the
// Postscript_Checksum, to make "future" files for the CLI tests. It works
// from the spec alone (fixed offsets, CRC32C), not from SDK internals.
//
//   l3_testfile IN OUT [--major M] [--minor M] [--required-bit N]... [--optional-bit N]...
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// spec §5: CRC-32C, reflected polynomial 0x82F63B78.
uint32_t Crc32c(const uint8_t* data, size_t size) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return crc ^ 0xFFFFFFFFu;
}

void Put(std::vector<uint8_t>& b, size_t offset, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) b[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

uint64_t Get(const std::vector<uint8_t>& b, size_t offset, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(b[offset + i]) << (8 * i);
  return v;
}

int Fail(const char* message) {
  std::fprintf(stderr, "l3_testfile: %s\n", message);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Fail("usage: l3_testfile IN OUT [--major M] [--minor M] [--required-bit N] [--optional-bit N]");
  std::FILE* in = std::fopen(argv[1], "rb");
  if (in == nullptr) return Fail("cannot open input");
  std::vector<uint8_t> bytes;
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), in)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  std::fclose(in);
  if (bytes.size() < 128) return Fail("input is not an .l3 file");
  const size_t ps = bytes.size() - 64;  // spec §4.2: the last 64 bytes

  for (int i = 3; i + 1 < argc; i += 2) {
    std::string opt = argv[i];
    uint64_t value = std::strtoull(argv[i + 1], nullptr, 10);
    if (opt == "--major") {
      Put(bytes, 8, value, 2);        // File_Header.Format_Major
      Put(bytes, ps + 32, value, 2);  // Postscript.Format_Major
    } else if (opt == "--minor") {
      Put(bytes, 10, value, 2);
      Put(bytes, ps + 34, value, 2);
    } else if (opt == "--required-bit") {
      Put(bytes, ps + 16, Get(bytes, ps + 16, 8) | (uint64_t{1} << value), 8);
    } else if (opt == "--optional-bit") {
      Put(bytes, ps + 24, Get(bytes, ps + 24, 8) | (uint64_t{1} << value), 8);
    } else {
      return Fail("unknown option");
    }
  }
  Put(bytes, ps + 52, Crc32c(bytes.data() + ps, 52), 4);  // Postscript_Checksum

  std::FILE* out = std::fopen(argv[2], "wb");
  if (out == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size() ||
      std::fclose(out) != 0) {
    return Fail("cannot write output");
  }
  return 0;
}
