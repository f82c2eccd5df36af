#include <gtest/gtest.h>

#include <cstdlib>

#include "transport/transport.hpp"
#include "util/size_parse.hpp"

using gannet::util::parse_size;

TEST(SizeParse, UnitsAsUpcxxRunAcceptsThem) {
  std::string why;
  EXPECT_EQ(parse_size("128MB", &why)->bytes, 128ull << 20);
  EXPECT_EQ(parse_size("128 MB", &why)->bytes, 128ull << 20);
  EXPECT_EQ(parse_size("2GB", &why)->bytes, 2ull << 30);
  EXPECT_EQ(parse_size("1G", &why)->bytes, 1ull << 30);
  EXPECT_EQ(parse_size("512k", &why)->bytes, 512ull << 10);
  EXPECT_EQ(parse_size("1.5GB", &why)->bytes, 3ull << 29);
  EXPECT_EQ(parse_size("4096", &why)->bytes, 4096u);
  EXPECT_EQ(parse_size("1TB", &why)->bytes, 1ull << 40);
  EXPECT_EQ(parse_size("64MiB", &why)->bytes, 64ull << 20);
  EXPECT_DOUBLE_EQ(parse_size("50%", &why)->percent, 50.0);
}

TEST(SizeParse, RejectsNonsenseWithAReason) {
  for (const char* bad : {"12QB", "", "MB", "-5MB", "0", "150%", "0%", "1e9", "12 MB extra", "abc"}) {
    std::string why;
    EXPECT_FALSE(parse_size(bad, &why).has_value()) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(SizeParse, PercentSplitsPhysicalMemoryBetweenRanks) {
  std::string why;
  auto s = *parse_size("50%", &why);
  auto phys = gannet::util::physical_memory_bytes();
  ASSERT_GT(phys, 0u);
  EXPECT_NEAR(static_cast<double>(gannet::util::resolve_size(s, 4)), phys * 0.5 / 4, 4096.0);
}

// Under mpirun a percentage is shared by the ranks the launcher started on this machine.
TEST(SizeParse, LaunchersLocalSizeDividesAPercentage) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) ::unsetenv(name);
  EXPECT_EQ(gannet::transport::launcher_local_ranks(), 1);
  ::setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4", 1);
  EXPECT_EQ(gannet::transport::launcher_local_ranks(), 4);
  ::unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  ::setenv("MPI_LOCALNRANKS", "3", 1);
  EXPECT_EQ(gannet::transport::launcher_local_ranks(), 3);
  ::setenv("MPI_LOCALNRANKS", "junk", 1);
  EXPECT_EQ(gannet::transport::launcher_local_ranks(), 1);
  ::unsetenv("MPI_LOCALNRANKS");
}
