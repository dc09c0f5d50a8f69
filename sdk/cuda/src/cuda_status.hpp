// CUDA runtime errors as l3::Status (kDeviceError), and the early-return
// macro of the backend.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "l3/status.hpp"

#define L3_CUDA_RETURN_NOT_OK(expr)          \
  do {                                       \
    ::l3::Status l3_cuda_status_ = (expr);   \
    if (!l3_cuda_status_.ok()) return l3_cuda_status_; \
  } while (false)

namespace l3::cuda {

inline Status CudaStatus(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return Status::OK();
  return Status(StatusCode::kDeviceError,
                std::string(what) + ": " + cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
}

/// The error of the launch just made, if any (clears the sticky-free error
/// state so that later calls are not blamed for it).
inline Status CheckLaunch(const char* kernel) { return CudaStatus(cudaGetLastError(), kernel); }

}  // namespace l3::cuda
