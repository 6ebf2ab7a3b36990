// gpualign — the exceptions of the I/O layer (sequence_io, matrix, writers).
#pragma once

#include <stdexcept>
#include <string>

namespace gpualign {

/// Bad input: a sequence file (FASTA/FASTQ) or a substitution matrix file.
///
/// what() is a complete sentence for the user. It names the file ('-' is
/// written as "<stdin>") and, where they apply, the record number (1-based,
/// in file order), the record name, the 1-based position of the offending
/// character in the sequence, or the 1-based line of a matrix file.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// An output failure: the file cannot be created, written, flushed, closed
/// or renamed (disk full, permission denied, /dev/full, ...), or a record
/// cannot be represented in the output format. what() names the output path
/// ("<stdout>" for '-') and the system error where there is one.
class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The display name of a path in messages: "<stdin>" for "-", else the path.
inline std::string display_path(const std::string& path) { return path == "-" ? std::string("<stdin>") : path; }

}  // namespace gpualign
