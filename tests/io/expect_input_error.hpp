// gpualign tests — asserting that a call throws InputError with given words.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "gpualign/io/io_error.hpp"

namespace gpualign::test {

/// Runs `f`, expects an InputError and checks that its message contains each of `parts`.
template <typename F>
void expect_input_error(F&& f, std::initializer_list<std::string> parts) {
    try {
        f();
        ADD_FAILURE() << "no InputError thrown";
    } catch (const InputError& e) {
        const std::string msg = e.what();
        for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
    }
}

}  // namespace gpualign::test
