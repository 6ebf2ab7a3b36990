// reader_bench — FASTA parsing throughput on the host (no GPU needed).
//
//   reader_bench [--no-seqan3] FILE [THREADS...]
//
// For each thread count: ParallelSequenceReader (1 MiB blocks, the hot-path
// block parser with SeqAn3 where it declines, as the pipeline reads)
// draining FILE with fill()/take_blocks() in batches of 32,768 records; and
// once, single-threaded, a bare SeqAn3 sequence_file_input loop over the same
// file (no encoding, no copies), the reference parser's own ceiling (skipped
// with --no-seqan3). File bytes (uncompressed as stored) and letters per
// second of wall time, median of 3 runs after one warm-up (the file is then
// in the page cache).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <seqan3/io/sequence_file/input.hpp>

#include "gpualign/io/parallel_reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median3(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// Letters read by draining `path` through ParallelSequenceReader.
std::size_t drain(const std::string& path, int threads) {
    gpualign::ParallelSequenceReader reader(path, gpualign::AlphabetChoice::dna, threads);
    std::size_t letters = 0;
    std::vector<std::shared_ptr<const gpualign::RecordBlock>> blocks;
    while (true) {
        reader.fill(32768, std::size_t{1} << 62);
        blocks.clear();
        if (reader.take_blocks(blocks) == 0) break;
        for (const auto& b : blocks) letters += b->bases();
    }
    return letters;
}

struct CharTraits : seqan3::sequence_file_input_default_traits_dna {
    using sequence_alphabet = char;
    using sequence_legal_alphabet = char;
    template <typename Alph>
    using sequence_container = std::basic_string<Alph>;
};

std::size_t bare_seqan3(const std::string& path) {
    seqan3::sequence_file_input<CharTraits, seqan3::fields<seqan3::field::id, seqan3::field::seq>> in{path};
    std::size_t letters = 0;
    for (auto& rec : in) letters += rec.sequence().size();
    return letters;
}

template <typename F>
void time_it(const char* label, std::size_t file_bytes, F&& f) {
    f();  // warm-up
    std::vector<double> s;
    std::size_t letters = 0;
    for (int k = 0; k < 3; ++k) {
        const auto t0 = Clock::now();
        letters = f();
        s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    const double t = median3(s);
    std::printf("%-32s %12zu letters %8.3f s %8.1f MB/s of file %8.1f MB/s of letters\n", label, letters, t,
                static_cast<double>(file_bytes) / t / 1e6, static_cast<double>(letters) / t / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
    int first = 1;
    const bool seqan3_too = !(argc > 1 && std::string(argv[1]) == "--no-seqan3");
    if (!seqan3_too) ++first;
    if (argc <= first) {
        std::fprintf(stderr, "usage: reader_bench [--no-seqan3] FILE [THREADS...]\n");
        return 2;
    }
    const std::string path = argv[first];
    std::vector<int> threads;
    for (int i = first + 1; i < argc; ++i) threads.push_back(std::max(1, std::atoi(argv[i])));
    if (threads.empty()) threads = {1};
    try {
        std::error_code ec;
        const auto file_bytes = static_cast<std::size_t>(std::filesystem::file_size(path, ec));
        if (seqan3_too) time_it("bare SeqAn3, 1 thread", file_bytes, [&] { return bare_seqan3(path); });
        for (int t : threads) {
            const std::string label = "ParallelSequenceReader, " + std::to_string(t) + " thr";
            time_it(label.c_str(), file_bytes, [&] { return drain(path, t); });
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "reader_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
