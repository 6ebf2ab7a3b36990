// gpualign — internal: line-end normalisation shared by the sequence readers.
#pragma once

#include <cstddef>
#include <cstring>

namespace gpualign::detail {

/// Rewrites chunks of a byte stream in place so that every line ends in LF:
/// CRLF becomes LF and a lone CR (classic Mac OS) becomes LF; SeqAn3 splits
/// lines at LF only. A CR at the end of a chunk is written as LF and an LF at
/// the start of the next chunk is then dropped, so the result does not depend
/// on where the stream is cut into chunks. One object per stream.
class LineEndNormalizer {
public:
    /// Normalises `n` bytes at `p` (host memory, borrowed); returns the new length (<= n).
    std::size_t operator()(char* p, std::size_t n) noexcept {
        std::size_t k = 0;
        if (pending_cr_ && n > 0 && p[0] == '\n') k = 1;
        pending_cr_ = false;
        if (k == 0 && std::memchr(p, '\r', n) == nullptr) return n;
        std::size_t out = 0;
        for (; k < n; ++k) {
            char c = p[k];
            if (c == '\r') {
                if (k + 1 < n && p[k + 1] == '\n') continue;
                if (k + 1 == n) pending_cr_ = true;
                c = '\n';
            }
            p[out++] = c;
        }
        return out;
    }

private:
    bool pending_cr_ = false;  ///< the last chunk ended in a CR (written as LF)
};

}  // namespace gpualign::detail
