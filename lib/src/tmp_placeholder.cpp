#include "gpualign/scoring.hpp"
