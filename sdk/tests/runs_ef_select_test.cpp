// Tests of the RUNS_EF rank and select arithmetic that the CUDA decoder
// shares with the host (runs_ef_select.hpp, spec §8.11): select in a word,
// the bucket of a high part and the run of a row by random access, against
// brute force over random streams, valid and corrupt, and the worked
// example of §8.11.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "codec/runs/runs_ef_layout.hpp"
#include "codec/runs/runs_ef_select.hpp"
#include "common/bits.hpp"

using namespace l3::internal;

namespace {

/// A payload stream over host words, with the 32 bytes of zero padding of
/// spec §8.6 after them (Field may read the word after a field's first).
struct VectorStream {
  std::vector<uint64_t> words;
  bool* read_outside = nullptr;  // set by a read past the padding
  uint64_t Field(uint64_t bit, uint32_t width) const {
    const uint64_t i = bit / 64;
    const uint32_t s = static_cast<uint32_t>(bit % 64);
    if (i + 1 >= words.size()) {
      if (read_outside != nullptr) *read_outside = true;
      return 0;
    }
    const uint64_t v = s == 0 ? words[i] : (words[i] >> s) | (words[i + 1] << (64 - s));
    return v & LowMask(width);
  }
};

void PutBits(std::vector<uint64_t>& words, uint64_t bit, uint32_t width, uint64_t value) {
  WriteField(reinterpret_cast<uint8_t*>(words.data()), bit, width, value);
}

/// The RUNS_EF stream of runs starting at `starts` (starts[0] = 0, strictly
/// increasing, < n), with run i's field i; plus the padding.
VectorStream EncodeRuns(uint64_t n, const std::vector<uint64_t>& starts,
                        const std::vector<uint64_t>& fields, uint32_t w) {
  const uint64_t runs = starts.size();
  const RunsEfLayout g = MakeRunsEfLayout(n, runs, w);
  VectorStream s;
  s.words.assign(RunsEfPayloadWords(n, runs, w) + 4, 0);
  for (uint64_t i = 0; i < runs; ++i) PutBits(s.words, i * w, w, fields[i]);
  for (uint64_t i = 1; i < runs; ++i) {
    PutBits(s.words, g.low_bit0 + (i - 1) * g.low_bits, g.low_bits, starts[i] & LowMask(g.low_bits));
    PutBits(s.words, g.high_bit0 + (starts[i] >> g.low_bits) + (i - 1), 1, 1);
  }
  return s;
}

/// Run starts of a partition of n rows with `runs` runs, in random places.
std::vector<uint64_t> RandomStarts(std::mt19937_64& rng, uint64_t n, uint64_t runs) {
  std::vector<uint64_t> rows(n - 1);
  for (uint64_t i = 0; i < n - 1; ++i) rows[i] = i + 1;
  std::shuffle(rows.begin(), rows.end(), rng);
  std::vector<uint64_t> starts(rows.begin(), rows.begin() + (runs - 1));
  starts.push_back(0);
  std::sort(starts.begin(), starts.end());
  return starts;
}

/// Brute force: the bits of H as the stream holds them.
std::vector<bool> HighBits(const VectorStream& s, const RunsEfLayout& g) {
  std::vector<bool> h(g.high_bits);
  for (uint64_t q = 0; q < g.high_bits; ++q) h[q] = s.Field(g.high_bit0 + q, 1) != 0;
  return h;
}

/// Brute force of RunsEfRunOfRow on any H: decode every start by its 1 bit
/// (spec §8.11), then max { i <= m : start_i <= x } over the first bucket
/// rule: starts with a smaller high part count, then those of x's high part
/// in H order while their low part is at most x's.
uint64_t BruteRunOfRow(const VectorStream& s, const RunsEfLayout& g, uint64_t x) {
  const std::vector<bool> h = HighBits(s, g);
  const uint64_t hx = x >> g.low_bits;
  uint64_t zeros = 0;
  uint64_t run = 0;
  uint64_t q = 0;
  for (; q < h.size() && zeros < hx; ++q) {
    if (h[q]) {
      ++run;
    } else {
      ++zeros;
    }
  }
  run = std::min(run, g.starts);
  for (; q < h.size() && h[q] && run < g.starts; ++q) {
    if (s.Field(g.low_bit0 + run * g.low_bits, g.low_bits) > (x & LowMask(g.low_bits))) break;
    ++run;
  }
  return run;
}

}  // namespace

TEST_CASE("SelectInWord32 and SelectInWord64 find the k-th set bit") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20000; ++trial) {
    uint64_t word = rng();
    if (trial % 3 == 1) word &= rng();  // sparser
    if (trial % 3 == 2) word |= rng();  // denser
    if (trial < 64) word = uint64_t{1} << trial;
    uint32_t k = 0;
    for (uint32_t bit = 0; bit < 64; ++bit) {
      if ((word >> bit) & 1) {
        CHECK(SelectInWord64(word, k) == bit);
        if (bit < 32) CHECK(SelectInWord32(static_cast<uint32_t>(word), k) == bit);
        ++k;
      }
    }
    CHECK(k == PopCount64(word));
    CHECK(PopCount32(static_cast<uint32_t>(word)) ==
          static_cast<uint32_t>(__builtin_popcount(static_cast<uint32_t>(word))));
  }
  CHECK(SelectInWord32(0xFFFFFFFFu, 31) == 31);
  CHECK(SelectInWord64(~uint64_t{0}, 63) == 63);
}

TEST_CASE("the worked example of spec §8.11") {
  // u16, n = 10: rows 7 7 7 9 9 4 4 4 4 8; R = 4, starts 0 3 5 9, Base 4.
  const VectorStream s = EncodeRuns(10, {0, 3, 5, 9}, {3, 5, 0, 4}, 3);
  CHECK(s.words[0] == 0x000000000025782Bull);
  const RunsEfLayout g = MakeRunsEfLayout(10, 4, 3);
  CHECK(g.low_bits == 1);
  CHECK(g.high_bits == 7);
  const uint64_t expect[10] = {0, 0, 0, 1, 1, 2, 2, 2, 2, 3};
  for (uint64_t x = 0; x < 10; ++x) CHECK(RunsEfRunOfRow(s, g, x) == expect[x]);
  const RunsEfHighPart<VectorStream> high{s, g.high_bit0, g.high_bits};
  // H = 0 1 0 1 0 0 1: the bucket of high part 2 starts after the 2nd zero
  // (bit 2), with one start below it.
  const RunsEfBucket b2 = RunsEfFindBucket(high, 2);
  CHECK(b2.first_bit == 3);
  CHECK(b2.starts_below == 1);
  const RunsEfBucket b4 = RunsEfFindBucket(high, 4);
  CHECK(b4.first_bit == 6);
  CHECK(b4.starts_below == 2);
}

TEST_CASE("random access finds the run of every row of random RUNS_EF partitions") {
  std::mt19937_64 rng(17);
  const uint64_t sizes[] = {2, 3, 33, 64, 65, 1000, 4097, 65536};
  for (uint64_t n : sizes) {
    for (int shape = 0; shape < 5; ++shape) {
      // R = 2, R = n (every row a run), few long runs, many short ones.
      uint64_t runs = shape == 0   ? 2
                      : shape == 1 ? n
                      : shape == 2 ? 2 + rng() % std::min<uint64_t>(n - 1, 8)
                      : shape == 3 ? std::max<uint64_t>(2, n / 3)
                                   : 2 + rng() % (n - 1);
      runs = std::min(runs, n);
      const uint32_t w = 1 + static_cast<uint32_t>(rng() % 64);
      const std::vector<uint64_t> starts = RandomStarts(rng, n, runs);
      std::vector<uint64_t> fields(runs);
      for (uint64_t& f : fields) f = rng() & LowMask(w);
      VectorStream s = EncodeRuns(n, starts, fields, w);
      bool read_outside = false;
      s.read_outside = &read_outside;
      const RunsEfLayout g = MakeRunsEfLayout(n, runs, w);
      CAPTURE(n);
      CAPTURE(runs);
      const RunsEfHighPart<VectorStream> high{s, g.high_bit0, g.high_bits};
      // Every bucket: the starts below it are those of smaller high parts.
      for (uint64_t h = 0; h <= (n - 1) >> g.low_bits; h += 1 + h / 7) {
        const RunsEfBucket b = RunsEfFindBucket(high, h);
        const uint64_t below =
            std::lower_bound(starts.begin() + 1, starts.end(), h << g.low_bits) - (starts.begin() + 1);
        CHECK(b.starts_below == below);
        CHECK(b.first_bit == (h == 0 ? 0 : below + h));
      }
      const uint64_t step = n > 5000 ? 1 + rng() % 13 : 1;
      for (uint64_t x = 0; x < n; x += step) {
        const uint64_t expect = std::upper_bound(starts.begin(), starts.end(), x) - starts.begin() - 1;
        const uint64_t run = RunsEfRunOfRow(s, g, x);
        if (run != expect) {
          CAPTURE(x);
          CHECK(run == expect);
          break;
        }
      }
      CHECK_FALSE(read_outside);
    }
  }
}

TEST_CASE("random access on corrupt H stays inside H and returns a run in [0, m]") {
  // Random bits in the low parts and H: too many or too few ones, starts
  // that do not increase. VectorStream flags a read past the padding; the
  // brute force gives the run the rules of RunsEfRunOfRow give.
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 400; ++trial) {
    const uint64_t n = 2 + rng() % (trial % 10 == 0 ? 65535 : 3000);
    const uint64_t runs = 2 + rng() % (n - 1);
    const uint32_t w = 1 + static_cast<uint32_t>(rng() % 64);
    const RunsEfLayout g = MakeRunsEfLayout(n, runs, w);
    VectorStream s;
    s.words.assign(RunsEfPayloadWords(n, runs, w) + 4, 0);
    const uint64_t used = (g.used_bits() + 63) / 64;
    const int density = static_cast<int>(rng() % 4);
    for (uint64_t i = 0; i < used; ++i) {
      uint64_t v = rng();
      if (density == 1) v &= rng() & rng();
      if (density == 2) v |= rng() | rng();
      s.words[i] = v;
    }
    if (trial % 2 == 0) {
      // Garbage in the padding as well: reads must stop at H's end.
      for (uint64_t i = used; i < s.words.size(); ++i) s.words[i] = ~uint64_t{0};
    }
    bool read_outside = false;
    s.read_outside = &read_outside;
    CAPTURE(n);
    CAPTURE(runs);
    for (int k = 0; k < 40; ++k) {
      const uint64_t x = k == 0 ? n - 1 : rng() % n;
      const uint64_t run = RunsEfRunOfRow(s, g, x);
      CHECK(run <= g.starts);
      CHECK(run == BruteRunOfRow(s, g, x));
    }
    CHECK_FALSE(read_outside);
  }
}
