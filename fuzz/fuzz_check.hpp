// Shared helpers of the fuzz targets.
#pragma once

#include <cstdio>
#include <cstdlib>

/// Fails the fuzz run (libFuzzer reports the input as a crash) when `cond`
/// is false; active in every build type, unlike assert().
#define FUZZ_CHECK(cond)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            std::abort();                                                                  \
        }                                                                                  \
    } while (0)
