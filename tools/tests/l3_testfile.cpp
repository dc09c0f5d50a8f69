// l3_testfile: makes "future" variants of an .l3 file for the CLI tests. It
// rewrites the version and feature fields of the File_Header and Postscript
// (spec §4.1, §4.2), and can change the first column's physical_type or its
// first chunk's encoding or the writer's name (spec §6.3) in the FlatBuffers
// footer (spec §6, §7.2) in place; then it recomputes the Footer_Checksum and
// Postscript_Checksum. It works from the spec and the schema alone, not from
// SDK internals.
//
//   l3_testfile IN OUT [--major M] [--minor M] [--required-bit N]...
//                      [--optional-bit N]... [--physical-type T] [--encoding E]
//                      [--writer-name BYTES]
//
// --writer-name stores any bytes (no longer than the stored name), which the
// SDK's own writer never would: the tests of hostile strings use it.
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

// FlatBuffers navigation (little-endian): a table starts with the signed
// offset back to its vtable; vtable entry i (after two u16 sizes) is the
// offset of field i within the table, 0 when the field is absent.
size_t FieldOffset(const std::vector<uint8_t>& b, size_t table, int field_id) {
  size_t vtable = table - static_cast<int32_t>(Get(b, table, 4));
  size_t vtable_bytes = Get(b, vtable, 2);
  size_t entry = 4 + 2 * static_cast<size_t>(field_id);
  if (entry + 2 > vtable_bytes) return 0;
  size_t off = Get(b, vtable + entry, 2);
  return off == 0 ? 0 : table + off;
}

/// The table that element `index` of the vector in field `field_id` points to.
size_t VectorTable(const std::vector<uint8_t>& b, size_t table, int field_id, size_t index) {
  size_t field = FieldOffset(b, table, field_id);
  if (field == 0) return 0;
  size_t vec = field + Get(b, field, 4);
  if (index >= Get(b, vec, 4)) return 0;
  size_t elem = vec + 4 + 4 * index;
  return elem + Get(b, elem, 4);
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
  const size_t footer = Get(bytes, ps, 8);
  const size_t footer_bytes = Get(bytes, ps + 8, 8);
  if (footer + footer_bytes + 64 != bytes.size()) return Fail("bad Footer_Offset");
  const size_t root = footer + Get(bytes, footer, 4);
  const size_t column0 = VectorTable(bytes, root, 1, 0);      // Footer.columns[0]
  const size_t chunk0 = column0 == 0 ? 0 : VectorTable(bytes, column0, 4, 0);  // .chunks[0]

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
    } else if (opt == "--physical-type") {
      size_t field = column0 == 0 ? 0 : FieldOffset(bytes, column0, 1);  // Column.physical_type
      if (field == 0) return Fail("column 0 stores no physical_type");
      Put(bytes, field, value, 1);
    } else if (opt == "--encoding") {
      size_t field = chunk0 == 0 ? 0 : FieldOffset(bytes, chunk0, 1);  // ColumnChunk.encoding
      if (field == 0) return Fail("chunk 0 of column 0 stores no encoding");
      Put(bytes, field, value, 2);
    } else if (opt == "--writer-name") {
      const std::string text = argv[i + 1];
      const size_t writer = FieldOffset(bytes, root, 2);  // Footer.writer
      const size_t info = writer == 0 ? 0 : writer + Get(bytes, writer, 4);
      const size_t name = info == 0 ? 0 : FieldOffset(bytes, info, 0);  // WriterInfo.name
      if (name == 0) return Fail("the footer stores no writer name");
      const size_t str = name + Get(bytes, name, 4);
      const size_t stored = Get(bytes, str, 4);
      if (text.size() > stored) return Fail("--writer-name is longer than the stored name");
      Put(bytes, str, text.size(), 4);
      for (size_t k = 0; k <= stored; ++k) {
        bytes[str + 4 + k] = k < text.size() ? static_cast<uint8_t>(text[k]) : 0;
      }
    } else {
      return Fail("unknown option");
    }
  }
  Put(bytes, ps + 40, Crc32c(bytes.data() + footer, footer_bytes), 4);  // Footer_Checksum
  Put(bytes, ps + 52, Crc32c(bytes.data() + ps, 52), 4);                // Postscript_Checksum

  std::FILE* out = std::fopen(argv[2], "wb");
  if (out == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size() ||
      std::fclose(out) != 0) {
    return Fail("cannot write output");
  }
  return 0;
}
