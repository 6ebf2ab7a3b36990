// gpualign — a SAM output's @SQ dictionary, read from the REFS file before the
// first record, so that the SAM writer can write its header first and its
// records straight to the output (no spooled body, and SAM on stdout
// streams).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "gpualign/model/config.hpp"

namespace gpualign {

/// The distinct references of a REFS file, as the SAM header lists them
/// (SAM v1.6 §1.3, @SQ SN and LN): every record with at least one letter,
/// in file order, a name given twice listed once. Host memory: the @SQ
/// text, and each REFS record's length and name hash by its record number
/// (16 bytes a record), against which the writer checks every record.
/// Move-only; built by read_sam_references, consumed by
/// AlignmentWriter::set_references.
class SamReferences {
public:
    SamReferences();
    ~SamReferences();
    SamReferences(SamReferences&&) noexcept;
    SamReferences& operator=(SamReferences&&) noexcept;
    SamReferences(const SamReferences&) = delete;
    SamReferences& operator=(const SamReferences&) = delete;

    /// Distinct references (@SQ lines).
    std::size_t size() const noexcept;

    /// The implementation (lib/src/formats/sam_dictionary.hpp).
    struct Impl;
    Impl& impl() noexcept { return *impl_; }
    const Impl& impl() const noexcept { return *impl_; }

private:
    std::unique_ptr<Impl> impl_;
};

/// Reads the @SQ dictionary of the REFS file `path` on `threads` parser
/// threads (ParallelSequenceReader, `choice` as the run reads it), for a
/// writer to declare before any record (AlignmentWriter::set_references).
///
/// Only a plain (not compressed) regular file is read: the pairs pipeline
/// reads it once more, so a file that cannot be read twice (stdin, a pipe)
/// or that costs a second decompression gives std::nullopt. So does every
/// case the run itself must report in pair order, after the pairs before
/// it: a bad record, a name SAM does not allow (§1.2.1), a length outside
/// 1..2^31-1, a name given twice with two lengths. Stops early, with
/// std::nullopt, once `cancel` is set (the run failed). A dictionary
/// returned is exactly what the writer's own declarations would give for
/// a run that succeeds. Never throws but std::bad_alloc.
std::optional<SamReferences> read_sam_references(const std::string& path, AlphabetChoice choice, int threads,
                                                 const std::atomic<bool>& cancel);

}  // namespace gpualign
