// The FIFO transports' defaults as the configuration and the node give them:
// the FIFO's length, the rendezvous thresholds, and TERN_RNDV_THRESH
// standing for all of them.
#include "transport/fifo_config.hpp"

#include <gtest/gtest.h>

namespace tern::engine::transport {
namespace {

TEST(FifoConfigTest, StreamingRendezvousStartsLowerWithManyRanksOnTheNode) {
  const runtime::Config config;  // TERN_RNDV_THRESH=auto
  EXPECT_EQ(rndv_threshold_from(config, 0), kDefaultRndvThreshold) << "peers not known";
  EXPECT_EQ(rndv_threshold_from(config, 1), kDefaultRndvThreshold);
  EXPECT_EQ(rndv_threshold_from(config, kManyLocalRanks - 2), kDefaultRndvThreshold);
  EXPECT_EQ(rndv_threshold_from(config, kManyLocalRanks - 1), kDefaultRndvThresholdManyRanks);
  EXPECT_EQ(rndv_threshold_from(config, 63), kDefaultRndvThresholdManyRanks);
  EXPECT_LT(kDefaultRndvThresholdManyRanks, kDefaultRndvThreshold);
}

TEST(FifoConfigTest, TheMeterStartsBelowTheStreamingThresholdAndEndsAboveIt) {
  const runtime::Config config;
  EXPECT_LE(metered_rndv_threshold_from(config), rndv_threshold_from(config, 1));
  EXPECT_LE(metered_rndv_threshold_from(config), rndv_threshold_from(config, 63));
  EXPECT_GT(drained_rndv_threshold_from(config), rndv_threshold_from(config, 1));
}

TEST(FifoConfigTest, ManyRanksOnTheNodeGetLongerFifos) {
  runtime::Config config;
  FifoGeometry few;
  FifoGeometry many;
  ASSERT_TRUE(fifo_geometry_from(config, 1, few));
  ASSERT_TRUE(fifo_geometry_from(config, kManyLocalRanks - 1, many));
  EXPECT_EQ(few.cells, kDefaultFifoCells);
  EXPECT_EQ(many.cells, kDefaultFifoCellsManyRanks);
  EXPECT_EQ(few.cell_size, many.cell_size);
  config.shm_fifo_cells = 32;  // TERN_SHM_FIFO_CELLS wins
  ASSERT_TRUE(fifo_geometry_from(config, kManyLocalRanks - 1, many));
  EXPECT_EQ(many.cells, 32u);
  config.shm_fifo_cells = 48;  // not a power of two
  EXPECT_FALSE(fifo_geometry_from(config, 1, few));
}

// The configuration's default cell size (what tern_info prints) and the
// transport's own (for a configuration that leaves it 0) are one value kept
// in two layers; a change to one must reach the other.
TEST(FifoConfigTest, TheCellSizeDefaultsAgree) {
  runtime::Config config;
  FifoGeometry from_config;
  ASSERT_TRUE(fifo_geometry_from(config, 1, from_config));
  config.shm_cell_size = 0;
  FifoGeometry transport_default;
  ASSERT_TRUE(fifo_geometry_from(config, 1, transport_default));
  EXPECT_EQ(from_config.cell_size, kDefaultCellSize);
  EXPECT_EQ(transport_default.cell_size, kDefaultCellSize);
}

TEST(FifoConfigTest, AnExplicitThresholdStandsForEveryCase) {
  runtime::Config config;
  config.rndv_threshold = 40000;
  EXPECT_EQ(rndv_threshold_from(config, 1), 40000u);
  EXPECT_EQ(rndv_threshold_from(config, 63), 40000u);
  EXPECT_EQ(metered_rndv_threshold_from(config), 40000u);
  EXPECT_EQ(drained_rndv_threshold_from(config), 40000u);
  EXPECT_EQ(mapped_rndv_threshold_from(config, 16000), 40000u);
}

}  // namespace
}  // namespace tern::engine::transport
