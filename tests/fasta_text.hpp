// gpualign tests — FASTA text for CLI tests on both backends: seeded random
// DNA and related copies, and a file's records as text. Standard library only.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace gpualign::test {

/// Random DNA text (A, C, G, T) of `len` letters, from `rng`.
inline std::string random_dna(std::mt19937_64& rng, std::size_t len) {
    std::string s(len, 'A');
    for (char& c : s) c = "ACGT"[rng() % 4];
    return s;
}

/// `s` with about `rate` of its positions edited (substitutions, insertions
/// and deletions in equal parts), from `rng`: a related sequence, so that
/// the path is long and crosses many checkpoint tiles.
inline std::string mutate(std::mt19937_64& rng, const std::string& s, double rate) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::string out;
    for (char c : s) {
        if (u(rng) >= rate) {
            out += c;
            continue;
        }
        const double kind = u(rng);
        if (kind < 1.0 / 3) out += "ACGT"[rng() % 4];
        else if (kind < 2.0 / 3) out += std::string(1, "ACGT"[rng() % 4]) + c;
        // else: deleted
    }
    return out;
}

/// The records of a FASTA file as text, each with its header line and
/// newline-terminated lines (so that each can be written to a file of its own).
inline std::vector<std::string> fasta_records(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<std::string> records;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '>') records.emplace_back();
        if (!records.empty()) records.back() += line + '\n';
    }
    return records;
}

}  // namespace gpualign::test
