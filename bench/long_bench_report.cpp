// gpualign_long_bench: measurements of the host (RSS, clocks) and the report
// (the table on stdout, the CSV rows).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "long_bench.hpp"

namespace gpualign::long_bench {

double median(std::vector<double> v) {
    if (v.empty()) return std::nan("");
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double peak_rss_mib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

double current_rss_mib() {
    std::ifstream in("/proc/self/statm");
    std::size_t size = 0, resident = 0;
    in >> size >> resident;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string fmt(double v, const char* f) {
    if (std::isnan(v)) return "-";
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

double gcups(double cells, double seconds) { return seconds > 0 ? cells / seconds / 1e9 : std::nan(""); }

const char* csv_header =
    "date,device,workload,mode,output,query_len,ref_len,pairs,forward_ms,total_ms,wall_s,forward_gcups,total_gcups,"
    "wall_gcups,peak_gpu_mib,host_rss_mib,peer,peer_time_s,peer_score,match,"
    "cells,total_cells,runs,gpu_status,check,score,peer_status,cpu_time_s,cpu_gcups,cpu_match\n";

namespace {

std::string csv_quote(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string o = "\"";
    for (char c : s) {
        if (c == '"') o += '"';
        o += c;
    }
    return o + '"';
}

}  // namespace

void write_csv_row(std::ofstream& out, const std::string& date, const std::string& device, const Row& r) {
    auto num = [](double v, const char* f = "%.6g") { return std::isnan(v) ? std::string() : fmt(v, f); };
    const std::string match = r.peer_match != "-" ? r.peer_match : r.cpu_match;
    out << date << ',' << csv_quote(device) << ',' << r.workload << ',' << r.mode << ',' << r.output << ',' << r.qlen
        << ',' << r.rlen << ',' << r.pairs << ',' << num(r.fwd_ms, "%.3f") << ',' << num(r.total_ms, "%.3f") << ','
        << num(r.wall_s, "%.6f") << ',' << num(gcups(r.cells, r.fwd_ms * 1e-3), "%.2f") << ','
        << num(gcups(r.cells, r.total_ms * 1e-3), "%.2f") << ',' << num(gcups(r.cells, r.wall_s), "%.2f") << ','
        << num(r.peak_gpu_mib, "%.1f") << ',' << fmt(r.rss_mib, "%.1f") << ',' << r.peer << ','
        << num(r.peer_time_s, "%.3f") << ',' << r.peer_score << ',' << match << ',' << fmt(r.cells, "%.0f") << ','
        << num(r.total_cells, "%.0f") << ',' << r.runs << ',' << csv_quote(r.gpu) << ',' << csv_quote(r.check) << ','
        << (r.have_score ? std::to_string(r.score) : std::string()) << ',' << csv_quote(r.peer_status)
        << ',' << num(r.cpu_s, "%.3f") << ',' << num(gcups(r.cells, r.cpu_s), "%.2f") << ',' << r.cpu_match << '\n';
    out.flush();
}

void print_row(const Row& r) {
    std::printf("%-9s %-6s %-10s %8s %8s %8s %9s %8s %8s %6s | %-7s %8s %-9s | %8s %-8s\n", r.workload.c_str(),
                r.mode.c_str(), r.output.c_str(), fmt(gcups(r.cells, r.fwd_ms * 1e-3), "%.1f").c_str(),
                fmt(gcups(r.cells, r.total_ms * 1e-3), "%.1f").c_str(), fmt(gcups(r.cells, r.wall_s), "%.1f").c_str(),
                fmt(r.wall_s, "%.3f").c_str(), fmt(r.peak_gpu_mib, "%.0f").c_str(), fmt(r.rss_mib, "%.0f").c_str(),
                r.check == "ok" ? "ok" : r.check == "-" ? "-" : "BAD", r.peer == "-" ? "-" : "wfa2",
                fmt(r.peer_time_s, "%.2f").c_str(), r.peer_match.c_str(), fmt(r.cpu_s, "%.2f").c_str(),
                r.cpu_match.c_str());
}

void print_header() {
    std::printf("%-9s %-6s %-10s %8s %8s %8s %9s %8s %8s %6s | %-7s %8s %-9s | %8s %-8s\n", "workload", "mode", "output",
                "fwdGCUPS", "totGCUPS", "wallGCUP", "wall s", "GPU MiB", "RSS MiB", "check", "peer", "peer s",
                "peer cmp", "cpu s", "cpu cmp");
}

}  // namespace gpualign::long_bench
