// The chunk encoder: partitions and models in, the decoded bytes of the
// chunk's segments out (spec §7.3–§7.6, §8).
#include "codec/encode/encode_chunk.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <new>

#include "codec/delta/delta_layout.hpp"
#include "codec/encode/chunk_statistics.hpp"
#include "codec/encode/emit_payload.hpp"
#include "codec/encode/model_fit.hpp"
#include "codec/encode/parallel.hpp"
#include "codec/encode/partitioner.hpp"
#include "codec/encode/value_traits.hpp"
#include "common/bits.hpp"
#include "common/status_macros.hpp"

namespace l3::internal {
namespace {

constexpr uint64_t kMaxChunkRows = 0xFFFFFFFFull;  // spec §7.2: num_rows <= 2^32 - 1
constexpr int kMaxThreads = 256;

int ClampThreads(int num_threads) { return std::clamp(num_threads, 1, kMaxThreads); }

Status ValidateConfig(const void* values, uint64_t num_rows, const EncoderConfig& config) {
  if (!PhysicalTypeIsInteger(config.type)) {
    return Status(StatusCode::kInvalidArgument, "the L3 integer encoding needs an integer type");
  }
  if (!IsValidValuesPerLane(config.values_per_lane)) {
    return Status(StatusCode::kInvalidArgument,
                  "values_per_lane must be a power of two in [1, 1024] (spec §7.2)");
  }
  if (num_rows == 0 || num_rows > kMaxChunkRows) {
    return Status(StatusCode::kInvalidArgument,
                  "a chunk holds between 1 and 2^32 - 1 rows (spec §7.2)");
  }
  if (values == nullptr) return Status(StatusCode::kInvalidArgument, "values is null");
  return ValidatePartitionerOptions(config.partitioner);
}

// Writes the partition table, parameters, payload, bounds and statistics of
// the chosen partitions (spec §7.3–§7.6, §8.2, §8.5–§8.7).
template <typename T>
Result<EncodedChunk> Assemble(const T* v, uint64_t n, const EncoderConfig& config,
                              const std::vector<PlannedPartition>& plan) {
  const uint64_t num_partitions = plan.size();
  const int threads = ClampThreads(config.num_threads);
  std::vector<uint64_t> payload_offset(num_partitions + 1, 0);
  std::vector<uint64_t> param_offset(num_partitions + 1, 0);
  for (uint64_t p = 0; p < num_partitions; ++p) {
    const PartitionFit& fit = plan[p].fit;
    payload_offset[p + 1] = payload_offset[p] + fit.payload_words;
    param_offset[p + 1] = param_offset[p] + ParamCount(fit.model_type, fit.bit_width);
  }
  // spec §7.3: Payload_Offset and Param_Offset are u32.
  if (payload_offset[num_partitions] > 0xFFFFFFFFull || param_offset[num_partitions] > 0xFFFFFFFFull) {
    return Status(StatusCode::kInvalidArgument,
                  "chunk too large: its payload or parameter offsets exceed 32 bits");
  }

  EncodedChunk chunk;
  chunk.num_rows = n;
  chunk.num_partitions = static_cast<uint32_t>(num_partitions);
  chunk.values_per_lane = config.values_per_lane;

  // spec §7.3: P records and the sentinel, whose other fields stay zero.
  chunk.partition_table.assign((num_partitions + 1) * kPartitionRecordBytes, 0);
  for (uint64_t p = 0; p <= num_partitions; ++p) {
    PartitionRecord record{};
    record.first_row = static_cast<uint32_t>(p < num_partitions ? plan[p].first_row : n);
    record.payload_offset = static_cast<uint32_t>(payload_offset[p]);
    record.param_offset = static_cast<uint32_t>(param_offset[p]);
    if (p < num_partitions) {
      chunk.uses_delta |= plan[p].fit.model_type == static_cast<uint8_t>(Model::kDelta);
      chunk.uses_runs_ef |= plan[p].fit.model_type == static_cast<uint8_t>(Model::kRunsEf);
      chunk.uses_patched_for |=
          plan[p].fit.model_type == static_cast<uint8_t>(Model::kPatchedFor);
      chunk.uses_patched_rows_ef |=
          plan[p].fit.model_type == static_cast<uint8_t>(Model::kPatchedFor) &&
          UnpackDeltaExceptions(plan[p].fit.exceptions).rows_ef;
      chunk.uses_delta_orders |=
          plan[p].fit.model_type == static_cast<uint8_t>(Model::kDelta) &&
          UnpackDeltaExceptions(plan[p].fit.exceptions).order > 1;
      record.model_type = plan[p].fit.model_type;
      record.bit_width = plan[p].fit.bit_width;
    }
    StorePartitionRecord(chunk.partition_table.data(), p, record);
  }

  // spec §8.2: integer words in canonical extension, float words as binary64.
  chunk.parameters.assign(8 * param_offset[num_partitions], 0);
  for (uint64_t p = 0; p < num_partitions; ++p) {
    const PartitionFit& fit = plan[p].fit;
    uint8_t* words = chunk.parameters.data() + 8 * param_offset[p];
    if (IsPredictedModel(fit.model_type)) {
      for (uint32_t k = 0; k < ParamCount(fit.model_type, 0); ++k) {
        uint64_t bits;
        std::memcpy(&bits, &fit.theta[k], sizeof bits);
        StoreLE64(words + 8 * k, bits);
      }
    } else {
      StoreLE64(words, fit.base);
      if ((fit.model_type == static_cast<uint8_t>(Model::kConstant) && fit.bit_width > 0) ||
          fit.model_type == static_cast<uint8_t>(Model::kRunsEf)) {
        StoreLE64(words + 8, fit.num_runs);
      }
      if (fit.model_type == static_cast<uint8_t>(Model::kDelta) ||
          fit.model_type == static_cast<uint8_t>(Model::kPatchedFor)) {
        StoreLE64(words + 8, fit.exceptions);
      }
    }
  }

  // spec §8.6: the payloads, then exactly 32 zero bytes.
  chunk.payload.assign(8 * payload_offset[num_partitions] + kPayloadPaddingBytes, 0);
  std::vector<uint8_t> emitted(num_partitions, 0);
  ParallelFor(num_partitions, threads, 16, [&](uint64_t p) {
    emitted[p] = EmitPartitionPayload(v + plan[p].first_row, plan[p].fit, config.values_per_lane,
                                      chunk.payload.data() + 8 * payload_offset[p])
                     ? 1
                     : 0;
  });
  for (uint64_t p = 0; p < num_partitions; ++p) {
    if (!emitted[p]) {
      return Status(StatusCode::kInternal,
                    "encoder bug: partition " + std::to_string(p) + " does not fit its Bit_Width");
    }
  }

  // spec §7.5: P minima, then P maxima, N / 8 bytes each, little-endian.
  if (config.compute_bounds) {
    constexpr size_t kBytes = sizeof(T);
    chunk.bounds.assign(2 * num_partitions * kBytes, 0);
    for (uint64_t p = 0; p < num_partitions; ++p) {
      std::memcpy(chunk.bounds.data() + p * kBytes, &plan[p].fit.min_value, kBytes);
      std::memcpy(chunk.bounds.data() + (num_partitions + p) * kBytes, &plan[p].fit.max_value,
                  kBytes);
    }
  }
  if (config.compute_statistics) {
    chunk.statistics = config.known_statistics != nullptr ? *config.known_statistics
                                                          : ComputeChunkStatistics(v, n, threads);
  }
  return chunk;
}

template <typename T>
Result<EncodedChunk> EncodeAuto(const T* v, uint64_t n, const EncoderConfig& config) {
  const PartitionPlanOptions options = PlanOptionsFor(config);
  if (config.planner != nullptr) {
    // A planner that cannot encode or plan this chunk (options it does not
    // support, a device out of memory or failing) leaves it to the CPU: the
    // plan, and so the file, is the same either way.
    EncodedChunk chunk;
    if (config.planner->Encode(v, n, config, &chunk).ok()) return chunk;
    std::vector<PlannedPartition> plan;
    if (config.planner->Plan(config.type, v, n, options, &plan).ok()) {
      return Assemble(v, n, config, plan);
    }
  }
  return Assemble(v, n, config, PlanPartitions(v, n, options));
}

// Partitions fitted per round of EncodeGiven with a byte limit: a few at
// first, so that a candidate far over its limit stops after little work, then
// more (fixed, so that where it stops never depends on the thread count).
uint64_t ChoiceRound(uint64_t round) { return uint64_t{8} << std::min<uint64_t>(round, 5); }

// Fits one caller-chosen partition whose rows start at values[first_row].
template <typename T>
Status FitChoice(const T* values, uint64_t first_row, const PartitionChoice& choice,
                 const FitOptions& fit_options, PartitionFit* fit) {
  const double* theta =
      choice.theta.has_value() && IsPredictedModel(static_cast<uint8_t>(choice.model))
          ? choice.theta->data()
          : nullptr;
  FitOptions options = fit_options;
  options.delta_without_exceptions = choice.delta_without_exceptions;
  options.delta_order = choice.delta_order;
  return FitGivenModel(values + first_row, choice.num_rows, choice.model, theta, options, fit);
}

template <typename T>
Result<std::optional<EncodedChunk>> EncodeGiven(const T* v, uint64_t n,
                                                const EncoderConfig& config,
                                                const std::vector<PartitionChoice>& choices,
                                                uint64_t byte_limit) {
  std::vector<PlannedPartition> plan(choices.size());
  uint64_t row = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i].num_rows == 0) {
      return Status(StatusCode::kInvalidArgument, "a partition needs at least one row");
    }
    if (static_cast<uint8_t>(choices[i].model) >= kNumModels) {
      return Status(StatusCode::kInvalidArgument, "unknown model");
    }
    plan[i].first_row = row;
    row += choices[i].num_rows;
  }
  if (row != n) {
    return Status(StatusCode::kInvalidArgument, "the partitions' rows do not sum to num_rows");
  }
  const FitOptions fit_options =
      MakeFitOptions(config.partitioner, config.values_per_lane, config.partitioner.minimax_lines);
  std::vector<Status> statuses(choices.size());
  const auto fit = [&](uint64_t i) {
    statuses[i] = FitChoice(v, plan[i].first_row, choices[i], fit_options, &plan[i].fit);
  };
  const int threads = ClampThreads(config.num_threads);
  if (byte_limit == UINT64_MAX) {
    ParallelFor(choices.size(), threads, 16, fit);
  } else {
    // Each partition adds at least its PartitionCost to the segments.
    uint64_t bytes = 0;
    uint64_t begin = 0;
    for (uint64_t round = 0; begin < choices.size(); ++round) {
      const uint64_t count = std::min<uint64_t>(ChoiceRound(round), choices.size() - begin);
      ParallelFor(count, threads, 1, [&](uint64_t i) { fit(begin + i); });
      for (uint64_t i = begin; i < begin + count; ++i) {
        if (statuses[i].ok()) bytes += plan[i].fit.cost_bytes;
      }
      begin += count;
      if (bytes > byte_limit) return std::optional<EncodedChunk>();
    }
  }
  for (size_t i = 0; i < statuses.size(); ++i) {
    if (!statuses[i].ok()) {
      return Status(statuses[i].code(),
                    "partition " + std::to_string(i) + ": " + statuses[i].message());
    }
  }
  L3_ASSIGN_OR_RETURN(EncodedChunk chunk, Assemble(v, n, config, plan));
  return std::optional<EncodedChunk>(std::move(chunk));
}

template <typename Fn>
auto Guarded(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory while encoding a chunk");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, std::string("encoding a chunk: ") + e.what());
  }
}

}  // namespace

PartitionPlanOptions PlanOptionsFor(const EncoderConfig& config) {
  PartitionPlanOptions options;
  options.partitioner = config.partitioner;
  options.values_per_lane = config.values_per_lane;
  // Unset means no splitting here; the Writer resolves the profile default.
  options.split_min_rows = config.partitioner.split_min_rows.value_or(0);
  options.minimax_lines = config.partitioner.minimax_lines;
  options.num_threads = ClampThreads(config.num_threads);
  options.record_fits = config.record_fits;
  options.known_fits = config.known_fits;
  return options;
}

ChunkView ChunkViewOf(const EncodedChunk& chunk, PhysicalType type, uint64_t first_row) {
  ChunkView v;
  v.type = type;
  v.first_row = first_row;
  v.num_rows = chunk.num_rows;
  v.values_per_lane = chunk.values_per_lane;
  v.num_partitions = chunk.num_partitions;
  v.partition_table = chunk.partition_table.data();
  v.parameters = chunk.parameters.data();
  v.parameters_bytes = chunk.parameters.size();
  v.payload = chunk.payload.data();
  v.payload_bytes = chunk.payload.size();
  v.bounds = chunk.bounds.empty() ? nullptr : chunk.bounds.data();
  v.bounds_bytes = chunk.bounds.size();
  v.dictionary_entries = chunk.dictionary_entries;
  if (chunk.dictionary_entries > 0) v.required_features |= kRequiredDictionary;
  if (chunk.uses_delta) v.required_features |= kRequiredDeltaModel;
  if (chunk.uses_runs_ef) v.required_features |= kRequiredRunsEfModel;
  if (chunk.uses_patched_for) v.required_features |= kRequiredPatchedForModel;
  if (chunk.uses_patched_rows_ef) v.required_features |= kRequiredPatchedRowsEf;
  if (chunk.uses_delta_orders) v.required_features |= kRequiredDeltaOrders;
  return v;
}

Result<EncodedChunk> EncodeChunk(const void* values, uint64_t num_rows,
                                 const EncoderConfig& config) {
  Status status = ValidateConfig(values, num_rows, config);
  if (!status.ok()) return status;
  return Guarded([&]() -> Result<EncodedChunk> {
    Result<EncodedChunk> result = Status(StatusCode::kInternal, "unreachable");
    DispatchIntegerType(config.type, [&](auto tag) {
      using T = decltype(tag);
      result = EncodeAuto(static_cast<const T*>(values), num_rows, config);
    });
    return result;
  });
}

Result<std::optional<EncodedChunk>> EncodeChunkWithPartitionsWithin(
    const void* values, uint64_t num_rows, const EncoderConfig& config,
    const std::vector<PartitionChoice>& partitions, uint64_t byte_limit) {
  Status status = ValidateConfig(values, num_rows, config);
  if (!status.ok()) return status;
  return Guarded([&]() -> Result<std::optional<EncodedChunk>> {
    Result<std::optional<EncodedChunk>> result = Status(StatusCode::kInternal, "unreachable");
    DispatchIntegerType(config.type, [&](auto tag) {
      using T = decltype(tag);
      result =
          EncodeGiven(static_cast<const T*>(values), num_rows, config, partitions, byte_limit);
    });
    return result;
  });
}

Result<uint64_t> SampledPartitionCost(const void* values, uint64_t num_rows,
                                      const EncoderConfig& config,
                                      const std::vector<PartitionChoice>& partitions,
                                      uint64_t stride) {
  Status status = ValidateConfig(values, num_rows, config);
  if (!status.ok()) return status;
  if (stride == 0) return Status(StatusCode::kInvalidArgument, "stride must be positive");
  std::vector<PartitionChoice> sample;
  std::vector<uint64_t> first_rows;
  uint64_t row = 0;
  for (size_t i = 0; i < partitions.size(); ++i) {
    if (partitions[i].num_rows == 0 || partitions[i].num_rows > num_rows - row) {
      return Status(StatusCode::kInvalidArgument, "the partitions do not fit in the rows");
    }
    if (static_cast<uint8_t>(partitions[i].model) >= kNumModels) {
      return Status(StatusCode::kInvalidArgument, "unknown model");
    }
    if (i % stride == 0) {
      sample.push_back(partitions[i]);
      first_rows.push_back(row);
    }
    row += partitions[i].num_rows;
  }
  const FitOptions fit_options =
      MakeFitOptions(config.partitioner, config.values_per_lane, config.partitioner.minimax_lines);
  std::vector<PartitionFit> fits(sample.size());
  std::vector<Status> statuses(sample.size());
  Status guarded = Guarded([&]() -> Status {
    DispatchIntegerType(config.type, [&](auto tag) {
      using T = decltype(tag);
      const T* v = static_cast<const T*>(values);
      ParallelFor(sample.size(), ClampThreads(config.num_threads), 1, [&](uint64_t i) {
        statuses[i] = FitChoice(v, first_rows[i], sample[i], fit_options, &fits[i]);
      });
    });
    return Status::OK();
  });
  if (!guarded.ok()) return guarded;
  uint64_t bytes = 0;
  for (size_t i = 0; i < sample.size(); ++i) {
    if (!statuses[i].ok()) return statuses[i];
    bytes += fits[i].cost_bytes;
  }
  return bytes;
}

Result<EncodedChunk> EncodeChunkWithPartitions(const void* values, uint64_t num_rows,
                                               const EncoderConfig& config,
                                               const std::vector<PartitionChoice>& partitions) {
  Result<std::optional<EncodedChunk>> chunk =
      EncodeChunkWithPartitionsWithin(values, num_rows, config, partitions, UINT64_MAX);
  if (!chunk.ok()) return chunk.status();
  if (!chunk->has_value()) return Status(StatusCode::kInternal, "no chunk without a limit");
  return std::move(**chunk);
}

Result<EncodedChunk> EncodeChunkWithPlan(const void* values, uint64_t num_rows,
                                         const EncoderConfig& config,
                                         const std::vector<PlannedPartition>& plan) {
  Status status = ValidateConfig(values, num_rows, config);
  if (!status.ok()) return status;
  uint64_t row = 0;
  for (const PlannedPartition& p : plan) {
    if (p.first_row != row || p.fit.num_rows == 0 || p.fit.num_rows > num_rows - row) {
      return Status(StatusCode::kInvalidArgument, "the plan does not cover the rows in order");
    }
    row += p.fit.num_rows;
  }
  if (row != num_rows) {
    return Status(StatusCode::kInvalidArgument, "the plan does not cover the rows in order");
  }
  return Guarded([&]() -> Result<EncodedChunk> {
    Result<EncodedChunk> result = Status(StatusCode::kInternal, "unreachable");
    DispatchIntegerType(config.type, [&](auto tag) {
      using T = decltype(tag);
      result = Assemble(static_cast<const T*>(values), num_rows, config, plan);
    });
    return result;
  });
}

}  // namespace l3::internal
