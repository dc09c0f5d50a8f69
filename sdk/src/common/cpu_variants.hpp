// Run-time choice of instruction sets for the CPU reference's hot loops.
//
// A function marked L3_CPU_VARIANTS is compiled for x86-64-v4 (AVX-512), for
// AVX2 and for the baseline, and the loader picks the best the CPU has
// (GCC's target_clones). Every variant performs the same IEEE-754
// operations in the same order: none implies contraction into FMA, which
// the project turns off (-ffp-contract=off), so all write the same values
// and the portable build stays the definition. Clang (14 at least) refuses
// target_clones on function templates, so it builds the portable variant
// only, as do other compilers and L3_NO_CPU_DISPATCH builds.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(L3_NO_CPU_DISPATCH)
#define L3_CPU_VARIANTS __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define L3_CPU_VARIANTS
#endif
