// gpualign — the progress line of long pairs: one line on stderr, rewritten
// in place ('\r') while a long pair aligns, fed by the ProgressCallback of
// the long-pair paths (LongAlignOptions, gpu::LongEngineOptions). On a
// stream that is not a terminal (--progress always into a file), each update
// is a line of its own instead, ending in '\n', and no line is repeated.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace gpualign {

/// The text of one progress line (no '\r', no newline):
/// "aligning LABEL: X.X of Y.Y Gcells (P%), Z.Z GCUPS, ETA Ts".
///
/// @param label          e.g. "pair 3 (read7 x chr1)".
/// @param cells_done     cells computed so far, every pass (forward and
///                       traceback recomputation), so it may exceed
///                       cells_forward.
/// @param cells_forward  the forward pass's cells (query_len * ref_len).
/// @param seconds        time since the pair started.
/// The cells shown are min(cells_done, 99% of cells_forward) (the pair is not
/// done until its traceback is); GCUPS is cells_done / seconds; the ETA is
/// the forward cells not yet shown at that rate. Gcells get three decimals
/// below 1 Gcell, one above.
std::string format_progress(const std::string& label, std::uint64_t cells_done, std::uint64_t cells_forward,
                            double seconds);

/// The closing text of a pair whose line was shown:
/// "aligning LABEL: Y.Y of Y.Y Gcells (100%), Z.Z GCUPS, done in T.Ts"
/// (GCUPS over every pass).
std::string format_progress_done(const std::string& label, std::uint64_t cells_done, std::uint64_t cells_forward,
                                 double seconds);

/// The text of a batch run's progress line (no '\r', no newline):
/// "aligned N pairs, X.X Gcells, Y.Y GCUPS, T.Ts" (three decimals of Gcells
/// below 1 Gcell). The total of a FASTA run is not known ahead (records are
/// read as they stream), so the line has no ETA; a long pair's own line has.
std::string format_run_progress(std::uint64_t pairs, std::uint64_t cells, double seconds);

/// The progress line of a whole batch run (`gpualign sw|nw`): updated after
/// each batch is aligned, shown once the run has taken `delay_s` seconds,
/// rewritten at most every `period_s`; finish() writes the last figures and
/// a newline when the line was shown. A disabled reporter writes nothing.
/// Not thread-safe: one thread (the pipeline's aligning thread) calls it, the
/// same thread that drives the long-pair ProgressLine, so the two never
/// interleave.
class RunProgress {
public:
    using Clock = std::chrono::steady_clock;
    /// @param out  the stream (borrowed; stderr in the CLI).
    RunProgress(std::FILE* out, bool enabled, double delay_s, double period_s) noexcept;
    /// Cumulative pairs and DP cells aligned so far.
    void update(std::uint64_t pairs, std::uint64_t cells);
    /// Closes the line (final figures, newline) if it was shown.
    void finish();

private:
    void write(double elapsed);
    std::FILE* out_;
    bool enabled_;
    double delay_s_, period_s_;
    Clock::time_point start_, last_{};
    std::uint64_t pairs_ = 0, cells_ = 0;
    std::uint64_t written_pairs_ = 0, written_cells_ = 0;  // the figures of the last line written
    bool shown_ = false;
    bool lines_ = false;  // not a terminal: one line per update
    std::size_t last_width_ = 0;
};

/// Writes the progress line of one long pair at a time to a stream (stderr).
///
/// Nothing is written until a pair has run `delay_s` seconds; then the line
/// is rewritten with '\r' at most every `period_s` seconds, and end() closes
/// it with a newline. A disabled reporter writes nothing. Not thread-safe:
/// begin, update and end are called on one thread (the long-pair paths call
/// their ProgressCallback on the calling thread).
class ProgressLine {
public:
    using Clock = std::chrono::steady_clock;

    /// @param out      the stream (borrowed; stderr in the CLI).
    /// @param enabled  false: every call does nothing.
    /// @param delay_s  seconds a pair runs before its line first appears (>= 0).
    /// @param period_s least seconds between two rewrites (>= 0).
    ProgressLine(std::FILE* out, bool enabled, double delay_s, double period_s) noexcept;

    bool enabled() const noexcept { return enabled_; }

    /// Starts a pair: `label` names it in the line (e.g. "pair 3 (read7 x chr1)").
    void begin(std::string label, std::uint64_t cells_forward);
    /// The pair's progress (a ProgressCallback): prints when due.
    void update(std::uint64_t cells_done, std::uint64_t cells_forward);
    /// Ends the pair. If its line was shown: with `succeeded`, rewrites it one
    /// last time ("done in T.Ts"); then a newline either way, so that what
    /// follows (an error message) starts on its own line.
    void end(bool succeeded);
    /// Whether the current (or last) pair's line was shown.
    bool shown() const noexcept { return shown_; }

private:
    void write_line(const std::string& text);

    std::FILE* out_;
    bool enabled_;
    double delay_s_, period_s_;
    bool active_ = false, shown_ = false;
    std::string label_;
    std::uint64_t forward_ = 0, done_ = 0;
    Clock::time_point start_{}, last_{};
    std::size_t last_width_ = 0;
    bool lines_ = false;  // not a terminal: one line per update
};

}  // namespace gpualign
