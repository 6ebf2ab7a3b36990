// gpualign — internal: SIMD letter encoding (see encode_letters.hpp).
//
// Per vector of bytes c: code = piece[c >> 4][c & 15] for c < 128, where
// piece[h] is the table's 16 entries h*16 .. h*16+15, looked up with
// TableLookupBytes (pshufb / tbl) and selected by the high nibble; bytes of
// 128 and above, and the two control pieces (h = 0, 1: no accepted letters
// there, checked when the table is used), give 0xFF. Any 0xFF marks the
// run as failed.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "io/encode_letters.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "io/encode_letters.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpualign::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
bool EncodeLetters(const LetterTable& table, const unsigned char* in, std::size_t n, std::uint8_t* out) {
    return encode_letters_scalar(table, in, n, out);
}
#else
bool EncodeLetters(const LetterTable& table, const unsigned char* in, std::size_t n, std::uint8_t* out) {
    const hn::ScalableTag<std::uint8_t> d;
    const hn::Repartition<std::uint16_t, decltype(d)> d16;
    using V = hn::Vec<decltype(d)>;
    const std::size_t L = hn::Lanes(d);
    // Pieces 2..7 cover the printable characters 0x20..0x7F.
    const V p2 = hn::LoadDup128(d, table.code.data() + 32), p3 = hn::LoadDup128(d, table.code.data() + 48);
    const V p4 = hn::LoadDup128(d, table.code.data() + 64), p5 = hn::LoadDup128(d, table.code.data() + 80);
    const V p6 = hn::LoadDup128(d, table.code.data() + 96), p7 = hn::LoadDup128(d, table.code.data() + 112);
    const V low_mask = hn::Set(d, 0x0F), invalid = hn::Set(d, 0xFF);
    V bad = hn::Zero(d);
    std::size_t k = 0;
    for (; k + L <= n; k += L) {
        const V c = hn::LoadU(d, in + k);
        const V lo = hn::And(c, low_mask);
        // The high nibble per byte (a 16-bit shift, then the byte's own nibble).
        const V hi = hn::And(hn::BitCast(d, hn::ShiftRight<4>(hn::BitCast(d16, c))), low_mask);
        V code = invalid;
        code = hn::IfThenElse(hn::Eq(hi, hn::Set(d, 2)), hn::TableLookupBytes(p2, lo), code);
        code = hn::IfThenElse(hn::Eq(hi, hn::Set(d, 3)), hn::TableLookupBytes(p3, lo), code);
        code = hn::IfThenElse(hn::Eq(hi, hn::Set(d, 4)), hn::TableLookupBytes(p4, lo), code);
        code = hn::IfThenElse(hn::Eq(hi, hn::Set(d, 5)), hn::TableLookupBytes(p5, lo), code);
        code = hn::IfThenElse(hn::Eq(hi, hn::Set(d, 6)), hn::TableLookupBytes(p6, lo), code);
        code = hn::IfThenElse(hn::Eq(hi, hn::Set(d, 7)), hn::TableLookupBytes(p7, lo), code);
        hn::StoreU(code, d, out + k);
        bad = hn::Or(bad, code);
    }
    // Accepted codes are below 0x80; 0xFF sets the top bit.
    const hn::RebindToSigned<decltype(d)> di;
    const bool tail_ok = encode_letters_scalar(table, in + k, n - k, out + k);
    return tail_ok && hn::AllFalse(di, hn::Lt(hn::BitCast(di, bad), hn::Zero(di)));
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace gpualign::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpualign::detail {

HWY_EXPORT(EncodeLetters);

bool encode_letters(const LetterTable& table, const unsigned char* in, std::size_t n, std::uint8_t* out) noexcept {
    return HWY_DYNAMIC_DISPATCH(EncodeLetters)(table, in, n, out);
}

}  // namespace gpualign::detail
#endif
