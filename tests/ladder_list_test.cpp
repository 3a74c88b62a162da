// The one kernel list (kernels/ladder.inc) as the library sees it, and the files it names:
// every rung has a kernel file and a doc, every kernel file is on the list, and every rung but
// the first grew from an earlier one (its parent, which scripts/diff diffs against). The fallback
// chain (kernels/fallbacks.inc): rungs of one precision class, no cycles.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rung_id.h"
#include "sgemm/sgemm.h"

namespace sgemm {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = SGEMM_SOURCE_DIR;

// The repository's view of the list, which the library's public RungInfo leaves out: the rung
// each grew from (scripts/diff N diffs against it), and its files.
int parent_of(int number) {
#define RUNG(n, name, parent, precision, summary) \
  if (number == n) return parent;
#include "ladder.inc"
#undef RUNG
  return -1;
}

std::string numbered(const RungInfo& rung, const char* dir, const char* ext) {
  char text[128];
  std::snprintf(text, sizeof text, "%s/%02d_%s.%s", dir, rung.number, rung.name, ext);
  return text;
}
std::string kernel_file(const RungInfo& rung) { return numbered(rung, "kernels", "cu"); }
std::string doc_file(const RungInfo& rung) { return numbered(rung, "docs", "md"); }

TEST(Ladder, NumbersRunOneToNInOrder) {
  ASSERT_FALSE(rungs().empty());
  for (size_t i = 0; i < rungs().size(); ++i) EXPECT_EQ(rungs()[i].number, int(i) + 1);
}

TEST(Ladder, NamesAreUniqueLowercaseIdentifiers) {
  const std::regex identifier("[a-z][a-z0-9_]*");
  std::set<std::string> seen;
  for (const RungInfo& rung : rungs()) {
    ASSERT_NE(rung.name, nullptr);
    EXPECT_TRUE(std::regex_match(rung.name, identifier)) << "'" << rung.name << "'";
    EXPECT_TRUE(seen.insert(rung.name).second) << "duplicate name " << rung.name;
    ASSERT_NE(rung.summary, nullptr);
    EXPECT_STRNE(rung.summary, "") << rung.name << " has no summary";
  }
}

TEST(Ladder, FindRung) {
  for (const RungInfo& rung : rungs()) {
    const RungInfo* found = find_rung(rung.number);
    ASSERT_NE(found, nullptr) << rung.number;
    EXPECT_STREQ(found->name, rung.name);
  }
  EXPECT_EQ(find_rung(0), nullptr);  // cuBLAS is not a rung of ours
  EXPECT_EQ(find_rung(-1), nullptr);
  EXPECT_EQ(find_rung(int(rungs().size()) + 1), nullptr);
}

// The parent column: the first rung grew from nothing, every other from a rung before it.
TEST(Ladder, EveryRungGrewFromAnEarlierRung) {
  EXPECT_EQ(parent_of(rungs().front().number), 0);
  for (const RungInfo& rung : rungs()) {
    if (&rung == &rungs().front()) continue;
    const int from = parent_of(rung.number);
    EXPECT_LT(from, rung.number) << rung.name;
    const RungInfo* parent = find_rung(from);
    EXPECT_NE(parent, nullptr) << rung.name << " grew from " << from << ", not a rung";
  }
}

// kernels/fallbacks.inc: every row names two rungs (the registry resolves them), a rung has
// at most one fallback per reason, a fallback keeps the rung's precision class (its answer is
// checked and compared as the rung's), and following the chain from any rung ends.
TEST(Fallbacks, NameRungsOfTheSamePrecisionOncePerReason) {
  ASSERT_FALSE(fallbacks().empty());
  std::set<std::pair<const RungInfo*, FallbackReason>> seen;
  for (const FallbackInfo& f : fallbacks()) {
    ASSERT_NE(f.rung, nullptr);
    ASSERT_NE(f.instead, nullptr) << f.rung->name;
    SCOPED_TRACE(std::string(f.rung->name) + " -> " + f.instead->name);
    EXPECT_NE(f.rung, f.instead);
    EXPECT_EQ(f.rung->precision, f.instead->precision);
    EXPECT_TRUE(seen.insert({f.rung, f.reason}).second) << "two rows for " << to_string(f.reason);
    ASSERT_NE(f.when, nullptr);
    EXPECT_STRNE(f.when, "");
    EXPECT_EQ(fallback_for(*f.rung, f.reason), f.instead);
  }
}

TEST(Fallbacks, EveryChainEnds) {
  const FallbackReason reasons[] = {FallbackReason::workspace_short,
                                    FallbackReason::shape_unsuitable,
                                    FallbackReason::gpu_unsupported};
  for (const RungInfo& start : rungs()) {
    // A rung's answer may name any reason, and its fallback's another: walk every path.
    std::vector<const RungInfo*> path = {&start};
    std::function<void()> walk = [&] {
      ASSERT_LE(path.size(), rungs().size()) << "a cycle through " << start.name;
      for (FallbackReason reason : reasons)
        if (const RungInfo* next = fallback_for(*path.back(), reason)) {
          path.push_back(next);
          walk();
          path.pop_back();
        }
    };
    walk();
  }
}

TEST(Ladder, FileNamesHaveTwoDigitPrefixes) {
  const RungInfo example{rung_number(RungId::vectorized), rung_name(RungId::vectorized), ""};
  EXPECT_EQ(kernel_file(example), "kernels/06_vectorized.cu");
  EXPECT_EQ(doc_file(example), "docs/06_vectorized.md");
  const RungInfo two_digits{12, "warp_tiling", ""};
  EXPECT_EQ(kernel_file(two_digits), "kernels/12_warp_tiling.cu");
  EXPECT_EQ(doc_file(two_digits), "docs/12_warp_tiling.md");
}

TEST(Ladder, EveryRungHasItsKernelFile) {
  for (const RungInfo& rung : rungs())
    EXPECT_TRUE(fs::is_regular_file(kSource / kernel_file(rung))) << kernel_file(rung);
}

TEST(Ladder, EveryRungHasItsDoc) {
  for (const RungInfo& rung : rungs())
    EXPECT_TRUE(fs::is_regular_file(kSource / doc_file(rung))) << doc_file(rung) << " is missing";
}

// Numbered files in `dir` that no rung names: a kernel or doc left off the list.
std::set<std::string> unlisted(const std::string& dir, const std::string& ext,
                               std::string (*file)(const RungInfo&)) {
  const std::regex numbered("[0-9][0-9]_.*\\." + ext);
  std::set<std::string> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(kSource / dir)) {
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, numbered)) found.insert(dir + "/" + name);
  }
  for (const RungInfo& rung : rungs()) found.erase(file(rung));
  return found;
}

TEST(Ladder, EveryKernelFileIsListed) {
  for (const std::string& path : unlisted("kernels", "cu", kernel_file))
    ADD_FAILURE() << path << " is not in kernels/ladder.inc";
}

TEST(Ladder, EveryRungDocNamesARung) {
  for (const std::string& path : unlisted("docs", "md", doc_file)) {
    if (path.rfind("docs/00_", 0) == 0) continue;  // 00_*: method docs, which belong to no rung
    ADD_FAILURE() << path << " names no rung";
  }
}

}  // namespace
}  // namespace sgemm
