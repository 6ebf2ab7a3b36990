// gpualign — AlignmentWriter: the format that WriterOptions names, behind one
// interface (writers.hpp); each format is a file of src/formats.
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "gpualign/formats/writers.hpp"
#include "writer_detail.hpp"

namespace gpualign {
namespace {

std::unique_ptr<AlignmentWriter::Impl> make_writer(const std::string& path, const WriterOptions& options) {
    switch (options.format) {
        case OutputFormat::blast6:
            return format_detail::make_blast6_writer(path, options);
        case OutputFormat::sam:
            return format_detail::make_sam_writer(path, options);
        case OutputFormat::paf:
            return format_detail::make_paf_writer(path, options);
        case OutputFormat::tsv:
            break;
    }
    return format_detail::make_tsv_writer(path, options);
}

}  // namespace

AlignmentWriter::AlignmentWriter(const std::string& path, const WriterOptions& options)
    : impl_(make_writer(path, options)) {}
AlignmentWriter::~AlignmentWriter() = default;
AlignmentWriter::AlignmentWriter(AlignmentWriter&&) noexcept = default;
AlignmentWriter& AlignmentWriter::operator=(AlignmentWriter&&) noexcept = default;

void AlignmentWriter::add_reference(const std::string& name, std::uint64_t length) {
    impl_->add_reference(name, length);
}
void AlignmentWriter::write(const SequenceRecord& query, const SequenceRecord& ref, const AlignmentResult& result) {
    impl_->write(view_of(query), view_of(ref), result);
}
void AlignmentWriter::write(const RecordView& query, const RecordView& ref, const AlignmentResult& result) {
    impl_->write(query, ref, result);
}
void AlignmentWriter::write_hit(const RecordView& query, const RecordView& ref, const AlignmentResult& result,
                                bool secondary) {
    impl_->write_hit(query, ref, result, secondary);
}
BatchWriteTimes AlignmentWriter::write_batch(std::span<const RecordView> queries, std::span<const RecordView> refs,
                                             std::span<const AlignmentResult> results, int threads) {
    if (queries.size() != refs.size() || queries.size() != results.size())
        throw std::invalid_argument("AlignmentWriter::write_batch: spans of different sizes");
    return impl_->write_batch(queries, refs, results, threads);
}
void AlignmentWriter::set_references(SamReferences refs) { impl_->set_references(std::move(refs)); }
void AlignmentWriter::commit() { impl_->commit(); }

}  // namespace gpualign
