// gpualign — substitution matrices (SeqAn3 BLOSUM, NCBI-format files).
#include "gpualign/io/matrix.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <seqan3/alignment/scoring/aminoacid_scoring_scheme.hpp>
#include <seqan3/alphabet/aminoacid/aa27.hpp>

namespace gpualign {
namespace {

struct Builtin {
    const char* name;
    seqan3::aminoacid_similarity_matrix id;
};
constexpr std::array<Builtin, 4> builtins{{
    {"BLOSUM30", seqan3::aminoacid_similarity_matrix::blosum30},
    {"BLOSUM45", seqan3::aminoacid_similarity_matrix::blosum45},
    {"BLOSUM62", seqan3::aminoacid_similarity_matrix::blosum62},
    {"BLOSUM80", seqan3::aminoacid_similarity_matrix::blosum80},
}};

char upper(char c) noexcept { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (upper(a[i]) != upper(b[i])) return false;
    return true;
}

const Builtin* find_builtin(std::string_view name) noexcept {
    for (const auto& b : builtins)
        if (iequals(name, b.name)) return &b;
    return nullptr;
}

/// The letters of our codes in code order (aa27 ranks, or dna_code_letters).
std::string alphabet_letters(Alphabet a, DnaCodes codes) {
    std::string out;
    if (a == Alphabet::protein) {
        for (std::size_t r = 0; r < seqan3::aa27::alphabet_size; ++r) out += seqan3::aa27{}.assign_rank(r).to_char();
    } else {
        out = dna_code_letters.substr(0, static_cast<std::size_t>(alphabet_size(a, codes)));
    }
    return out;
}

/// The IUPAC ambiguity letters that DnaCodes::iupac codes (all but N).
constexpr std::string_view iupac_ambiguity_letters = dna_code_letters.substr(5);

/// Whether a (capitalised) matrix-file letter is meaningful for the alphabet.
bool known_letter(Alphabet a, char c) noexcept {
    if (a == Alphabet::protein) return (c >= 'A' && c <= 'Z') || c == '*';
    return c == 'U' || dna_code_letters.find(c) != std::string_view::npos;
}

std::vector<std::string_view> split_blanks(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
    while (i < line.size()) {
        while (i < line.size() && blank(line[i])) ++i;
        const std::size_t start = i;
        while (i < line.size() && !blank(line[i])) ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

}  // namespace

std::vector<std::string> builtin_matrix_names() {
    std::vector<std::string> out;
    for (const auto& b : builtins) out.emplace_back(b.name);
    return out;
}

bool is_builtin_matrix(std::string_view name) noexcept { return find_builtin(name) != nullptr; }

ScoringScheme make_protein_scheme(const std::string& name_or_path, std::int32_t gap_open, std::int32_t gap_extend) {
    return make_matrix_scheme(name_or_path, Alphabet::protein, gap_open, gap_extend);
}

ScoringScheme make_matrix_scheme(const std::string& name_or_path, Alphabet alphabet, std::int32_t gap_open,
                                 std::int32_t gap_extend) {
    if (const Builtin* b = find_builtin(name_or_path)) {
        if (alphabet != Alphabet::protein)
            throw std::invalid_argument(fmt::format("{} is a protein matrix; the dna alphabet needs --match/--mismatch "
                                                    "or a nucleotide matrix file",
                                                    b->name));
        const seqan3::aminoacid_scoring_scheme<std::int8_t> seqan_scheme{b->id};
        ScoringScheme s;
        s.alphabet = Alphabet::protein;
        s.size = alphabet_size(Alphabet::protein);
        s.matrix.resize(static_cast<std::size_t>(s.size) * static_cast<std::size_t>(s.size));
        for (int q = 0; q < s.size; ++q)
            for (int r = 0; r < s.size; ++r)
                s.matrix[static_cast<std::size_t>(q * s.size + r)] = seqan_scheme.score(
                    seqan3::aa27{}.assign_rank(static_cast<std::size_t>(q)), seqan3::aa27{}.assign_rank(static_cast<std::size_t>(r)));
        s.gap_open = gap_open;
        s.gap_extend = gap_extend;
        s.matrix_name = b->name;
        s.validate();
        return s;
    }
    std::error_code ec;
    if (std::filesystem::is_directory(name_or_path, ec))
        throw InputError(fmt::format("{}: is a directory, not a matrix file", name_or_path));
    if (!std::filesystem::exists(name_or_path, ec))
        throw InputError(fmt::format("{}: no such matrix file (built-in matrices: {})", name_or_path,
                                     fmt::join(builtin_matrix_names(), ", ")));
    std::ifstream in(name_or_path);
    if (!in) throw InputError(fmt::format("{}: cannot open the matrix file", name_or_path));
    return parse_matrix(in, name_or_path, alphabet, gap_open, gap_extend);
}

ScoringScheme parse_matrix(std::istream& in, const std::string& source, Alphabet alphabet, std::int32_t gap_open,
                           std::int32_t gap_extend) {
    const auto fail = [&](std::size_t line_no, std::string_view what) -> void {
        throw InputError(fmt::format("{}:{}: {}", source, line_no, what));
    };
    const auto letter_of = [&](std::size_t line_no, std::string_view token, const char* where) -> char {
        if (token.size() != 1)
            fail(line_no, fmt::format("{} '{}' is not a single letter", where, token));
        const char c = upper(token[0]);
        if (!known_letter(alphabet, c))
            fail(line_no, fmt::format("unknown letter '{}' in the {} for the {} alphabet", token[0], where,
                                      to_string(alphabet)));
        return c;
    };

    std::string header_letters;               // columns, capitalised
    std::map<char, std::vector<std::int32_t>> rows;
    std::string line;
    std::size_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        const auto tokens = split_blanks(line);
        if (tokens.empty() || tokens.front().front() == '#') continue;
        if (header_letters.empty()) {
            for (std::string_view t : tokens) {
                const char c = letter_of(line_no, t, "header");
                if (header_letters.find(c) != std::string::npos)
                    fail(line_no, fmt::format("duplicate letter '{}' in the header", c));
                header_letters += c;
            }
            continue;
        }
        const char row = letter_of(line_no, tokens.front(), "row label");
        if (header_letters.find(row) == std::string::npos)
            fail(line_no, fmt::format("row letter '{}' is not in the header", row));
        if (rows.contains(row)) fail(line_no, fmt::format("duplicate row '{}'", row));
        if (tokens.size() - 1 != header_letters.size())
            fail(line_no, fmt::format("matrix is not square: row '{}' has {} values, the header has {} letters", row,
                                      tokens.size() - 1, header_letters.size()));
        std::vector<std::int32_t> values;
        for (std::size_t k = 1; k < tokens.size(); ++k) {
            std::int32_t v = 0;
            const auto t = tokens[k];
            const auto [ptr, err] = std::from_chars(t.data() + (t.front() == '+' ? 1 : 0), t.data() + t.size(), v);
            if (err != std::errc{} || ptr != t.data() + t.size())
                fail(line_no, fmt::format("entry '{}' (row '{}', column '{}') is not an integer", t, row,
                                          header_letters[k - 1]));
            if (v > 1'000'000 || v < -1'000'000)
                fail(line_no, fmt::format("entry {} (row '{}', column '{}') is out of range [-1000000, 1000000]", v,
                                          row, header_letters[k - 1]));
            values.push_back(v);
        }
        rows.emplace(row, std::move(values));
    }
    if (in.bad()) fail(line_no, "read error");
    if (header_letters.empty()) fail(line_no, "empty matrix file (no header row of letters)");
    if (rows.size() != header_letters.size()) {
        std::string missing;
        for (char c : header_letters)
            if (!rows.contains(c)) missing += c;
        fail(line_no, fmt::format("matrix is not square: {} columns but {} rows (no row for '{}')",
                                  header_letters.size(), rows.size(), missing));
    }

    // A DNA file with a row for an IUPAC ambiguity letter keeps them: its
    // sequences are coded with DnaCodes::iupac.
    const DnaCodes codes =
        alphabet == Alphabet::dna && header_letters.find_first_of(iupac_ambiguity_letters) != std::string::npos
            ? DnaCodes::iupac
            : DnaCodes::dna5;
    // Which file letter supplies each of our codes; 0: none (undefined).
    const std::string ours = alphabet_letters(alphabet, codes);
    const char fallback = alphabet == Alphabet::protein ? 'X' : 'N';
    std::string source_letter;
    for (char c : ours) {
        char pick = 0;
        if (header_letters.find(c) != std::string::npos)
            pick = c;
        else if (alphabet == Alphabet::dna && c == 'T' && header_letters.find('U') != std::string::npos)
            pick = 'U';
        else if (header_letters.find(fallback) != std::string::npos)
            pick = fallback;
        source_letter += pick;
    }

    ScoringScheme s;
    s.alphabet = alphabet;
    s.dna_codes = codes;
    s.size = alphabet_size(alphabet, codes);
    s.matrix.resize(static_cast<std::size_t>(s.size) * static_cast<std::size_t>(s.size));
    std::int32_t lowest = 0;
    for (const auto& [letter, row] : rows)
        for (const std::int32_t v : row) lowest = std::min(lowest, v);
    for (int q = 0; q < s.size; ++q) {
        const char qs = source_letter[static_cast<std::size_t>(q)];
        if (qs == 0) s.undefined_codes |= std::uint64_t{1} << q;
        for (int r = 0; r < s.size; ++r) {
            const char rs = source_letter[static_cast<std::size_t>(r)];
            s.matrix[static_cast<std::size_t>(q * s.size + r)] =
                qs == 0 || rs == 0 ? lowest : rows.at(qs)[header_letters.find(rs)];
        }
    }
    s.gap_open = gap_open;
    s.gap_extend = gap_extend;
    s.matrix_name = source;
    s.validate();
    return s;
}

void check_letters(const ScoringScheme& s, const RecordView& record, const std::string& file) {
    if (s.undefined_codes == 0) return;
    for (std::size_t k = 0; k < record.codes.size(); ++k) {
        const std::uint8_t code = record.codes[k];
        if (code < 64 && (s.undefined_codes >> code & 1))
            throw InputError(fmt::format("{}: record {} '{}': letter '{}' at position {} is not in matrix {} (it has no "
                                         "row for it, nor an {} row to stand in)",
                                         display_path(file), record.number, record.name,
                                         k < record.sequence.size() ? record.sequence[k] : '?', k + 1, s.matrix_name,
                                         s.alphabet == Alphabet::protein ? 'X' : 'N'));
    }
}

}  // namespace gpualign
