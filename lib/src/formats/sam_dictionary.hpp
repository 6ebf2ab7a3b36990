// gpualign — the SAM @SQ dictionary (internal to lib/): the name checks of
// SAM v1.6 §1.2.1 and the sharded name -> length index that both the SAM
// writer and read_sam_references (sam_references.hpp) fill.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "gpualign/formats/sam_references.hpp"
#include "gpualign/io/io_error.hpp"
#include "writer_detail.hpp"

namespace gpualign::format_detail {

/// SAM v1.6 §1.2.1: [0-9A-Za-z!#$%&+./:;?@^_|~-][0-9A-Za-z!#$%&*+./:;=?@^_|~-]*
bool valid_rname(std::string_view s) noexcept;

/// The largest @SQ LN (SAM v1.6 §1.3: 1..2^31-1).
inline constexpr std::uint64_t max_sam_ref_length = 2147483647u;

/// One shard of the @SQ dictionary: ref name -> length.
class RefShard {
public:
    /// Whether `name` is new (then kept with `length`). @throws
    /// InputError when it was seen with another length.
    bool insert(std::string_view name, std::uint64_t length) {
        const auto it = lengths_.find(name);
        if (it != lengths_.end()) {
            if (it->second != length)
                throw InputError(fmt::format("reference name '{}' occurs with two lengths ({} and {}); SAM @SQ "
                                             "names must be unique",
                                             shown_name(name), it->second, length));
            return false;
        }
        lengths_.emplace(std::string(name), length);
        return true;
    }

private:
    /// Hashes std::string and std::string_view alike (lookups without a copy).
    struct NameHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, std::uint64_t, NameHash, std::equal_to<>> lengths_;
};

/// The hash of a reference name (std::hash), as the dictionaries keep it.
inline std::uint64_t name_hash(std::string_view name) noexcept { return std::hash<std::string_view>{}(name); }

inline constexpr std::size_t ref_shards = 16;
/// The shard of a writer's own dictionary that holds `name`.
inline std::size_t shard_of(std::string_view name) noexcept { return name_hash(name) % ref_shards; }

/// Appends the @SQ line of a reference.
inline void append_sq_line(std::string_view name, std::uint64_t length, fmt::memory_buffer& out) {
    const fmt::format_int digits(length);
    out.append(std::string_view("@SQ\tSN:"));
    out.append(name);
    out.append(std::string_view("\tLN:"));
    out.append(digits.data(), digits.data() + digits.size());
    out.push_back('\n');
}

}  // namespace gpualign::format_detail

namespace gpualign {

/// What a SamReferences holds: the @SQ lines in order and how many, and
/// for checking each record's ref against them, the length and name hash
/// of every REFS record by its number (read_sam_references). A writer that
/// declares its refs as they come (no read-ahead) keeps its index by name
/// in `shards` instead.
struct SamReferences::Impl {
    fmt::memory_buffer sq_lines;
    std::size_t count = 0;
    std::vector<std::uint64_t> lengths, hashes;  // by record number - 1; empty without read-ahead
    std::array<format_detail::RefShard, format_detail::ref_shards> shards;
};

}  // namespace gpualign
