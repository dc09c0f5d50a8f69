#include "case_util.hpp"

#include <algorithm>

#include <cstdarg>
#include <cstdio>

namespace l3::conformance {

std::vector<uint64_t> ForValues(Ty t, uint64_t base, uint32_t w, uint32_t n, Rng& rng) {
  const uint64_t span_mask = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  std::vector<uint64_t> v(n);
  for (uint32_t x = 0; x < n; ++x) v[x] = Canon(t, base + (rng.Next() & span_mask));
  if (w > 0) {
    v[0] = Canon(t, base);
    v[n - 1] = Canon(t, base + span_mask);
  } else {
    for (auto& x : v) x = Canon(t, base);
  }
  return v;
}

std::vector<uint64_t> PredictedValues(Ty t, Model m, uint32_t V, uint32_t n, uint32_t w, Rng& rng,
                                      std::array<double, 4>* theta) {
  const int bits = TypeBits(t);
  if (bits == 64 && w > 50) {
    // Small values, a prediction near -1.5 * 2^(w-2): residuals lie in
    // (2^(w-2), 2^(w-1)), which needs exactly w bits.
    *theta = {-1.5 * std::ldexp(1.0, static_cast<int>(w) - 2), 0, 0, 0};
    if (m >= kLinear) (*theta)[1] = 3.5;
    if (m >= kPoly2) (*theta)[2] = 0.125;
    if (m >= kPoly3) (*theta)[3] = -0.0009765625;
    std::vector<uint64_t> v(n);
    for (uint32_t x = 0; x < n; ++x) {
      v[x] = TypeSigned(t) ? Canon(t, static_cast<uint64_t>(rng.Between(-(1 << 20), 1 << 20)))
                           : rng.Below(uint64_t{1} << 20);
    }
    return v;
  }
  switch (m) {
    case kLinear: *theta = {1000.25, 3.5, 0, 0}; break;
    case kPoly2: *theta = {100.5, -2.25, 0.125, 0}; break;
    case kPoly3: *theta = {-50.0, 1.5, -0.03125, 0.0009765625}; break;
    default: Fail("PredictedValues: not a predicted model");
  }
  // u64: keep pred + r positive and below 2^53 (spec §8.8 rule 3).
  if (bits == 64 && !TypeSigned(t)) (*theta)[0] += 2251799813685248.0;
  std::vector<int64_t> r(n, 0);
  if (w > 0) {
    const int64_t lo = w >= 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
    const int64_t hi = w >= 64 ? INT64_MAX : (int64_t{1} << (w - 1)) - 1;
    for (auto& x : r) x = rng.Between(lo, hi);
    r[0] = lo;
    r[n - 1] = hi;
  }
  return FromResiduals(t, m, *theta, V, r);
}

ColumnSpec RunsEfColumn() {
  std::vector<uint64_t> v;
  for (uint32_t r = 0; v.size() < 200; ++r) {
    const uint32_t length = r == 0 ? 2 : r == 1 ? 1 : 1 + r % 5;
    for (uint32_t i = 0; i < length && v.size() < 200; ++i) v.push_back(10 + (7 * r) % 50);
  }
  return Column("v", Ty::kU16, v, {Part(200, kRunsEf)}, 8);
}

ColumnSpec ForLinearRunsColumn(uint32_t rows_per_partition, uint64_t seed) {
  const uint32_t n = rows_per_partition;
  Rng rng(seed);
  std::vector<uint64_t> v = ForValues(Ty::kI32, Canon(Ty::kI32, static_cast<uint64_t>(-10)), 5, n, rng);
  PartSpec lin;
  std::vector<uint64_t> l = PredictedValues(Ty::kI32, kLinear, 64, n, 4, rng, &lin.theta);
  lin.n = n;
  lin.model = kLinear;
  v.insert(v.end(), l.begin(), l.end());
  std::vector<uint64_t> r = RunValues(Ty::kI32, 100, 3, n, 5, rng);
  v.insert(v.end(), r.begin(), r.end());
  ColumnSpec col = Column("v", Ty::kI32, v, {Part(n, kFor), lin, Part(n, kConstant)});
  ExpectWidths(col, {5, 4, 3});
  return col;
}

std::vector<uint64_t> RunValues(Ty t, uint64_t base, uint32_t w, uint32_t n, uint32_t runs, Rng& rng) {
  if (w == 0 || runs < 2 || runs > n) Fail("RunValues: need w > 0 and 2 <= runs <= n");
  const uint64_t mask = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  // Run values: u[0] = 0, u[runs - 1] = 2^w - 1, adjacent ones different.
  std::vector<uint64_t> u(runs);
  u[0] = 0;
  u[runs - 1] = mask;
  for (uint32_t i = 1; i + 1 < runs; ++i) {
    for (int tries = 0;; ++tries) {
      u[i] = w == 1 ? (u[i - 1] ^ 1) : (rng.Next() & mask);
      if (u[i] != u[i - 1] && (i + 2 < runs || u[i] != mask)) break;
      if (tries > 1000 || w == 1) Fail("RunValues: cannot alternate these runs");
    }
  }
  // Run starts: runs - 1 distinct cut points in [1, n - 1].
  std::vector<bool> cut(n, false);
  uint32_t placed = 0;
  if (runs == n) {
    for (uint32_t x = 1; x < n; ++x) cut[x] = true;
    placed = runs - 1;
  }
  while (placed < runs - 1) {
    const uint32_t s = 1 + static_cast<uint32_t>(rng.Below(n - 1));
    if (!cut[s]) {
      cut[s] = true;
      ++placed;
    }
  }
  std::vector<uint64_t> v(n);
  uint32_t run = 0;
  for (uint32_t x = 0; x < n; ++x) {
    if (x > 0 && cut[x]) ++run;
    v[x] = Canon(t, base + u[run]);
  }
  return v;
}

void ExpectWidths(const ColumnSpec& column, const std::vector<uint32_t>& widths) {
  size_t i = 0;
  for (const ChunkSpec& k : column.chunks) {
    const EncodedChunk e = EncodeChunk(column.type, k.V, k.values, k.parts);
    for (uint32_t p = 0; p < e.num_partitions; ++p, ++i) {
      if (i >= widths.size() || WidthOf(e, p) != widths[i]) {
        Fail("column " + column.name + ": partition " + std::to_string(i) + " has width " +
             std::to_string(WidthOf(e, p)) + ", expected " +
             (i < widths.size() ? std::to_string(widths[i]) : std::string("none")));
      }
    }
  }
  if (i != widths.size()) Fail("column " + column.name + ": fewer partitions than widths");
}

std::string Str(uint64_t v) { return std::to_string(v); }

std::string Fmt(const char* format, ...) {
  char buf[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  return buf;
}

ColumnSpec DictionaryColumn(std::string name, Ty t, const std::vector<uint64_t>& rows,
                            std::vector<PartSpec> parts, uint32_t V, uint64_t* entries) {
  std::vector<uint64_t> dict = rows;
  std::sort(dict.begin(), dict.end(), [t](uint64_t a, uint64_t b) { return Less(t, a, b); });
  dict.erase(std::unique(dict.begin(), dict.end()), dict.end());
  std::vector<uint64_t> elements = dict;
  for (uint64_t v : rows) {
    const auto it = std::lower_bound(dict.begin(), dict.end(), v,
                                     [t](uint64_t a, uint64_t b) { return Less(t, a, b); });
    elements.push_back(static_cast<uint64_t>(it - dict.begin()));  // the code, canonical
  }
  ColumnSpec c = Column(std::move(name), t, std::move(elements), std::move(parts), V);
  c.chunks[0].dictionary_entries = dict.size();
  if (entries != nullptr) *entries = dict.size();
  return c;
}

}  // namespace l3::conformance
