// Coverage feedback for libFuzzer from code compiled by GCC.
//
// SeqAn3 3.2 (Debian 12) does not compile with clang 14 or 16, so gpualign
// and the fuzz targets are compiled by g++ and only linked by clang++ with
// -fsanitize=fuzzer (see fuzz/CMakeLists.txt). GCC's coverage
// instrumentation is -fsanitize-coverage=trace-pc (one call per basic block)
// and trace-cmp; libFuzzer takes the trace-cmp callbacks as they are but
// rejects trace-pc at run time. The link renames GCC's calls
// (-Wl,--wrap=__sanitizer_cov_trace_pc) to the function below, which counts
// each basic block in an inline 8-bit counter table registered with
// libFuzzer's documented SanitizerCoverage interface
// (__sanitizer_cov_8bit_counters_init / __sanitizer_cov_pcs_init), so
// libFuzzer sees basic-block coverage as from clang's inline-8bit-counters.
// Blocks are hashed into 2^18 slots by address; a collision only merges two
// blocks' counters. GCC's trace-cmp also reports floating-point compares
// (__sanitizer_cov_trace_cmpf/cmpd), which libFuzzer does not define; they
// are ignored here.
#include <cstddef>
#include <cstdint>

extern "C" void __sanitizer_cov_8bit_counters_init(std::uint8_t* begin, std::uint8_t* end);
extern "C" void __sanitizer_cov_pcs_init(const std::uintptr_t* begin, const std::uintptr_t* end);

namespace {

constexpr unsigned slot_bits = 18;
constexpr std::size_t slots = std::size_t{1} << slot_bits;

std::uint8_t counters[slots];
// libFuzzer's PC table: {pc, flags} per counter; a slot's pc is filled when it is first hit.
std::uintptr_t pc_table[2 * slots];

struct Registration {
    Registration() {
        __sanitizer_cov_8bit_counters_init(counters, counters + slots);
        __sanitizer_cov_pcs_init(pc_table, pc_table + 2 * slots);
    }
} registration;

}  // namespace

extern "C" __attribute__((no_sanitize_coverage, no_sanitize("address", "undefined"))) void
__wrap___sanitizer_cov_trace_pc() {
    const auto pc = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
    const std::size_t slot = static_cast<std::size_t>((pc * 0x9E3779B97F4A7C15ull) >> (64 - slot_bits));
    pc_table[2 * slot] = pc;
    ++counters[slot];
}

extern "C" __attribute__((no_sanitize_coverage)) void __sanitizer_cov_trace_cmpf(float, float) {}
extern "C" __attribute__((no_sanitize_coverage)) void __sanitizer_cov_trace_cmpd(double, double) {}
