// Matrix files of tests/data for the CPU and GPU tests (needs the test
// targets' GPUALIGN_TEST_DATA).
#pragma once

#include <string>

#include "gpualign/io/matrix.hpp"

namespace gpualign::test {

/// EMBOSS's EDNAFULL (tests/data/io/ednafull.mat, see its README) with gap
/// penalties `go`, `ge`: a DnaCodes::iupac scheme of 15 codes.
/// @throws as make_matrix_scheme.
inline ScoringScheme ednafull_scheme(int go, int ge) {
    return make_matrix_scheme(std::string(GPUALIGN_TEST_DATA) + "/io/ednafull.mat", Alphabet::dna, go, ge);
}

}  // namespace gpualign::test
