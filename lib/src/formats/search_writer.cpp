// The output of `gpualign search` (search_writer.hpp).
#include "gpualign/formats/search_writer.hpp"

#include "gpualign/model/alignment.hpp"
#include "gpualign/model/statistics.hpp"

namespace gpualign {
namespace {

std::string evalue_text(const SearchHit& h) { return h.evalue ? format_evalue(*h.evalue) : std::string("NA"); }
std::string bits_text(const SearchHit& h) { return h.bits ? format_bit_score(*h.bits) : std::string("NA"); }

}  // namespace

SearchWriter::SearchWriter(const std::string& path, const WriterOptions& options, std::span<const RecordView> db)
    : format_(options.format), cigar_m_(options.sam_cigar_m) {
    if (format_ == OutputFormat::sam) {
        sam_ = std::make_unique<AlignmentWriter>(path, options);
        for (const RecordView& r : db) sam_->add_reference(std::string(r.name), r.sequence.size());
        return;
    }
    text_ = std::make_unique<OutputFile>(path);
    if (format_ == OutputFormat::tsv) {
        text_->write(search_tsv_header);
        text_->write("\n");
    }
}

SearchWriter::~SearchWriter() = default;

void SearchWriter::write(const RecordView& query, const RecordView& target, const SearchHit& hit) {
    const bool secondary = any_written_ && query.number == last_query_;
    any_written_ = true;
    last_query_ = query.number;
    if (sam_) {
        sam_->write_hit(query, target, hit.result, secondary);
        return;
    }
    std::string line;
    if (format_ == OutputFormat::tsv) {
        line = tsv_line(query, target, hit.result, cigar_m_);
        line += '\t' + evalue_text(hit) + '\t' + bits_text(hit) + '\t' + strand_char(hit.result.strand);
    } else {
        line = blast6_line(query, target, hit.result, hit.evalue, hit.bits);
    }
    line += '\n';
    text_->write(line);
}

void SearchWriter::commit() {
    if (sam_)
        sam_->commit();
    else
        text_->commit();
}

}  // namespace gpualign
