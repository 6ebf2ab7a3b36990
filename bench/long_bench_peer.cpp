// gpualign_long_bench: the WFA2-lib BiWFA peer, one CPU thread in a forked
// child under a time cap (bench/long_bench.cpp, "peer").
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "long_bench.hpp"

#ifdef GPUALIGN_HAVE_WFA2
#include <bindings/cpp/WFAligner.hpp>
#endif

namespace gpualign::long_bench {
namespace {

struct PeerRecord {
    std::int64_t score;  // our score, or INT64_MIN on a WFA failure
    double seconds;
    std::int32_t status;
    std::int32_t pad;
};

#ifdef GPUALIGN_HAVE_WFA2
/// Runs in the child: BiWFA per pair, one record per pair down `fd`.
[[noreturn]] void wfa_child(int fd, const Workload& w, const Options& o, bool score_only) {
    const int M = o.match, X = o.mismatch, O = o.gap_open, E = o.gap_extend;
    wfa::WFAlignerGapAffine aligner(2 * (M + X), 2 * O, 2 * E + M,
                                    score_only ? wfa::WFAligner::Score : wfa::WFAligner::Alignment,
                                    wfa::WFAligner::MemoryUltralow);
    aligner.setHeuristicNone();
    std::string q, r;
    for (std::size_t i = 0; i < w.q.size(); ++i) {
        q.resize(w.q[i].size());
        r.resize(w.r[i].size());
        for (std::size_t k = 0; k < q.size(); ++k) q[k] = dna_letters[w.q[i][k]];
        for (std::size_t k = 0; k < r.size(); ++k) r[k] = w.r[i][k] == 3 ? 'n' : dna_letters[w.r[i][k]];
        const auto t0 = Clock::now();
        const int st = aligner.alignEnd2End(q.data(), static_cast<int>(q.size()), r.data(), static_cast<int>(r.size()));
        PeerRecord rec{};
        rec.seconds = seconds_since(t0);
        rec.status = st;
        if (st == 0) {
            // WFA2 reports the score as the negated penalty (<= 0); take |D| either way.
            const std::int64_t d = std::llabs(static_cast<long long>(aligner.getAlignmentScore()));
            const std::int64_t twice = static_cast<std::int64_t>(M) * static_cast<std::int64_t>(q.size() + r.size()) - d;
            rec.score = twice % 2 ? INT64_MIN : twice / 2;  // odd: conversion broken
        } else {
            rec.score = INT64_MIN;
        }
        const char* p = reinterpret_cast<const char*>(&rec);
        std::size_t left = sizeof rec;
        while (left) {
            const ssize_t n = ::write(fd, p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) _exit(3);
            p += n, left -= static_cast<std::size_t>(n);
        }
    }
    _exit(0);
}
#endif

}  // namespace

PeerResult run_wfa(const Workload& w, const Options& o, bool score_only) {
    PeerResult res;
#ifndef GPUALIGN_HAVE_WFA2
    (void)w, (void)o, (void)score_only;
    res.status = "error: built without WFA2";
    return res;
#else
    int fds[2];
    if (pipe(fds) != 0) {
        res.status = std::string("error: pipe: ") + std::strerror(errno);
        return res;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        res.status = std::string("error: fork: ") + std::strerror(errno);
        close(fds[0]), close(fds[1]);
        return res;
    }
    if (pid == 0) {
        close(fds[0]);
        // Die with the bench (e.g. killed by timeout(1)) rather than run on.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(4);
        wfa_child(fds[1], w, o, score_only);
    }
    close(fds[1]);
    const auto t0 = Clock::now();
    std::string buf;
    bool timed_out = false;
    for (;;) {
        const double left = o.peer_timeout_s - seconds_since(t0);
        if (left <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int pr = poll(&p, 1, static_cast<int>(std::min(left * 1000 + 1, 1e9)));
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue;  // re-checks the deadline
        char chunk[4096];
        const ssize_t n = read(fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // EOF: the child is done (or died)
        buf.append(chunk, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    if (timed_out) kill(pid, SIGKILL);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    std::int32_t wfa_fail = 0;
    for (std::size_t k = 0; k + sizeof(PeerRecord) <= buf.size(); k += sizeof(PeerRecord)) {
        PeerRecord rec;
        std::memcpy(&rec, buf.data() + k, sizeof rec);
        res.scores.push_back(rec.score);
        res.time_s += rec.seconds;
        if (rec.status != 0) wfa_fail = rec.status;
    }
    if (timed_out) {
        res.status = "timeout";
    } else if (WIFSIGNALED(wstatus)) {
        res.status = "error: child killed by signal " + std::to_string(WTERMSIG(wstatus));
    } else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        res.status = "error: child exit " + std::to_string(WEXITSTATUS(wstatus));
    } else if (wfa_fail != 0) {
        res.status = "error: WFA status " + std::to_string(wfa_fail);
    } else if (res.scores.size() != w.q.size()) {
        res.status = "error: " + std::to_string(res.scores.size()) + " of " + std::to_string(w.q.size()) + " results";
    } else {
        res.status = "ok";
    }
    return res;
#endif
}

}  // namespace gpualign::long_bench
