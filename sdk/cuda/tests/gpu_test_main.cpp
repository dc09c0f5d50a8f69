// Entry point of the GPU tests: skip (exit 77, which ctest shows as
// "Skipped") when no CUDA device can be used, so CI without a GPU stays green.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "l3/cuda.hpp"

int main(int argc, char** argv) {
  if (!l3::cuda::DeviceAvailable()) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
