// The Star Schema Benchmark lineorder columns of l3/datagen.hpp.
#include <algorithm>
#include <cmath>
#include <vector>

#include "l3/datagen.hpp"

namespace l3::datagen {

// Howard Hinnant's civil-from-days and days-from-civil algorithms.
uint32_t DateKeyFromDays(int64_t day) {
  const int64_t z = day + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return static_cast<uint32_t>(y * 10000 + m * 100 + d);
}

int64_t DaysFromDateKey(uint32_t key) {
  int64_t y = key / 10000;
  const int64_t m = key / 100 % 100, d = key % 100;
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

SsbLineorder GenerateSsbLineorder(double scale_factor, uint64_t seed, SsbOrder order) {
  const uint64_t rows = static_cast<uint64_t>(std::llround(6000000.0 * scale_factor));
  const double log_sf = scale_factor > 0 ? std::floor(1 + std::log2(scale_factor)) : 1;
  const uint64_t parts = 200000 * static_cast<uint64_t>(std::max(1.0, log_sf));
  const int64_t first_day = DaysFromDateKey(19920101);
  const int64_t last_day = DaysFromDateKey(19980802);  // 1998-12-31 minus 151 days
  const uint64_t num_days = static_cast<uint64_t>(last_day - first_day + 1);
  std::vector<uint32_t> day_key(num_days);
  for (uint64_t d = 0; d < num_days; ++d) day_key[d] = DateKeyFromDays(first_day + static_cast<int64_t>(d));

  SsbLineorder t;
  t.orderdate.resize(rows);
  t.discount.resize(rows);
  t.quantity.resize(rows);
  t.extendedprice.resize(rows);
  std::vector<uint16_t> day_of_row(rows);
  Rng rng(seed);
  uint64_t row = 0;
  while (row < rows) {
    // An order: its date, then 1..7 lines (the last order is cut at `rows`).
    const uint16_t day = static_cast<uint16_t>(rng.Below(num_days));
    const uint64_t lines = 1 + rng.Below(7);
    for (uint64_t l = 0; l < lines && row < rows; ++l, ++row) {
      const uint64_t quantity = 1 + rng.Below(50);
      const uint64_t discount = rng.Below(11);
      const uint64_t part = 1 + rng.Below(parts);
      // dbgen's rpb_routine: the part's retail price in cents.
      const uint64_t price = 90000 + (part / 10) % 20001 + 100 * (part % 1000);
      day_of_row[row] = day;
      t.quantity[row] = static_cast<uint8_t>(quantity);
      t.discount[row] = static_cast<uint8_t>(discount);
      t.extendedprice[row] = static_cast<uint32_t>(quantity * price);
    }
  }
  if (order == SsbOrder::kDate) {
    // A stable counting sort by day.
    std::vector<uint64_t> start(num_days + 1, 0);
    for (uint16_t d : day_of_row) ++start[d + 1];
    for (uint64_t d = 0; d < num_days; ++d) start[d + 1] += start[d];
    SsbLineorder sorted;
    sorted.discount.resize(rows);
    sorted.quantity.resize(rows);
    sorted.extendedprice.resize(rows);
    for (uint64_t r = 0; r < rows; ++r) {
      const uint64_t to = start[day_of_row[r]]++;
      sorted.discount[to] = t.discount[r];
      sorted.quantity[to] = t.quantity[r];
      sorted.extendedprice[to] = t.extendedprice[r];
    }
    std::sort(day_of_row.begin(), day_of_row.end());
    sorted.orderdate = std::move(t.orderdate);
    t = std::move(sorted);
  }
  for (uint64_t r = 0; r < rows; ++r) t.orderdate[r] = day_key[day_of_row[r]];
  return t;
}

}  // namespace l3::datagen
