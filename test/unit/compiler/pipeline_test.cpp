// Tests of the pipeline API the driver calls (compiler/Pipeline/Pipeline.h):
// fuse, collectStats and compile on in-memory modules, and errors reported
// as diagnostics without crashing.
#include "Pipeline/Pipeline.h"
#include "Target/PTX/BundleFatbin.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

namespace {

constexpr const char *kChain = R"mlir(
#id = affine_map<(i) -> (i)>
func.func @chain(%x: tensor<?xf32>, %y: tensor<?xf32>, %a: f32) -> tensor<?xf32> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e0 = tensor.empty(%n) : tensor<?xf32>
  %ax = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e0 : tensor<?xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %m = arith.mulf %a, %xi : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%ax, %y : tensor<?xf32>, tensor<?xf32>) outs(%e1 : tensor<?xf32>) {
  ^bb0(%p: f32, %yi: f32, %o: f32):
    %s = arith.addf %p, %yi : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
)mlir";

struct PipelineTest : ::testing::Test {
  PipelineTest() : context(makeRegistry()) {}
  static mlir::DialectRegistry makeRegistry() {
    mlir::DialectRegistry registry;
    kiln::pipeline::registerDialects(registry);
    return registry;
  }
  mlir::OwningOpRef<mlir::ModuleOp> parse(const char *text) {
    return mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  }
  mlir::MLIRContext context;
};

TEST_F(PipelineTest, FuseCompileAndStats) {
  auto module = parse(kChain);
  ASSERT_TRUE(module);
  ASSERT_TRUE(mlir::succeeded(kiln::pipeline::fuse(*module)));
  auto stats = kiln::pipeline::collectStats(*module);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].name, "chain");
  EXPECT_EQ(stats[0].opsBeforeFusion, 2u);
  EXPECT_EQ(stats[0].kernelsAfterFusion, 1u);
  EXPECT_EQ(stats[0].numInputs, 2u);
  EXPECT_EQ(stats[0].numOutputs, 1u);
  EXPECT_EQ(stats[0].numScalars, 1u);
  EXPECT_EQ(stats[0].bytesPerElement, 12u);
  auto width = kiln::pipeline::contigVectorWidth(*module, "chain");
  ASSERT_TRUE(mlir::succeeded(width));
  EXPECT_EQ(*width, 4u);

  kiln::pipeline::Options options;
  auto compiled = kiln::pipeline::compile(*module, options);
  ASSERT_TRUE(mlir::succeeded(compiled));
  for (const char *entry : {".entry chain_contig(", ".entry chain_strided1(",
                            ".entry chain_strided2(", ".entry chain_strided3(",
                            ".entry chain_strided4("})
    EXPECT_NE(compiled->ptx.find(entry), std::string::npos) << entry;
  // Without --cuda-arch: a fatbin of PTX only, sm_80 and sm_90 (with
  // programmatic launch), when fatbinary is there to bundle them.
  if (llvm::sys::fs::can_execute(kiln::ptx::defaultFatbinaryPath())) {
    EXPECT_FALSE(compiled->fatbin.empty());
    EXPECT_NE(compiled->ptx90.find(".target sm_90"), std::string::npos);
    EXPECT_NE(compiled->ptx90.find("griddepcontrol.wait"), std::string::npos);
    EXPECT_EQ(compiled->ptx.find("griddepcontrol"), std::string::npos);
  } else {
    EXPECT_TRUE(compiled->fatbin.empty());
  }
  kiln::pipeline::Options alone = options;
  alone.bundlePtx = false; // kilnc --emit=ptx
  auto ptxOnly = kiln::pipeline::compile(*module, alone);
  ASSERT_TRUE(mlir::succeeded(ptxOnly));
  EXPECT_TRUE(ptxOnly->fatbin.empty());
  EXPECT_TRUE(ptxOnly->ptx90.empty());
  EXPECT_EQ(ptxOnly->ptx, compiled->ptx);
  ASSERT_GT(compiled->hostObject.size(), 4u);
  EXPECT_EQ(compiled->hostObject.substr(0, 4), "\x7f"
                                               "ELF");
  EXPECT_NE(compiled->hostObject.find("chain_strided2_host"),
            std::string::npos);
}

TEST_F(PipelineTest, UnfusableKernelIsADiagnosticNotACrash) {
  auto module = parse(R"mlir(
func.func @bad(%x: tensor<?xf16>) -> tensor<?xf16> attributes {kiln.kernel} {
  return %x : tensor<?xf16>
}
)mlir");
  ASSERT_TRUE(module);
  std::string messages;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    messages += diag.str() + "\n";
    return mlir::success();
  });
  EXPECT_TRUE(mlir::failed(kiln::pipeline::fuse(*module)));
  EXPECT_NE(messages.find("unsupported element type 'f16'"), std::string::npos)
      << messages;
  // The context stays usable: a good module still compiles afterwards.
  auto good = parse(kChain);
  ASSERT_TRUE(good);
  ASSERT_TRUE(mlir::succeeded(kiln::pipeline::fuse(*good)));
  kiln::pipeline::Options options;
  options.emitHost = false;
  EXPECT_TRUE(mlir::succeeded(kiln::pipeline::compile(*good, options)));
}

TEST_F(PipelineTest, ModuleWithoutKernelsCompilesToNothing) {
  auto module = parse("func.func @plain() { return }");
  ASSERT_TRUE(module);
  ASSERT_TRUE(mlir::succeeded(kiln::pipeline::fuse(*module)));
  auto compiled = kiln::pipeline::compile(*module, {});
  ASSERT_TRUE(mlir::succeeded(compiled));
  EXPECT_TRUE(compiled->stats.empty());
  EXPECT_TRUE(compiled->ptx.empty());
}

} // namespace
