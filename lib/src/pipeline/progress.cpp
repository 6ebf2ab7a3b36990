// The progress line of long pairs (progress.hpp).
#include "gpualign/pipeline/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace gpualign {
namespace {

/// Gcells with three decimals below 1 Gcell (so that small pairs still move), one above.
std::string gcells(double cells, double forward) {
    return fmt::format("{:.{}f}", cells / 1e9, forward < 1e9 ? 3 : 1);
}

/// True when `out` is not a terminal (a file or pipe under --progress always).
bool line_per_update(std::FILE* out) noexcept { return out != nullptr && ::isatty(::fileno(out)) != 1; }

/// Rewrites the line on `out`: '\r', the text, and spaces over the end of a
/// longer previous line; with `lines` (not a terminal), the text and '\n'.
/// stdio, not fmt::print: a failed write to stderr must not fail the run.
/// Updates `last_width`.
void rewrite_line(std::FILE* out, const std::string& text, std::size_t& last_width, bool lines) {
    if (lines) {
        std::fputs((text + "\n").c_str(), out);
        std::fflush(out);
        return;
    }
    const std::size_t pad = last_width > text.size() ? last_width - text.size() : 0;
    const std::string line = "\r" + text + std::string(pad, ' ');
    std::fputs(line.c_str(), out);
    std::fflush(out);
    last_width = text.size();
}

}  // namespace

std::string format_progress(const std::string& label, std::uint64_t cells_done, std::uint64_t cells_forward,
                            double seconds) {
    const double forward = static_cast<double>(cells_forward);
    const double shown = std::min(static_cast<double>(cells_done), 0.99 * forward);
    const double rate = seconds > 0 ? static_cast<double>(cells_done) / seconds : 0.0;  // cells per second
    const int percent =
        forward > 0 ? static_cast<int>(std::min(99.0, std::floor(100.0 * static_cast<double>(cells_done) / forward))) : 0;
    std::string eta = "?";
    if (rate > 0) eta = fmt::format("{:.0f}s", std::max(0.0, forward - shown) / rate);
    return fmt::format("aligning {}: {} of {} Gcells ({}%), {:.1f} GCUPS, ETA {}", label, gcells(shown, forward),
                       gcells(forward, forward), percent, rate / 1e9, eta);
}

std::string format_progress_done(const std::string& label, std::uint64_t cells_done, std::uint64_t cells_forward,
                                 double seconds) {
    const double forward = static_cast<double>(cells_forward);
    const double rate = seconds > 0 ? static_cast<double>(cells_done) / seconds : 0.0;
    return fmt::format("aligning {}: {} of {} Gcells (100%), {:.1f} GCUPS, done in {:.1f}s", label,
                       gcells(forward, forward), gcells(forward, forward), rate / 1e9, seconds);
}

std::string format_run_progress(std::uint64_t pairs, std::uint64_t cells, double seconds) {
    const double c = static_cast<double>(cells);
    const double rate = seconds > 0 ? c / seconds : 0.0;
    return fmt::format("aligned {} {}, {} Gcells, {:.1f} GCUPS, {:.1f}s", pairs, pairs == 1 ? "pair" : "pairs", gcells(c, c), rate / 1e9, seconds);
}

RunProgress::RunProgress(std::FILE* out, bool enabled, double delay_s, double period_s) noexcept
    : out_(out), enabled_(enabled && out != nullptr), delay_s_(delay_s), period_s_(period_s), start_(Clock::now()),
      lines_(line_per_update(out)) {}

void RunProgress::update(std::uint64_t pairs, std::uint64_t cells) {
    if (!enabled_) return;
    pairs_ = pairs;
    cells_ = cells;
    const Clock::time_point now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < delay_s_) return;
    if (shown_ && std::chrono::duration<double>(now - last_).count() < period_s_) return;
    write(elapsed);
    last_ = now;
}

void RunProgress::finish() {
    if (!enabled_ || !shown_) return;
    if (!lines_ || written_pairs_ != pairs_ || written_cells_ != cells_)
        write(std::chrono::duration<double>(Clock::now() - start_).count());
    if (!lines_) std::fputc('\n', out_);
    std::fflush(out_);
    shown_ = false;
}

void RunProgress::write(double elapsed) {
    rewrite_line(out_, format_run_progress(pairs_, cells_, elapsed), last_width_, lines_);
    written_pairs_ = pairs_;
    written_cells_ = cells_;
    shown_ = true;
}

ProgressLine::ProgressLine(std::FILE* out, bool enabled, double delay_s, double period_s) noexcept
    : out_(out), enabled_(enabled && out != nullptr), delay_s_(delay_s), period_s_(period_s),
      lines_(line_per_update(out)) {}

void ProgressLine::begin(std::string label, std::uint64_t cells_forward) {
    if (!enabled_) return;
    label_ = std::move(label);
    forward_ = cells_forward;
    done_ = 0;
    active_ = true;
    shown_ = false;
    last_width_ = 0;
    start_ = Clock::now();
}

void ProgressLine::update(std::uint64_t cells_done, std::uint64_t cells_forward) {
    if (!enabled_ || !active_) return;
    done_ = cells_done;
    if (cells_forward) forward_ = cells_forward;
    const Clock::time_point now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < delay_s_) return;
    if (shown_ && std::chrono::duration<double>(now - last_).count() < period_s_) return;
    write_line(format_progress(label_, done_, forward_, elapsed));
    last_ = now;
    shown_ = true;
}

void ProgressLine::end(bool succeeded) {
    if (!enabled_ || !active_) return;
    active_ = false;
    if (!shown_) return;
    if (succeeded)
        write_line(format_progress_done(label_, std::max(done_, forward_), forward_,
                                        std::chrono::duration<double>(Clock::now() - start_).count()));
    if (!lines_) std::fputc('\n', out_);
    std::fflush(out_);
}

void ProgressLine::write_line(const std::string& text) { rewrite_line(out_, text, last_width_, lines_); }

}  // namespace gpualign
