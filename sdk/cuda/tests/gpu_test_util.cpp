#include "gpu_test_util.hpp"

#include "codec/dictionary/dictionary_decode.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>

namespace l3::cuda::testing {

namespace {

constexpr uint8_t kPoison = 0xA5;

void CheckCuda(cudaError_t error, const char* what) {
  INFO(what << ": " << cudaGetErrorString(error));
  REQUIRE(error == cudaSuccess);
}

}  // namespace

DeviceBuffer::DeviceBuffer(size_t bytes) : size_(bytes) {
  CheckCuda(cudaMalloc(&data_, std::max<size_t>(bytes, 1)), "cudaMalloc");
}

DeviceBuffer::DeviceBuffer(const void* host, size_t bytes) : DeviceBuffer(bytes) {
  if (bytes > 0) CheckCuda(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) cudaFree(data_);
}

std::vector<uint8_t> DeviceBuffer::ToHost() const {
  std::vector<uint8_t> host(size_);
  if (size_ > 0) {
    CheckCuda(cudaMemcpy(host.data(), data_, size_, cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  return host;
}

ChunkView ViewOf(const internal::EncodedChunk& encoded, PhysicalType type, uint64_t first_row) {
  return internal::ChunkViewOf(encoded, type, first_row);
}

UploadedChunk Upload(const ChunkView& view) {
  UploadedChunk u;
  u.table = DeviceBuffer(view.partition_table, (uint64_t{view.num_partitions} + 1) * 16);
  u.params = DeviceBuffer(view.parameters, view.parameters_bytes);
  u.payload = DeviceBuffer(view.payload, view.payload_bytes);
  if (view.dictionary_entries > 0) {
    // spec §8.10: the host decodes (and checks) the entries; a Reader's view
    // carries them already.
    std::vector<uint8_t> entries;
    const uint8_t* host = view.dictionary;
    if (host == nullptr) {
      const Status st = internal::DecodeDictionary(view, &entries);
      INFO(st.ToString());
      REQUIRE(st.ok());
      host = entries.data();
    }
    u.dictionary =
        DeviceBuffer(host, view.dictionary_entries * PhysicalTypeBytes(view.type));
  }
  Result<DeviceChunk> chunk = MakeDeviceChunk(view, u.table.data(), u.params.data(),
                                              u.payload.data(), u.dictionary.data());
  INFO(chunk.status().ToString());
  REQUIRE(chunk.ok());
  u.chunk = *chunk;
  return u;
}

std::vector<uint8_t> GpuDecode(const std::vector<DeviceChunk>& chunks, uint64_t row_begin,
                               uint64_t row_end, const LaunchConfig& config) {
  const size_t bytes = (row_end - row_begin) * PhysicalTypeBytes(chunks.at(0).type);
  DeviceBuffer out(bytes);
  CheckCuda(cudaMemset(out.data(), kPoison, bytes), "cudaMemset");
  Result<size_t> temp_bytes = DecodeRowsTempBytes(chunks.data(), chunks.size(), row_begin, row_end);
  REQUIRE(temp_bytes.ok());
  DeviceBuffer temp(*temp_bytes);
  const Status status = DecodeRows(chunks.data(), chunks.size(), row_begin, row_end, out.data(),
                                   bytes, temp.data(), *temp_bytes, nullptr, config);
  INFO(status.ToString());
  REQUIRE(status.ok());
  CheckCuda(cudaDeviceSynchronize(), "DecodeRows");
  return out.ToHost();
}

std::vector<uint8_t> GpuTake(const std::vector<DeviceChunk>& chunks,
                             const std::vector<uint64_t>& rows) {
  const size_t bytes = rows.size() * PhysicalTypeBytes(chunks.at(0).type);
  DeviceBuffer d_rows(rows.data(), rows.size() * sizeof(uint64_t));
  DeviceBuffer out(bytes);
  CheckCuda(cudaMemset(out.data(), kPoison, bytes), "cudaMemset");
  Result<size_t> temp_bytes = TakeTempBytes(chunks.data(), chunks.size(), rows.size());
  REQUIRE(temp_bytes.ok());
  DeviceBuffer temp(*temp_bytes);
  const Status status = Take(chunks.data(), chunks.size(), static_cast<const uint64_t*>(d_rows.data()),
                             rows.size(), out.data(), bytes, temp.data(), *temp_bytes, nullptr);
  INFO(status.ToString());
  REQUIRE(status.ok());
  CheckCuda(cudaDeviceSynchronize(), "Take");
  return out.ToHost();
}

std::vector<uint8_t> WriteColumn(const std::string& name, PhysicalType type, const void* values,
                                 uint64_t num_rows, const WriteOptions& options) {
  Result<Writer> writer = Writer::CreateInMemory({ColumnSpec{name, type, {}}}, options);
  INFO(writer.status().ToString());
  REQUIRE(writer.ok());
  const Status appended = writer->Append(0, values, num_rows);
  INFO(appended.ToString());
  REQUIRE(appended.ok());
  const Status closed = writer->Close();
  INFO(closed.ToString());
  REQUIRE(closed.ok());
  return writer->TakeBuffer();
}

void CheckColumnAgainstCpu(const Reader& reader, int column, const void* original,
                           uint64_t seed) {
  const ColumnInfo& info = reader.column(column);
  const uint64_t n = info.num_rows;
  const int vb = PhysicalTypeBytes(info.type);
  INFO("column " << info.name << " (" << PhysicalTypeName(info.type) << ", " << n << " rows, "
                 << info.chunks.size() << " chunks)");
  if (n == 0) return;

  std::vector<uint8_t> cpu(n * vb);
  const Status read = reader.ReadRows(column, 0, n, cpu.data(), cpu.size());
  INFO(read.ToString());
  REQUIRE(read.ok());
  if (original != nullptr) REQUIRE(std::memcmp(cpu.data(), original, cpu.size()) == 0);

  Result<DeviceColumnBuffer> uploaded = UploadColumn(reader, column, nullptr);
  INFO(uploaded.status().ToString());
  REQUIRE(uploaded.ok());
  const std::vector<DeviceChunk>& chunks = uploaded->chunks();

  // The whole column, with the default launch and with persistent warps.
  CHECK(GpuDecode(chunks, 0, n) == cpu);
  LaunchConfig persistent;
  persistent.max_blocks = 3;
  persistent.block_threads = 64;
  CHECK(GpuDecode(chunks, 0, n, persistent) == cpu);
  // Wide full tiles through the shared-memory stage (whatever the hints say).
  LaunchConfig staged;
  staged.wide_tile_staging = LaunchConfig::WideTileStaging::kOn;
  CHECK(GpuDecode(chunks, 0, n, staged) == cpu);
  // The L1 payload prefetch forced on and off (kAuto picks by payload size).
  for (auto prefetch : {LaunchConfig::PayloadPrefetch::kOn, LaunchConfig::PayloadPrefetch::kOff}) {
    LaunchConfig config;
    config.payload_prefetch = prefetch;
    CHECK(GpuDecode(chunks, 0, n, config) == cpu);
  }
  // Dictionary chunks with their entries in shared memory (any that fit) and
  // in device memory; with few small persistent blocks each block walks
  // many spans and crosses chunks, so it copies entries again per chunk.
  LaunchConfig dictionary_on;
  dictionary_on.dictionary_staging = LaunchConfig::DictionaryStaging::kOn;
  LaunchConfig dictionary_off;
  dictionary_off.dictionary_staging = LaunchConfig::DictionaryStaging::kOff;
  LaunchConfig dictionary_persistent = dictionary_on;
  dictionary_persistent.max_blocks = 2;
  dictionary_persistent.block_threads = 64;
  for (const LaunchConfig& config : {dictionary_on, dictionary_off, dictionary_persistent}) {
    CHECK(GpuDecode(chunks, 0, n, config) == cpu);
  }

  std::mt19937_64 rng(seed);
  auto slice = [&](uint64_t a, uint64_t b) {
    return std::vector<uint8_t>(cpu.begin() + a * vb, cpu.begin() + b * vb);
  };
  // Random ranges: short ones (inside a tile), and long ones that cross
  // tiles, partitions and chunks.
  Result<Loader> loader = Loader::Create();
  REQUIRE(loader.ok());
  for (int i = 0; i < 24; ++i) {
    const uint64_t len = i % 3 == 0 ? rng() % 70 + 1 : rng() % n + 1;
    const uint64_t a = rng() % (n - std::min(len, n) + 1);
    const uint64_t b = std::min(n, a + len);
    INFO("rows [" << a << ", " << b << ")");
    const LaunchConfig& config =
        i % 2 == 0 ? staged : i % 4 == 1 ? dictionary_on : dictionary_off;
    CHECK(GpuDecode(chunks, a, b, config) == slice(a, b));
    if (i % 4 == 0) {
      const size_t bytes = (b - a) * vb;
      DeviceBuffer out(bytes);
      cudaMemset(out.data(), kPoison, bytes);
      const Status status = loader->ReadRows(reader, column, a, b, out.data(), bytes, nullptr);
      INFO(status.ToString());
      REQUIRE(status.ok());
      CheckCuda(cudaDeviceSynchronize(), "Loader::ReadRows");
      CHECK(out.ToHost() == slice(a, b));
    }
  }

  // Random rows (with repeats and the two ends) against the CPU's Take.
  std::vector<uint64_t> rows(4096);
  for (uint64_t& r : rows) r = rng() % n;
  rows[0] = 0;
  rows[1] = n - 1;
  rows[2] = rows[3];
  std::vector<uint8_t> cpu_take(rows.size() * vb);
  const Status cpu_took = reader.Take(column, rows.data(), rows.size(), cpu_take.data(), cpu_take.size());
  INFO(cpu_took.ToString());
  REQUIRE(cpu_took.ok());
  CHECK(GpuTake(chunks, rows) == cpu_take);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (std::memcmp(&cpu_take[i * vb], &cpu[rows[i] * vb], vb) != 0) {
      FAIL("CPU Take differs from CPU ReadRows at row " << rows[i]);
    }
  }
}

bool SamePartitionFit(const internal::PartitionFit& a, const internal::PartitionFit& b) {
  return a.num_rows == b.num_rows && a.model_type == b.model_type && a.bit_width == b.bit_width &&
         a.base == b.base && a.num_runs == b.num_runs && a.exceptions == b.exceptions &&
         std::memcmp(a.theta, b.theta, sizeof a.theta) == 0 && a.min_value == b.min_value &&
         a.max_value == b.max_value && a.payload_words == b.payload_words &&
         a.cost_bytes == b.cost_bytes && a.value_runs == b.value_runs;
}

std::vector<datagen::Column> RealIntegerArrays() {
  const std::string dir = datagen::RealDataDir();
  if (!std::filesystem::is_directory(dir)) {
    MESSAGE("skipped: no real-data directory at " << dir);
    return {};
  }
  Result<std::vector<datagen::Column>> columns = datagen::LoadRealIntegerArrays(dir);
  REQUIRE(columns.ok());
  REQUIRE(!columns->empty());
  return std::move(*columns);
}

internal::EncoderConfig ConfigFor(PhysicalType type, const Setting& s) {
  internal::EncoderConfig config;
  config.type = type;
  config.values_per_lane = s.values_per_lane;
  config.partitioner.enable_delta = s.delta;
  config.partitioner.minimax_lines = s.minimax;
  config.partitioner.split_min_rows = 0u;
  config.partitioner.enable_patched_for = s.patched_for;
  config.partitioner.initial_partition_rows = s.initial_rows;
  config.partitioner.max_partition_rows = s.max_rows;
  config.partitioner.min_merge_benefit = s.min_merge_benefit;
  return config;
}

}  // namespace l3::cuda::testing
