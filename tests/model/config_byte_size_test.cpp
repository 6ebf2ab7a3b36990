// parse_byte_size (--gpu-memory) and the validation of AlignConfig::gpu_memory.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "gpualign/model/config.hpp"

namespace gpualign {
namespace {

TEST(ParseByteSize, SuffixesAreBinary) {
    EXPECT_EQ(parse_byte_size("0", "--gpu-memory"), 0u);
    EXPECT_EQ(parse_byte_size("1048576", "--gpu-memory"), 1048576u);
    EXPECT_EQ(parse_byte_size("512K", "--gpu-memory"), 512u << 10);
    EXPECT_EQ(parse_byte_size("512M", "--gpu-memory"), 512u << 20);
    EXPECT_EQ(parse_byte_size("64m", "--gpu-memory"), 64u << 20);
    EXPECT_EQ(parse_byte_size("2G", "--gpu-memory"), std::size_t{2} << 30);
    EXPECT_EQ(parse_byte_size("2GiB", "--gpu-memory"), std::size_t{2} << 30);
    EXPECT_EQ(parse_byte_size("2GB", "--gpu-memory"), std::size_t{2} << 30);
    EXPECT_EQ(parse_byte_size("1T", "--gpu-memory"), std::size_t{1} << 40);
}

TEST(ParseByteSize, MalformedValuesNameTheOption) {
    for (const char* bad : {"", "M", "-1", "1.5G", "12X", "1 G", "99999999999999999999", "99999999999999T"}) {
        try {
            parse_byte_size(bad, "--gpu-memory");
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("--gpu-memory"), std::string::npos) << e.what();
        }
    }
}

TEST(ParseByteSize, ValidateRefusesCapsUnderTheMinimum) {
    AlignConfig c;
    c.query_path = "q.fa";
    c.ref_path = "r.fa";
    c.gpu_memory = 0;
    EXPECT_NO_THROW(c.validate());
    c.gpu_memory = Defaults::gpu_memory_min;
    EXPECT_NO_THROW(c.validate());
    c.gpu_memory = 4096;
    try {
        c.validate();
        ADD_FAILURE() << "4096 accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("--gpu-memory 4096 bytes"), std::string::npos) << e.what();
    }
}

// Input batches: the defaults times a --devices list's length, so that each
// GPU's share is one GPU's batch; explicit sizes, --devices all and one
// device as given.
TEST(InputBatches, ScaleWithADevicesListAtTheDefaults) {
    AlignConfig c;
    EXPECT_EQ(c.input_batch_pairs(), Defaults::batch_pairs);
    EXPECT_EQ(c.input_batch_bases(), Defaults::batch_bases);
    c.devices = {0, 1, 1};
    EXPECT_EQ(c.input_batch_pairs(), 3 * Defaults::batch_pairs);
    EXPECT_EQ(c.input_batch_bases(), 3 * Defaults::batch_bases);
    c.batch_pairs = 1000;
    EXPECT_EQ(c.input_batch_pairs(), 1000u);
    EXPECT_EQ(c.input_batch_bases(), Defaults::batch_bases);
    c.batch_pairs = Defaults::batch_pairs;
    c.devices = {2};
    EXPECT_EQ(c.input_batch_pairs(), Defaults::batch_pairs);
    c.devices.clear();
    c.all_devices = true;
    EXPECT_EQ(c.input_batch_pairs(), Defaults::batch_pairs);
}

// --gpu-streams: 0 (the default) is auto, whatever the output; 1-16 as given; others refused.
TEST(GpuStreams, AutoAndValidateRefusesOutOfRange) {
    AlignConfig c;
    c.query_path = "q.fa";
    c.ref_path = "r.fa";
    EXPECT_EQ(c.gpu_streams, 0);
    EXPECT_EQ(c.engine_streams(), Defaults::gpu_streams_auto);
    c.gpu_memory = std::size_t{64} << 20;
    EXPECT_EQ(c.engine_streams(), Defaults::gpu_streams_auto);
    c.gpu_memory = 0;
    c.score_only = true;
    EXPECT_EQ(c.engine_streams(), Defaults::gpu_streams_auto);
    c.gpu_streams = 3;
    EXPECT_EQ(c.engine_streams(), 3);
    EXPECT_NO_THROW(c.validate());
    for (int bad : {-1, Defaults::gpu_streams_max + 1}) {
        c.gpu_streams = bad;
        try {
            c.validate();
            ADD_FAILURE() << bad << " accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("--gpu-streams"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace gpualign
