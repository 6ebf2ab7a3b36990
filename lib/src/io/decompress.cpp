// gpualign — internal: decompressing input (decompress.hpp).
#include "decompress.hpp"

#include <bzlib.h>
#include <fcntl.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpualign/io/io_error.hpp"

namespace gpualign::detail {

const char* to_string(Compression c) noexcept {
    switch (c) {
        case Compression::gzip: return "gzip";
        case Compression::bzip2: return "bzip2";
        case Compression::xz: return "xz";
        case Compression::zstd: return "zstd";
        case Compression::none: break;
    }
    return "none";
}

namespace {

using namespace std::string_view_literals;

bool starts_with(const unsigned char* p, std::size_t n, std::string_view magic) noexcept {
    return n >= magic.size() && std::memcmp(p, magic.data(), magic.size()) == 0;
}

/// A recognised format that is not read: its name and the command that
/// decompresses it to stdout.
struct Unsupported {
    std::string_view magic, name, command;
};
constexpr Unsupported unsupported[] = {
    {"\x04\x22\x4d\x18"sv, "lz4", "lz4 -dc"},
    {"PK\x03\x04"sv, "zip", "unzip -p"},
    {"7z\xbc\xaf\x27\x1c"sv, "7z", "7z x -so"},
    {"\x1f\x9d"sv, "Unix compress (.Z)", "gzip -dc"},
    {"\x5d\x00\x00"sv, "lzma", "xz -dc --format=lzma"},
};

}  // namespace

struct DecompressingInput::Impl {
    int fd = -1;
    Compression kind = Compression::none;
    std::vector<unsigned char> in = std::vector<unsigned char>(128 * 1024);
    std::size_t in_pos = 0, in_len = 0;
    bool in_eof = false;
    bool done = false;
    bool member_done = false;  // gzip / bzip2: the current member (stream) has ended
    std::string failure;
    z_stream z{};
    bz_stream bz{};
    lzma_stream xz = LZMA_STREAM_INIT;
    ZSTD_DCtx* zs = nullptr;
    std::size_t zstd_left = 0;  // ZSTD_decompressStream's last hint: 0 when a frame is complete

    ~Impl() {
        if (kind == Compression::gzip) inflateEnd(&z);
        if (kind == Compression::bzip2) BZ2_bzDecompressEnd(&bz);
        if (kind == Compression::xz) lzma_end(&xz);
        if (zs) ZSTD_freeDCtx(zs);
        if (fd >= 0) ::close(fd);
    }

    /// Reads more input after the unread bytes; false at the end of the file or on a read error.
    bool fill() {
        if (in_eof) return false;
        if (in_pos > 0) {
            std::memmove(in.data(), in.data() + in_pos, in_len - in_pos);
            in_len -= in_pos;
            in_pos = 0;
        }
        if (in_len == in.size()) return true;
        for (;;) {
            const ssize_t got = ::read(fd, in.data() + in_len, in.size() - in_len);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) {
                failure = fmt::format("read error: {}", std::strerror(errno));
                in_eof = true;
                return false;
            }
            if (got == 0) {
                in_eof = true;
                return false;
            }
            in_len += static_cast<std::size_t>(got);
            return true;
        }
    }
    std::size_t avail() const noexcept { return in_len - in_pos; }

    void truncated() { failure = fmt::format("truncated {} stream (unexpected end of file inside compressed data)", to_string(kind)); }
    void corrupt(std::string_view why) { failure = fmt::format("corrupt {} stream: {}", to_string(kind), why); }

    /// gzip / bzip2: after a member, true when another one starts (its magic
    /// follows); else the data has ended (trailing bytes are ignored).
    bool next_member(std::string_view magic) {
        while (avail() < magic.size() && fill()) {}
        if (!failure.empty()) return false;
        return starts_with(in.data() + in_pos, avail(), magic);
    }

    std::size_t read(char* out, std::size_t n) {
        if (done || !failure.empty() || n == 0) return 0;
        switch (kind) {
            case Compression::none: return read_plain(out, n);
            case Compression::gzip: return read_gzip(out, n);
            case Compression::bzip2: return read_bzip2(out, n);
            case Compression::xz: return read_xz(out, n);
            case Compression::zstd: return read_zstd(out, n);
        }
        return 0;
    }

    std::size_t read_plain(char* out, std::size_t n) {
        if (avail() == 0 && !fill()) {
            done = true;
            return 0;
        }
        const std::size_t k = std::min(n, avail());
        std::memcpy(out, in.data() + in_pos, k);
        in_pos += k;
        return k;
    }

    std::size_t read_gzip(char* out, std::size_t n) {
        for (;;) {
            if (member_done) {
                if (!next_member("\x1f\x8b")) {
                    done = true;
                    return 0;
                }
                inflateReset(&z);
                member_done = false;
            }
            if (avail() == 0 && !fill()) {
                if (failure.empty()) truncated();
                return 0;
            }
            z.next_in = in.data() + in_pos;
            z.avail_in = static_cast<uInt>(std::min<std::size_t>(avail(), 1u << 30));
            z.next_out = reinterpret_cast<Bytef*>(out);
            z.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
            const int ret = inflate(&z, Z_NO_FLUSH);
            in_pos = static_cast<std::size_t>(z.next_in - in.data());
            const std::size_t produced = static_cast<std::size_t>(reinterpret_cast<char*>(z.next_out) - out);
            if (ret == Z_STREAM_END) member_done = true;
            else if (ret != Z_OK && ret != Z_BUF_ERROR) {
                corrupt(z.msg ? z.msg : "unknown zlib error");
                return 0;
            }
            if (produced > 0) return produced;
        }
    }

    std::size_t read_bzip2(char* out, std::size_t n) {
        for (;;) {
            if (member_done) {
                if (!next_member("BZh")) {
                    done = true;
                    return 0;
                }
                BZ2_bzDecompressEnd(&bz);
                bz = bz_stream{};
                if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK) {
                    corrupt("cannot start the decompressor");
                    return 0;
                }
                member_done = false;
            }
            if (avail() == 0 && !fill()) {
                if (failure.empty()) truncated();
                return 0;
            }
            bz.next_in = reinterpret_cast<char*>(in.data() + in_pos);
            bz.avail_in = static_cast<unsigned>(std::min<std::size_t>(avail(), 1u << 30));
            bz.next_out = out;
            bz.avail_out = static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30));
            const int ret = BZ2_bzDecompress(&bz);
            in_pos = static_cast<std::size_t>(reinterpret_cast<unsigned char*>(bz.next_in) - in.data());
            const std::size_t produced = static_cast<std::size_t>(bz.next_out - out);
            if (ret == BZ_STREAM_END) member_done = true;
            else if (ret != BZ_OK) {
                corrupt(ret == BZ_DATA_ERROR_MAGIC ? "bad magic bytes" : ret == BZ_MEM_ERROR ? "out of memory"
                                                                                            : "data error");
                return 0;
            }
            if (produced > 0) return produced;
        }
    }

    std::size_t read_xz(char* out, std::size_t n) {
        for (;;) {
            if (avail() == 0) fill();
            if (!failure.empty()) return 0;
            xz.next_in = in.data() + in_pos;
            xz.avail_in = avail();
            xz.next_out = reinterpret_cast<std::uint8_t*>(out);
            xz.avail_out = n;
            const lzma_ret ret = lzma_code(&xz, in_eof && avail() == 0 ? LZMA_FINISH : LZMA_RUN);
            in_pos = static_cast<std::size_t>(xz.next_in - in.data());
            const std::size_t produced = static_cast<std::size_t>(reinterpret_cast<char*>(xz.next_out) - out);
            if (ret == LZMA_STREAM_END) done = true;
            else if (ret == LZMA_BUF_ERROR && in_eof) {
                truncated();
                return produced;
            } else if (ret != LZMA_OK && ret != LZMA_BUF_ERROR) {
                corrupt(ret == LZMA_MEM_ERROR ? "out of memory" : ret == LZMA_FORMAT_ERROR ? "not in the xz format"
                                                                                         : "data error");
                return 0;
            }
            if (produced > 0 || done) return produced;
        }
    }

    std::size_t read_zstd(char* out, std::size_t n) {
        for (;;) {
            if (avail() == 0 && !fill()) {
                if (!failure.empty()) return 0;
                if (zstd_left != 0) truncated();
                done = true;
                return 0;
            }
            ZSTD_inBuffer src{in.data() + in_pos, avail(), 0};
            ZSTD_outBuffer dst{out, n, 0};
            const std::size_t ret = ZSTD_decompressStream(zs, &dst, &src);
            in_pos += src.pos;
            if (ZSTD_isError(ret)) {
                corrupt(ZSTD_getErrorName(ret));
                return 0;
            }
            zstd_left = ret;
            if (dst.pos > 0) return dst.pos;
        }
    }
};

DecompressingInput::DecompressingInput() : impl_(std::make_unique<Impl>()) {}
DecompressingInput::~DecompressingInput() = default;

std::unique_ptr<DecompressingInput> DecompressingInput::open(const std::string& path, const std::string& shown) {
    std::unique_ptr<DecompressingInput> d(new DecompressingInput());
    Impl& im = *d->impl_;
    if (path == "-") {
        im.fd = ::dup(STDIN_FILENO);
        if (im.fd < 0) throw InputError(fmt::format("{}: cannot read stdin: {}", shown, std::strerror(errno)));
    } else {
        im.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (im.fd < 0) throw InputError(fmt::format("{}: cannot open: {}", shown, std::strerror(errno)));
    }
    while (im.avail() < 6 && im.fill()) {}
    if (!im.failure.empty()) throw InputError(fmt::format("{}: {}", shown, im.failure));
    const unsigned char* p = im.in.data();
    const std::size_t n = im.avail();
    if (starts_with(p, n, "\x1f\x8b")) {
        im.kind = Compression::gzip;
        if (inflateInit2(&im.z, 15 + 16) != Z_OK) throw std::bad_alloc();
    } else if (starts_with(p, n, "BZh")) {
        im.kind = Compression::bzip2;
        if (BZ2_bzDecompressInit(&im.bz, 0, 0) != BZ_OK) throw std::bad_alloc();
    } else if (starts_with(p, n, "\xfd" "7zXZ\x00"sv)) {
        im.kind = Compression::xz;
        if (lzma_stream_decoder(&im.xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) throw std::bad_alloc();
    } else if (starts_with(p, n, "\x28\xb5\x2f\xfd")) {
        im.kind = Compression::zstd;
        im.zs = ZSTD_createDCtx();
        if (!im.zs) throw std::bad_alloc();
        im.zstd_left = 1;
    } else {
        for (const Unsupported& u : unsupported)
            if (starts_with(p, n, u.magic))
                throw InputError(fmt::format("{}: {}-compressed input is not read directly; decompress it through a "
                                             "pipe: {} {} | gpualign ... -",
                                             shown, u.name, u.command, path == "-" ? "-" : path));
    }
    return d;
}

std::size_t DecompressingInput::read(char* out, std::size_t n) { return impl_->read(out, n); }
Compression DecompressingInput::compression() const noexcept { return impl_->kind; }
const std::string& DecompressingInput::failure() const noexcept { return impl_->failure; }

}  // namespace gpualign::detail
