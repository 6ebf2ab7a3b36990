// gpualign — OutputFile: an output written to a temporary file next to it and
// renamed onto it on commit (writers.hpp), and the temporary files of the
// writers.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpualign/formats/writers.hpp"
#include "gpualign/io/cleanup.hpp"
#include "writer_detail.hpp"

namespace gpualign {
namespace format_detail {

std::string shown_output(const std::string& path) { return path == "-" ? std::string("<stdout>") : path; }

std::pair<int, std::string> create_temp(const std::filesystem::path& dir, const std::string& base,
                                        const std::string& for_path, bool read_write) {
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
        const auto name = (dir / fmt::format(".{}.{}.{}.tmp", base, ::getpid(), counter++)).string();
        const int fd = ::open(name.c_str(), (read_write ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) return {fd, name};
        if (errno != EEXIST)
            throw OutputError(fmt::format("{}: cannot create a temporary file in '{}': {}", shown_output(for_path),
                                          dir.string(), std::strerror(errno)));
    }
    throw OutputError(fmt::format("{}: cannot create a temporary file in '{}'", shown_output(for_path), dir.string()));
}

std::string link_target(const std::string& path) {
    std::filesystem::path p(path);
    std::error_code ec;
    for (int hop = 0; hop < 40 && std::filesystem::is_symlink(p, ec); ++hop) {
        const std::filesystem::path next = std::filesystem::read_symlink(p, ec);
        if (ec) break;
        p = next.is_absolute() ? next : p.parent_path() / next;
    }
    return p.string();
}

}  // namespace format_detail

using format_detail::create_temp;
using format_detail::link_target;
using format_detail::shown_output;

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
    if (path_ == "-") {
        file_ = stdout;
        is_stdout_ = true;
        return;
    }
    std::error_code ec;
    const auto st = std::filesystem::status(path_, ec);
    if (std::filesystem::is_directory(st)) throw OutputError(fmt::format("{}: is a directory", path_));
    if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
        file_ = std::fopen(path_.c_str(), "w");
        if (!file_) fail("open", errno);
        return;
    }
    // Through a symbolic link, the file it names is replaced (as `>` would
    // write it), and the link stays.
    target_ = link_target(path_);
    const std::filesystem::path p(target_);
    const auto dir = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
    auto [fd, name] = create_temp(dir, p.filename().string(), path_);
    temp_ = std::move(name);
    cleanup_slot_ = register_cleanup_path(temp_);
    // An existing file keeps its permission bits (a new one gets 0666 less
    // the umask, as create_temp made it).
    struct stat old {};
    if (::stat(target_.c_str(), &old) == 0 && S_ISREG(old.st_mode)) (void)::fchmod(fd, old.st_mode & 07777);
    file_ = ::fdopen(fd, "w");
    if (!file_) {
        const int err = errno;
        ::close(fd);
        ::unlink(temp_.c_str());
        unregister_cleanup_path(std::exchange(cleanup_slot_, -1));
        temp_.clear();
        fail("open", err);
    }
}

OutputFile::~OutputFile() { discard(); }

OutputFile::OutputFile(OutputFile&& o) noexcept
    : path_(std::move(o.path_)), target_(std::move(o.target_)), temp_(std::exchange(o.temp_, {})), cleanup_slot_(std::exchange(o.cleanup_slot_, -1)),
      file_(std::exchange(o.file_, nullptr)),
      is_stdout_(o.is_stdout_), committed_(o.committed_) {}

OutputFile& OutputFile::operator=(OutputFile&& o) noexcept {
    if (this != &o) {
        discard();
        path_ = std::move(o.path_);
        target_ = std::move(o.target_);
        temp_ = std::exchange(o.temp_, {});
        cleanup_slot_ = std::exchange(o.cleanup_slot_, -1);
        file_ = std::exchange(o.file_, nullptr);
        is_stdout_ = o.is_stdout_;
        committed_ = o.committed_;
    }
    return *this;
}

void OutputFile::discard() noexcept {
    if (file_ && !is_stdout_) std::fclose(file_);
    file_ = nullptr;
    if (!temp_.empty() && !committed_) ::unlink(temp_.c_str());
    unregister_cleanup_path(std::exchange(cleanup_slot_, -1));
    temp_.clear();
}

void OutputFile::fail(std::string_view action, int err) const {
    throw OutputError(fmt::format("{}: cannot {}: {}", shown_output(path_), action, std::strerror(err)));
}

void OutputFile::write(std::string_view bytes) {
    if (!file_ || committed_) throw OutputError(fmt::format("{}: write after commit", shown_output(path_)));
    if (bytes.empty()) return;
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) fail("write", errno ? errno : EIO);
}

std::uint64_t OutputFile::reserve(std::uint64_t bytes) {
    if (!positional()) throw std::logic_error("OutputFile::reserve: " + shown_output(path_) + " is not written by position");
    if (std::fflush(file_) != 0) fail("write", errno ? errno : EIO);
    const off_t at = ::ftello(file_);
    if (at < 0 || ::fseeko(file_, at + static_cast<off_t>(bytes), SEEK_SET) != 0) fail("seek in", errno ? errno : EIO);
    return static_cast<std::uint64_t>(at);
}

void OutputFile::write_at(std::uint64_t offset, std::string_view bytes) {
    const int fd = ::fileno(file_);
    while (!bytes.empty()) {
        const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("write", n < 0 ? errno : EIO);
        bytes.remove_prefix(static_cast<std::size_t>(n));
        offset += static_cast<std::uint64_t>(n);
    }
}

void OutputFile::write_file(std::FILE* from) {
    if (!file_ || committed_) throw OutputError(fmt::format("{}: write after commit", shown_output(path_)));
    if (std::fflush(from) != 0) fail("read back a scratch file", errno ? errno : EIO);
    const int in = ::fileno(from);
    struct stat st {};
    if (::fstat(in, &st) != 0) fail("read back a scratch file", errno);
    auto left = static_cast<std::size_t>(st.st_size);
    off_t at = 0;
    std::vector<char> chunk(std::size_t{1} << 20);
    while (left > 0) {
        const ssize_t n = ::pread(in, chunk.data(), std::min(chunk.size(), left), at);
        if (n <= 0) fail("read back a scratch file", n < 0 ? errno : EIO);
        write({chunk.data(), static_cast<std::size_t>(n)});
        at += n;
        left -= static_cast<std::size_t>(n);
    }
}

void OutputFile::commit() {
    if (!file_ || committed_) throw OutputError(fmt::format("{}: committed twice", shown_output(path_)));
    if (std::fflush(file_) != 0 || std::ferror(file_)) fail("write", errno ? errno : EIO);
    if (is_stdout_) {
        committed_ = true;
        return;
    }
    std::FILE* f = std::exchange(file_, nullptr);
    if (std::fclose(f) != 0) fail("close", errno);
    if (!temp_.empty() && std::rename(temp_.c_str(), target_.c_str()) != 0) fail("rename the temporary file onto", errno);
    unregister_cleanup_path(std::exchange(cleanup_slot_, -1));
    committed_ = true;
}

}  // namespace gpualign
