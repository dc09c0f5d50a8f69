#include "spec_encode.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace l3::conformance {

void Fail(const std::string& message) {
  std::fprintf(stderr, "l3_conformance_gen: %s\n", message.c_str());
  std::exit(2);
}

int TypeBits(Ty t) {
  switch (t) {
    case Ty::kI8: case Ty::kU8: return 8;
    case Ty::kI16: case Ty::kU16: return 16;
    case Ty::kI32: case Ty::kU32: return 32;
    case Ty::kI64: case Ty::kU64: return 64;
    case Ty::kF32: return 32;
    case Ty::kF64: return 64;
    case Ty::kF16: case Ty::kBF16: return 16;
  }
  Fail("bad type");
}

bool TypeSigned(Ty t) { return static_cast<uint8_t>(t) <= 4; }

const char* TypeName(Ty t) {
  static const char* const kNames[] = {"",    "i8",  "i16", "i32", "i64", "u8",  "u16",
                                       "u32", "u64", "f32", "f64", "f16", "bf16"};
  return kNames[static_cast<uint8_t>(t)];
}

namespace {

uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// spec §1 bitlen.
uint32_t BitLen(uint64_t u) {
  uint32_t n = 0;
  while (u != 0) {
    ++n;
    u >>= 1;
  }
  return n;
}

// spec §8.8 rule 1: the smallest w with r in [-2^(w-1), 2^(w-1) - 1].
uint32_t SignedWidth(int64_t r) {
  if (r == 0) return 0;
  for (uint32_t w = 1; w <= 64; ++w) {
    const __int128 lo = -(static_cast<__int128>(1) << (w - 1));
    const __int128 hi = (static_cast<__int128>(1) << (w - 1)) - 1;
    if (r >= lo && r <= hi) return w;
  }
  return 64;
}

// The N-bit pattern of a canonical word, read as a signed number.
int64_t AsSigned(int bits, uint64_t u) {
  u &= Mask(bits);
  if (bits < 64 && (u >> (bits - 1)) != 0) u |= ~Mask(bits);
  return static_cast<int64_t>(u);
}

// spec §8.5 bit order: bit i of the stream is bit (i mod 8) of byte i / 8.
void WriteBits(Bytes* buf, uint64_t bit, uint32_t w, uint64_t v) {
  for (uint32_t j = 0; j < w; ++j) {
    if ((v >> j) & 1) (*buf)[(bit + j) / 8] |= static_cast<uint8_t>(1u << ((bit + j) % 8));
  }
}

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// spec §8.7, §8.11: the first row of every run (row 0, each row that
// differs from the one before it, and the partition's extra starts), in
// increasing order.
std::vector<uint64_t> RunStarts(const uint64_t* v, uint64_t n, const PartSpec& ps) {
  std::set<uint64_t> starts = {0};
  for (uint64_t x = 1; x < n; ++x) {
    if (v[x] != v[x - 1]) starts.insert(x);
  }
  for (uint32_t s : ps.extra_run_starts) {
    if (s == 0 || s >= n) Fail("EncodeChunk: extra run start outside [1, n - 1]");
    starts.insert(s);
  }
  return std::vector<uint64_t>(starts.begin(), starts.end());
}

// spec §8.7, §8.11 (§8.8 rule 2): "Base" is the smallest run value unless
// the partition overrides it, and the run values need `width` bits over it.
struct RunFrame {
  uint64_t base;
  uint32_t width;
};
RunFrame RunValueFrame(Ty type, const uint64_t* v, const std::vector<uint64_t>& starts,
                       const PartSpec& ps) {
  uint64_t run_lo = v[0];
  for (uint64_t s : starts) {
    if (Less(type, v[s], run_lo)) run_lo = v[s];
  }
  const uint64_t base = ps.base.value_or(run_lo);
  uint64_t widest = 0;
  for (uint64_t s : starts) widest = std::max(widest, (v[s] - base) & Mask(TypeBits(type)));
  return RunFrame{base, BitLen(widest)};
}

}  // namespace

uint64_t Canon(Ty t, uint64_t u) {
  const int bits = TypeBits(t);
  return TypeSigned(t) ? static_cast<uint64_t>(AsSigned(bits, u)) : (u & Mask(bits));
}

bool Less(Ty t, uint64_t a, uint64_t b) {
  return TypeSigned(t) ? static_cast<int64_t>(a) < static_cast<int64_t>(b) : a < b;
}

void SetLE(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint64_t GetLE(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

void PutLE(Bytes* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}

Bytes RawValues(Ty t, const std::vector<uint64_t>& values) {
  Bytes out;
  out.reserve(values.size() * TypeBits(t) / 8);
  for (uint64_t v : values) PutLE(&out, v, TypeBits(t) / 8);
  return out;
}

int64_t ToInt(double y) {
  if (std::isnan(y)) return 0;
  if (y >= 9223372036854775808.0) return INT64_MAX;
  if (y < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(std::nearbyint(y));  // default mode: ties to even
}

double PredictY(Model model, const std::array<double, 4>& theta, uint64_t x, uint32_t V) {
  // spec §8.4 Position.
  const uint64_t S = 32 * uint64_t{V};
  const uint64_t t = x / S;
  const uint64_t L = x % 32;
  const uint64_t k = (x % S) / 32;
  const double X0 = static_cast<double>(t * S + L);
  const double a = theta[0], b = theta[1], c = theta[2], d = theta[3];
  if (model == kLinear) {
    double y = a + (b * X0);
    const double step = b * 32.0;
    for (uint64_t j = 0; j < k; ++j) y = y + step;
    return y;
  }
  if (model == kPoly2) {
    double y = (a + (b * X0)) + (c * (X0 * X0));
    double d1 = (b * 32.0) + ((c * 32.0) * ((2.0 * X0) + 32.0));
    const double d2 = 2.0 * (c * 1024.0);
    for (uint64_t j = 0; j < k; ++j) {
      y = y + d1;   // uses d1_j
      d1 = d1 + d2;
    }
    return y;
  }
  if (model == kPoly3) {
    auto E = [&](double z) { return ((a + (b * z)) + (c * (z * z))) + (d * ((z * z) * z)); };
    const double e0 = E(X0), e1 = E(X0 + 32.0), e2 = E(X0 + 64.0);
    double y = e0;
    double d1 = e1 - e0;
    double d2 = (e2 - e1) - d1;
    const double d3 = 6.0 * (d * 32768.0);
    for (uint64_t j = 0; j < k; ++j) {
      y = y + d1;   // uses d1_j
      d1 = d1 + d2; // uses d2_j
      d2 = d2 + d3;
    }
    return y;
  }
  Fail("PredictY: not a predicted model");
}

uint64_t Predict(Ty t, Model model, const std::array<double, 4>& theta, uint64_t x, uint32_t V) {
  return Canon(t, static_cast<uint64_t>(ToInt(PredictY(model, theta, x, V))));
}

uint64_t SlapBit(uint64_t n, uint32_t w, uint32_t V, uint64_t x) {
  const uint64_t S = 32 * uint64_t{V};
  const uint64_t T = n / S;
  const uint64_t t = x / S;
  const uint64_t L = x % 32;
  const uint64_t k = (x % S) / 32;
  if (t < T) return t * S * w + L * V * w + k * w;  // full tile
  const uint64_t m = n - T * S;
  const uint64_t q = m / 32, r = m % 32;
  return T * S * w + w * (L * q + std::min(L, r)) + k * w;  // partial tile
}

PartSpec Part(uint32_t n, Model model, std::array<double, 4> theta) {
  PartSpec p;
  p.n = n;
  p.model = model;
  p.theta = theta;
  return p;
}

std::vector<uint64_t> FromResiduals(Ty t, Model model, const std::array<double, 4>& theta,
                                    uint32_t V, const std::vector<int64_t>& residuals) {
  std::vector<uint64_t> out(residuals.size());
  for (size_t x = 0; x < residuals.size(); ++x) {
    if (SignedWidth(residuals[x]) > static_cast<uint32_t>(TypeBits(t))) {
      Fail("FromResiduals: residual does not fit the type");
    }
    out[x] = Canon(t, Predict(t, model, theta, x, V) + static_cast<uint64_t>(residuals[x]));
  }
  return out;
}

namespace {

// spec §8.9 and §8.12: the n offsets' low w bits at their SLAP positions,
// then the rows whose offset needs more than w bits (bitlen(n - 1) bits
// each, or with Rows_EF, PATCHED_FOR only, their Elias-Fano code: E low
// parts of l bits, then H) and their high parts (hw bits each); appends the
// Exceptions word (E, hw, Signed_Highs, Rows_EF) to *params.
Bytes FieldsWithExceptions(const std::vector<uint64_t>& u, uint32_t w, uint32_t V, int N,
                           bool signed_highs, bool rows_ef, std::vector<uint64_t>* params) {
  const uint64_t n = u.size();
  std::vector<uint64_t> exc_rows, exc_highs;
  uint64_t widest_high = 0;
  for (uint64_t x = 0; x < n; ++x) {
    if (w >= 64 || (u[x] >> w) == 0) continue;
    // spec §8.9: the stored high part is u >> w, or with Signed_Highs the
    // zigzag code of h = floor(r / 2^w), r = u as an N-bit signed number.
    uint64_t high = u[x] >> w;
    if (signed_highs) {
      const int64_t r = AsSigned(N, u[x]);
      const int64_t h = r >= 0 ? r / (int64_t{1} << w) : -((-(r + 1)) / (int64_t{1} << w)) - 1;
      high = h >= 0 ? 2 * static_cast<uint64_t>(h) : 2 * static_cast<uint64_t>(-(h + 1)) + 1;
    }
    exc_rows.push_back(x);
    exc_highs.push_back(high);
    widest_high = std::max(widest_high, high);
  }
  const uint64_t E = exc_rows.size();
  const uint32_t hw = BitLen(widest_high);
  const uint32_t pb = n <= 1 ? 0 : BitLen(n - 1);
  if (signed_highs && E == 0) Fail("EncodeChunk: Signed_Highs needs exceptions");
  if (rows_ef && (E == 0 || n > 65536)) Fail("EncodeChunk: Rows_EF needs 1 <= E, n <= 65536");
  // spec §8.9 Exceptions: Num_Exceptions, Exception_Width, Signed_Highs;
  // §8.12: Rows_EF.
  params->push_back(E | (uint64_t{hw} << 32) | (uint64_t{signed_highs ? 1u : 0u} << 40) |
                    (uint64_t{rows_ef ? 1u : 0u} << 41));
  // spec §8.12 Rows_EF: l = bitlen(floor(n / E)) - 1, H_n = E + floor((n - 1)
  // / 2^l), RB = E * l + H_n; else RB = E * pb.
  const uint32_t l = rows_ef ? BitLen(n / E) - 1 : 0;
  const uint64_t h_n = rows_ef ? E + ((n - 1) >> l) : 0;
  const uint64_t rb = rows_ef ? E * l + h_n : E * pb;
  Bytes bits(8 * CeilDiv(n * w + rb + E * hw, 64), 0);
  for (uint64_t x = 0; x < n; ++x) WriteBits(&bits, SlapBit(n, w, V, x), w, u[x] & Mask(w));
  for (uint64_t i = 0; i < E; ++i) {
    if (rows_ef) {
      // low_i at n w + i l; bit (r_i >> l) + i of H, which starts at n w + E l.
      WriteBits(&bits, n * w + i * l, l, exc_rows[i] & Mask(l));
      WriteBits(&bits, n * w + E * l + (exc_rows[i] >> l) + i, 1, 1);
    } else {
      WriteBits(&bits, n * w + i * pb, pb, exc_rows[i]);
    }
  }
  for (uint64_t i = 0; i < E; ++i) WriteBits(&bits, n * w + rb + i * hw, hw, exc_highs[i]);
  return bits;
}

}  // namespace

EncodedChunk EncodeChunk(Ty type, uint32_t V, const std::vector<uint64_t>& values,
                         const std::vector<PartSpec>& parts) {
  const int N = TypeBits(type);
  const int value_bytes = N / 8;
  EncodedChunk chunk;
  chunk.type = type;
  chunk.num_rows = values.size();
  chunk.values_per_lane = V;
  chunk.num_partitions = static_cast<uint32_t>(parts.size());
  for (uint64_t v : values) {
    if (Canon(type, v) != v) Fail("EncodeChunk: value is not a canonical word of the type");
  }
  std::vector<uint64_t> params;
  Bytes payload;
  Bytes mins, maxs;
  uint64_t row = 0;
  auto record = [&](uint64_t first_row, uint64_t payload_words, uint64_t param_words, uint8_t model,
                    uint8_t width) {
    PutLE(&chunk.partition_table, first_row, 4);
    PutLE(&chunk.partition_table, payload_words, 4);
    PutLE(&chunk.partition_table, param_words, 4);
    chunk.partition_table.push_back(model);
    chunk.partition_table.push_back(width);
    PutLE(&chunk.partition_table, 0, 2);
  };
  for (const PartSpec& ps : parts) {
    const uint64_t n = ps.n;
    if (n == 0 || row + n > values.size()) Fail("EncodeChunk: partitions do not fit the values");
    const uint64_t* v = values.data() + row;
    uint64_t lo = v[0], hi = v[0];
    for (uint64_t x = 1; x < n; ++x) {
      if (Less(type, v[x], lo)) lo = v[x];
      if (Less(type, hi, v[x])) hi = v[x];
    }
    PutLE(&mins, lo, value_bytes);
    PutLE(&maxs, hi, value_bytes);
    const uint64_t payload_offset = payload.size() / 8;
    const uint64_t param_offset = params.size();
    uint32_t w = 0;
    Bytes stream;
    if (ps.model == kConstant) {
      const std::vector<uint64_t> start_list = RunStarts(v, n, ps);
      const bool runs = start_list.size() > 1 || ps.force_runs;
      if (!runs) {
        if (ps.width || ps.base) Fail("EncodeChunk: single-value CONSTANT takes no overrides");
        params.push_back(v[0]);  // spec §8.2: Base
      } else {
        const uint64_t R = start_list.size();
        const RunFrame frame = RunValueFrame(type, v, start_list, ps);
        const uint64_t base = frame.base;
        w = frame.width;
        if (ps.width) {
          if (*ps.width < w) Fail("EncodeChunk: run width override too small");
          w = *ps.width;
        }
        if (w == 0) Fail("EncodeChunk: runs need Bit_Width > 0 (use a width override)");
        params.push_back(base);
        params.push_back(R);  // spec §8.2 Num_Runs
        const uint32_t pb = n <= 1 ? 0 : BitLen(n - 1);
        const uint64_t words = CeilDiv(R * w + (R - 1) * pb, 64);
        stream.assign(8 * words, 0);
        for (uint64_t i = 0; i < R; ++i) WriteBits(&stream, i * w, w, v[start_list[i]] - base);
        for (uint64_t i = 1; i < R; ++i) WriteBits(&stream, R * w + (i - 1) * pb, pb, start_list[i]);
      }
    } else if (ps.model == kRunsEf) {
      // spec §8.11, read literally: the run values as in §8.7, then for each
      // start s_i (i = 1 .. m) its low l bits, then H with bit
      // (s_i >> l) + (i - 1) set, where l = bitlen(floor((n - 1) / m)) - 1
      // and H_n = m + floor((n - 1) / 2^l).
      const std::vector<uint64_t> start_list = RunStarts(v, n, ps);
      const uint64_t R = start_list.size();
      if (R < 2) Fail("EncodeChunk: RUNS_EF needs at least two runs");
      const RunFrame frame = RunValueFrame(type, v, start_list, ps);
      const uint64_t base = frame.base;
      w = ps.width.value_or(frame.width);
      if (w < frame.width || w == 0) Fail("EncodeChunk: RUNS_EF width too small or 0");
      params.push_back(base);
      params.push_back(R);  // spec §8.2 Num_Runs
      const uint64_t m = R - 1;
      const uint32_t l = BitLen((n - 1) / m) - 1;
      const uint64_t high_bits = m + ((n - 1) >> l);
      const uint64_t h0 = R * w + m * l;
      stream.assign(8 * CeilDiv(h0 + high_bits, 64), 0);
      for (uint64_t i = 0; i < R; ++i) WriteBits(&stream, i * w, w, v[start_list[i]] - base);
      for (uint64_t i = 1; i < R; ++i) {
        WriteBits(&stream, R * w + (i - 1) * l, l, start_list[i] & Mask(l));
        WriteBits(&stream, h0 + (start_list[i] >> l) + (i - 1), 1, 1);
      }
    } else if (ps.model == kDelta) {
      // spec §8.9, read literally: Delta_Base, u(x) = (v(x) - v(x-1) -
      // Delta_Base) mod 2^N with u(0) = 0, the low w bits in the SLAP
      // positions, and every row whose u needs more than w bits as an
      // exception (row, high part). Default w: the widest u (no exceptions).
      //
      // Order K > 1: d_K(x), the K-th difference of v at x (d_0 = v, d_k(x)
      // = d_{k-1}(x) - d_{k-1}(x-1)), u(x) = (d_K(x) - Delta_Base) mod 2^N
      // for x >= K and 0 for x < K; tile t >= 1 has the K Seed words
      // d_0 .. d_{K-1} at row t*S - 1, tile 0 those that decoding rows
      // 0 .. K-1 with u = 0 maps to v(0) .. v(K-1).
      const uint32_t K = ps.delta_order;
      if (K < 1 || K > 3 || (K > 1 && n <= K)) Fail("EncodeChunk: DELTA order K is 1..3, K < n");
      const auto diff = [&](uint64_t x, uint32_t k) {  // d_k(x), x >= k
        uint64_t d[4];
        for (uint32_t j = 0; j <= k; ++j) d[j] = v[x - j];
        for (uint32_t round = 0; round < k; ++round) {
          for (uint32_t j = 0; j + round < k; ++j) d[j] = (d[j] - d[j + 1]) & Mask(N);
        }
        return d[0] & Mask(N);
      };
      uint64_t base = 0;
      if (n > K) {
        int64_t lowest = AsSigned(N, diff(K, K));
        for (uint64_t x = K + 1; x < n; ++x) lowest = std::min(lowest, AsSigned(N, diff(x, K)));
        base = static_cast<uint64_t>(lowest) & Mask(N);
      }
      base = ps.base.value_or(base) & Mask(N);
      std::vector<uint64_t> u(n, 0);
      uint64_t widest = 0;
      for (uint64_t x = K; x < n; ++x) {
        u[x] = (diff(x, K) - base) & Mask(N);
        widest = std::max(widest, u[x]);
      }
      w = ps.width.value_or(BitLen(widest));
      params.push_back(Canon(type, base));
      const uint64_t S = 32ull * V;
      const uint64_t tiles = CeilDiv(n, S);
      for (uint64_t t = 0; t < tiles; ++t) {
        uint64_t seed[3] = {};
        if (t == 0) {
          // The state at row K - 1, stepped back K rows: a_i(x - 1) =
          // a_i(x) - a_{i+1}(x), a_K(x) = Delta_Base.
          for (uint32_t k = 0; k < K; ++k) seed[k] = diff(K - 1, k);
          for (uint32_t step = 0; step < K; ++step) {
            for (uint32_t k = 0; k + 1 < K; ++k) seed[k] = (seed[k] - seed[k + 1]) & Mask(N);
            seed[K - 1] = (seed[K - 1] - base) & Mask(N);
          }
        } else {
          for (uint32_t k = 0; k < K; ++k) seed[k] = diff(t * S - 1, k);
        }
        for (uint32_t k = 0; k < K; ++k) PutLE(&stream, Canon(type, seed[k]), 8);
      }
      if (ps.rows_ef) Fail("EncodeChunk: Rows_EF is PATCHED_FOR's only (spec §8.12)");
      const Bytes bits = FieldsWithExceptions(u, w, V, N, ps.signed_highs, false, &params);
      params.back() |= uint64_t{K - 1} << 42;  // spec §8.9 Extra_Orders
      stream.insert(stream.end(), bits.begin(), bits.end());
    } else if (ps.model == kPatchedFor) {
      // spec §8.12, read literally: u(x) = (v(x) - Base) mod 2^N, the low w
      // bits in the SLAP positions, every row whose u needs more than w bits
      // an exception. Default Base: the minimum; default w: the widest u.
      const uint64_t base = ps.base.value_or(lo) & Mask(N);
      std::vector<uint64_t> u(n, 0);
      uint64_t widest = 0;
      for (uint64_t x = 0; x < n; ++x) {
        u[x] = (v[x] - base) & Mask(N);
        widest = std::max(widest, u[x]);
      }
      w = ps.width.value_or(BitLen(widest));
      params.push_back(Canon(type, base));
      stream = FieldsWithExceptions(u, w, V, N, ps.signed_highs, ps.rows_ef, &params);
    } else {
      std::vector<uint64_t> fields(n);
      if (ps.model == kFor) {
        const uint64_t base = ps.base.value_or(lo);
        params.push_back(base);
        uint64_t widest = 0;
        for (uint64_t x = 0; x < n; ++x) {
          fields[x] = (v[x] - base) & Mask(N);
          widest = std::max(widest, fields[x]);
        }
        w = BitLen(widest);
      } else {
        if (ps.base) Fail("EncodeChunk: predicted models have no Base");
        const int count = ps.model == kLinear ? 2 : ps.model == kPoly2 ? 3 : 4;
        for (int i = 0; i < count; ++i) {
          if (!std::isfinite(ps.theta[i])) Fail("EncodeChunk: theta must be finite");
          params.push_back(DoubleBits(ps.theta[i]));
        }
        for (uint64_t x = 0; x < n; ++x) {
          // spec §8.8 rule 1: r = (v - pred) mod 2^N as an N-bit signed number.
          const int64_t r = AsSigned(N, v[x] - Predict(type, ps.model, ps.theta, x, V));
          fields[x] = static_cast<uint64_t>(r);
          w = std::max(w, SignedWidth(r));
        }
      }
      if (ps.width) {
        if (*ps.width < w) Fail("EncodeChunk: width override too small");
        w = *ps.width;
      }
      stream.assign(8 * CeilDiv(n * w, 64), 0);
      for (uint64_t x = 0; x < n; ++x) WriteBits(&stream, SlapBit(n, w, V, x), w, fields[x] & Mask(w));
    }
    record(row, payload_offset, param_offset, ps.model, static_cast<uint8_t>(w));
    payload.insert(payload.end(), stream.begin(), stream.end());
    row += n;
  }
  if (row != values.size()) Fail("EncodeChunk: partitions do not cover the values");
  record(row, payload.size() / 8, params.size(), 0, 0);  // spec §7.3 sentinel
  for (uint64_t p : params) PutLE(&chunk.parameters, p, 8);
  chunk.payload = payload;
  chunk.payload.insert(chunk.payload.end(), 32, 0);  // spec §8.6
  chunk.bounds = mins;
  chunk.bounds.insert(chunk.bounds.end(), maxs.begin(), maxs.end());
  std::vector<uint64_t> sorted(values);
  std::sort(sorted.begin(), sorted.end(),
            [&](uint64_t a, uint64_t b) { return Less(type, a, b); });
  chunk.statistics.min_value = sorted.front();
  chunk.statistics.max_value = sorted.back();
  chunk.statistics.distinct_count =
      static_cast<uint64_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  return chunk;
}

}  // namespace l3::conformance

namespace l3::conformance {

namespace {

struct ListedField {
  uint64_t value;
  uint32_t width;
};

// spec §9.2, written from the text: the listed fields of a chunk's payload,
// in canonical field order, residuals zigzag mapped.
std::vector<ListedField> ListFields(const EncodedChunk& c) {
  auto bit_at = [&](uint64_t bit) { return (c.payload[bit / 8] >> (bit % 8)) & 1u; };
  auto read = [&](uint64_t bit, uint32_t w) {
    uint64_t v = 0;
    for (uint32_t j = 0; j < w; ++j) v |= uint64_t{bit_at(bit + j)} << j;
    return v;
  };
  std::vector<ListedField> fields;
  auto add = [&](uint64_t bit, uint32_t w, bool zigzag) {
    if (w == 0) return;
    uint64_t v = read(bit, w);
    if (zigzag) {
      // The field as a w-bit two's complement number s: 2s if s >= 0, else -2s - 1.
      const bool negative = (v >> (w - 1)) & 1u;
      const uint64_t magnitude = negative ? ((~v + 1) & (w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1)) : v;
      v = negative ? 2 * magnitude - 1 : 2 * magnitude;  // modulo 2^64 for w = 64
    }
    fields.push_back({v, w});
  };
  const uint32_t V = c.values_per_lane;
  const uint64_t S = 32 * uint64_t{V};
  for (uint32_t p = 0; p < c.num_partitions; ++p) {
    const uint8_t* rec = &c.partition_table[16 * p];
    const uint8_t* next = rec + 16;
    const uint64_t n = GetLE(next, 4) - GetLE(rec, 4);
    const uint64_t start = 64 * GetLE(rec + 4, 4);
    const uint64_t param = 8 * GetLE(rec + 8, 4);
    const uint8_t model = rec[12];
    const uint32_t w = rec[13];
    uint32_t pb = 0;
    while (n > 1 && (uint64_t{1} << pb) <= n - 1) ++pb;  // bitlen(n - 1)
    if (model == kConstant) {
      if (w == 0) continue;
      const uint64_t R = GetLE(&c.parameters[param + 8], 8);
      for (uint64_t i = 0; i < R; ++i) add(start + i * w, w, false);
      for (uint64_t i = 1; i < R; ++i) add(start + R * w + (i - 1) * pb, pb, false);
    } else if (model == kRunsEf) {
      // spec §9.2: values, low parts, then H in pieces of 8 bits.
      const uint64_t R = GetLE(&c.parameters[param + 8], 8);
      const uint64_t m = R - 1;
      uint32_t l = 0;
      while ((uint64_t{2} << l) <= (n - 1) / m) ++l;
      const uint64_t high_bits = m + ((n - 1) >> l);
      for (uint64_t i = 0; i < R; ++i) add(start + i * w, w, false);
      for (uint64_t i = 0; i < m; ++i) add(start + R * w + i * l, l, false);
      const uint64_t h0 = start + R * w + m * l;
      for (uint64_t j = 0; 8 * j < high_bits; ++j) {
        add(h0 + 8 * j, static_cast<uint32_t>(std::min<uint64_t>(8, high_bits - 8 * j)), false);
      }
    } else if (model == kDelta || model == kPatchedFor) {
      // spec §9.2: DELTA's seeds (PATCHED_FOR has none), the fields, the
      // exception rows and the high parts.
      const uint64_t word = GetLE(&c.parameters[param + 8], 8);
      const uint64_t E = word & 0xFFFFFFFFu;
      const uint32_t hw = static_cast<uint32_t>((word >> 32) & 0xFF);
      const bool rows_ef = model == kPatchedFor && ((word >> 41) & 1) != 0;  // §8.12 Rows_EF
      const uint64_t order = model == kDelta ? 1 + ((word >> 42) & 3) : 0;  // §8.9 K
      const uint64_t seeds = order * ((n + S - 1) / S);
      for (uint64_t t = 0; t < seeds; ++t) add(start + 64 * t, 64, false);
      const uint64_t stream = start + 64 * seeds;
      for (uint64_t x = 0; x < n; ++x) add(stream + SlapBit(n, w, V, x), w, false);
      uint64_t rb = E * pb;
      if (rows_ef) {
        // spec §9.2: the E low parts, then H in pieces of 8 bits.
        const uint32_t l = BitLen(n / E) - 1;
        const uint64_t h_n = E + ((n - 1) >> l);
        for (uint64_t i = 0; i < E; ++i) add(stream + n * w + i * l, l, false);
        for (uint64_t j = 0; 8 * j < h_n; ++j) {
          add(stream + n * w + E * l + 8 * j,
              static_cast<uint32_t>(std::min<uint64_t>(8, h_n - 8 * j)), false);
        }
        rb = E * l + h_n;
      } else {
        for (uint64_t i = 0; i < E; ++i) add(stream + n * w + i * pb, pb, false);
      }
      for (uint64_t i = 0; i < E; ++i) add(stream + n * w + rb + i * hw, hw, false);
    } else {
      const bool residual = model == kLinear || model == kPoly2 || model == kPoly3;
      for (uint64_t x = 0; x < n; ++x) add(start + SlapBit(n, w, V, x), w, residual);
    }
  }
  return fields;
}

}  // namespace

// spec §9.2: plane k holds byte k of every listed field that has one.
Bytes FieldPlaneForm(const EncodedChunk& c) {
  const std::vector<ListedField> fields = ListFields(c);
  Bytes out;
  for (uint32_t k = 0; k < 8; ++k) {
    for (const ListedField& f : fields) {
      if ((f.width + 7) / 8 > k) out.push_back(static_cast<uint8_t>(f.value >> (8 * k)));
    }
  }
  return out;
}

// spec §9.3: every listed field whole, least significant byte first.
Bytes FieldByteForm(const EncodedChunk& c) {
  Bytes out;
  for (const ListedField& f : ListFields(c)) {
    for (uint32_t k = 0; k < (f.width + 7) / 8; ++k) out.push_back(static_cast<uint8_t>(f.value >> (8 * k)));
  }
  return out;
}

// spec §7.6.1: h = the splitmix64 finaliser of the canonical word.
uint64_t SketchHash(uint64_t x) {
  x = x + 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

SketchContent SpecSketch(const std::vector<uint64_t>& canonical_values) {
  std::set<uint64_t> hashes;
  for (uint64_t v : canonical_values) hashes.insert(SketchHash(v));
  SketchContent out;
  if (hashes.size() <= 256) {  // Max_Hashes
    out.hashes.assign(hashes.begin(), hashes.end());
    return out;
  }
  out.hashes_form = false;
  out.registers.assign(32768, 0);
  for (uint64_t h : hashes) {
    // Register h >> 49; rho = 1 + the number of leading zero bits of the low
    // 49 bits, 50 when they are all zero.
    const uint64_t index = h >> 49;
    uint8_t rho = 1;
    for (int bit = 48; bit >= 0 && ((h >> bit) & 1) == 0; --bit) ++rho;
    out.registers[index] = std::max(out.registers[index], rho);
  }
  return out;
}

}  // namespace l3::conformance
