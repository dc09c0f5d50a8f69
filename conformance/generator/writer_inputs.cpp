// writer-inputs/: raw little-endian arrays that run.py gives to a third-party
// writer; the files it writes must validate deeply and decode back to these
// bytes with the reference reader.
#include "case_util.hpp"

namespace l3::conformance {

std::vector<WriterInput> WriterInputs() {
  std::vector<WriterInput> out;
  Rng rng(2026);
  auto add = [&](const std::string& name, Ty t, std::vector<uint64_t> v, const std::string& desc) {
    out.push_back(WriterInput{name, t, std::move(v), desc});
  };
  {
    std::vector<uint64_t> v(5000);
    for (auto& x : v) x = Canon(Ty::kI8, rng.Next());
    v[0] = Canon(Ty::kI8, 0x80);
    v[1] = 0x7F;
    add("i8_uniform", Ty::kI8, v, "5000 uniform i8 values, including -128 and 127.");
  }
  {
    std::vector<uint64_t> v(6161);
    for (size_t i = 0; i < v.size(); ++i) v[i] = Canon(Ty::kI16, static_cast<uint64_t>(static_cast<int64_t>(i % 700) * 40 - 14000));
    add("i16_sawtooth", Ty::kI16, v, "A sawtooth of period 700 over 6161 rows (three tiles of 2048 and 17 rows).");
  }
  {
    std::vector<uint64_t> v(20000);
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = Canon(Ty::kI32, static_cast<uint64_t>(static_cast<int64_t>(i) * 37 - 300000 + rng.Between(-50, 50)));
    }
    add("i32_linear_noise", Ty::kI32, v, "20000 rows of 37 x - 300000 plus noise in [-50, 50].");
  }
  {
    std::vector<uint64_t> v(8000);
    int64_t t = 1795000000000;
    for (auto& x : v) {
      t += 1000 + rng.Between(-40, 40);
      x = static_cast<uint64_t>(t);
    }
    add("i64_timestamps_ms", Ty::kI64, v, "8000 millisecond timestamps about one second apart.");
  }
  {
    std::vector<uint64_t> v;
    for (int i = 0; i < 1000; ++i) {
      switch (i % 5) {
        case 0: v.push_back(0x8000000000000000ull); break;
        case 1: v.push_back(0x7FFFFFFFFFFFFFFFull); break;
        case 2: v.push_back(0); break;
        case 3: v.push_back(~uint64_t{0}); break;
        default: v.push_back(rng.Next()); break;
      }
    }
    add("i64_extremes", Ty::kI64, v, "1000 rows cycling through INT64_MIN, INT64_MAX, 0, -1 and random values.");
  }
  {
    std::vector<uint64_t> v(4000);
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = (uint64_t{1} << 53) - 2000 + i + static_cast<uint64_t>(rng.Between(0, 3));
    }
    add("i64_around_2p53", Ty::kI64, v,
        "4000 increasing values crossing 2^53 (a writer must not use LINEAR/POLY for |v| > 2^53, "
        "spec §8.8 rule 3).");
  }
  {
    std::vector<uint64_t> v;
    while (v.size() < 20000) {
      const uint64_t value = rng.Below(6) * 50;
      const uint64_t len = 1 + rng.Below(400);
      for (uint64_t i = 0; i < len && v.size() < 20000; ++i) v.push_back(value);
    }
    add("u8_runs", Ty::kU8, v, "20000 rows of runs of 1..400 rows.");
  }
  add("u16_constant", Ty::kU16, std::vector<uint64_t>(5000, 42), "5000 rows of 42.");
  {
    std::vector<uint64_t> v;
    for (int block = 0; block < 20; ++block) {
      const uint32_t w = static_cast<uint32_t>(rng.Below(33));
      for (int i = 0; i < 500; ++i) v.push_back(w == 0 ? 7 : rng.Next() & ((uint64_t{1} << w) - 1));
    }
    add("u32_varying_widths", Ty::kU32, v, "20 blocks of 500 random values, each block of a random width 0..32.");
  }
  {
    std::vector<uint64_t> v(3000);
    for (auto& x : v) x = ~uint64_t{0} - rng.Below(1 << 20);
    add("u64_near_max", Ty::kU64, v, "3000 values within 2^20 of 2^64 - 1.");
  }
  {
    std::vector<uint64_t> v(5000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1000 * i * i + static_cast<uint64_t>(rng.Below(8));
    add("u64_quadratic", Ty::kU64, v, "5000 rows of 1000 x^2 plus noise in [0, 7].");
  }
  add("i32_single_row", Ty::kI32, {Canon(Ty::kI32, static_cast<uint64_t>(-7))}, "One row (-7).");
  add("u32_empty", Ty::kU32, {}, "No rows: the writer must write a column of 0 rows.");
  return out;
}

}  // namespace l3::conformance
