//===- test/fuzz/kilnc_fuzz.cpp - libFuzzer target over kilnc -------------===//
//
// The input bytes are a C++ source. It goes through what `kilnc --emit=cpp`
// runs (driver::runStages: the clang frontend, fusion, the PTX and host back
// ends, the kernel table), in memory -- no temp files, no subprocesses -- on
// kilnc's large compile stack, with Kiln's headers reachable. Diagnostics are
// fine; a crash, a hang or a sanitizer report is a bug.
//
// Built two ways (test/fuzz/CMakeLists.txt):
//   kiln-fuzz         with -fsanitize=fuzzer (the asan preset): libFuzzer's
//                     main, plus the Kiln-flavoured mutator below;
//   kiln-fuzz-replay  without libFuzzer (KILN_FUZZ_REPLAY): a main that runs
//                     every file (or every file in every directory) given on
//                     the command line once, for ctest and any build.
//
//===----------------------------------------------------------------------===//
#include "Driver/Driver.h"
#include "Driver/Options.h"
#include "Driver/Stages.h"
#include "Driver/Toolchain.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifndef KILN_FUZZ_SOURCE_DIR
#error "KILN_FUZZ_SOURCE_DIR (the Kiln source tree) must be defined"
#endif

namespace {

using namespace kiln::driver;

struct Setup {
  Toolchain tc;
  DriverOptions opts;
  std::vector<std::string> flags;
};

const Setup &setup() {
  static const Setup s = [] {
    Setup s;
    s.tc = findToolchain("kiln-fuzz");
    // The seeds' own includes ("check.hpp", "e2e.hpp", "dep.h", the unit
    // tests' "gpu.hpp" and "runtime/...") resolve too; GoogleTest's headers
    // are the system's.
    const std::string src = KILN_FUZZ_SOURCE_DIR;
    s.flags = {"-I" + src + "/examples", "-I" + src + "/test/e2e", "-I" + src + "/test/lit/Driver/Inputs",
               "-I" + src + "/test/unit", "-I" + src};
    // KILN_FUZZ_PCH: a precompiled <kiln/kiln.hpp> (made by the target
    // kiln-fuzz-pch with the frontend's flags) to spare parsing it per input.
    if (const char *pch = std::getenv("KILN_FUZZ_PCH"); pch && *pch)
      s.flags.insert(s.flags.end(), {"-include-pch", pch});
    return s;
  }();
  return s;
}

struct Run {
  const std::string *text;
  int code;
};

void runOne(void *arg) {
  auto *run = static_cast<Run *>(arg);
  const Setup &s = setup();
  SourceJob job;
  job.source = "fuzz.cpp";
  job.contents = *run->text;
  job.frontendFlags = s.flags;
  StageOutputs out;
  run->code = runStages(job, s.opts, s.tc, StopAfter::Compile,
                        /*forPtx=*/false, out);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Run run{&text, 0};
  runOnCompileStack(runOne, &run);
  return 0;
}

#ifndef KILN_FUZZ_REPLAY
//===----------------------------------------------------------------------===//
// A structure-aware mutator: besides libFuzzer's byte mutations, it splices
// Kiln-flavoured C++ into the input -- KILN_FUSE functions whose bodies hold
// random expression trees over Kiln's operations and dtypes, constructs kilnc
// must reject (loops, throw, lambdas, templates, statics, recursion, goto,
// macros, odd types), and swaps of operation and type names.
//===----------------------------------------------------------------------===//
extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

const char *const kUnary[] = {
    "kiln::abs",  "kiln::sqrt",  "kiln::exp",    "kiln::log",   "kiln::log2",
    "kiln::log10", "kiln::sin",  "kiln::cos",    "kiln::tan",   "kiln::tanh",
    "kiln::floor", "kiln::ceil", "kiln::round",  "kiln::sign",  "kiln::isnan",
    "kiln::isinf", "kiln::real", "kiln::imag",   "kiln::conj",  "kiln::arg",
    "kiln::sum",  "kiln::mean",  "kiln::max",    "kiln::min",   "kiln::prod",
    "kiln::var",  "kiln::std",   "kiln::argmax", "kiln::argmin", "kiln::any",
    "kiln::all",  "kiln::count_nonzero", "kiln::linalg::norm", "-", "!", "~", "+"};
const char *const kBinary[] = {"+", "-", "*", "/", "%", "<", "<=", ">", ">=",
                               "==", "!=", "&&", "||", "&", "|", "^", "<<",
                               ">>"};
const char *const kBinaryCall[] = {"kiln::maximum", "kiln::minimum", "kiln::pow",
                                   "kiln::where", "kiln::clip", "kiln::dot",
                                   "kiln::matmul", "kiln::isclose"};
const char *const kReduceTail[] = {"", ", -1", ", 0", ", 1", ", 5", ", -7",
                                   ", kiln::axes{0, 1}", ", kiln::axes{0, 0}",
                                   ", -1, true", ", kiln::ddof(1)"};
const char *const kTypes[] = {
    "float", "double", "bool", "std::int8_t", "std::uint8_t", "std::int32_t",
    "std::int64_t", "std::complex<float>", "std::complex<double>", "int",
    "long double", "char", "unsigned", "short", "__int128", "_Float16",
    "std::nullptr_t", "void *", "auto", "T"};
const char *const kScalars[] = {
    "2.0f", "1", "-3", "0", "1e308", "-0.0", "__builtin_nan(\"\")",
    "__builtin_inf()", "true", "'a'", "std::complex<float>(1, 2)", "300",
    "-129", "18446744073709551615ull", "0x7fffffff", "1.5L", "s", "n"};
const char *const kSnippets[] = {
    "#include <kiln/kiln.hpp>\n",
    "#define F(x) ((x) * (x))\n",
    "#define KILN_FUSE\n",
    "#undef KILN_FUSE\n",
    "template <class T> KILN_FUSE kiln::array<T> t(const kiln::array<T> &x) { return x * x + T(1); }\n"
    "template kiln::array<float> t(const kiln::array<float> &);\n",
    "KILN_FUSE kiln::array<float> loop(const kiln::array<float> &x) { kiln::array<float> y = x; for (int i = 0; i < 3; ++i) y = y + x; return y; }\n",
    "KILN_FUSE kiln::array<float> thr(const kiln::array<float> &x) { if (x.size() == 0) throw 1; return x; }\n",
    "KILN_FUSE kiln::array<float> lam(const kiln::array<float> &x) { auto g = [&](auto v) { return v * 2.0f; }; return g(x); }\n",
    "KILN_FUSE kiln::array<float> st(const kiln::array<float> &x) { static kiln::array<float> c = x; return c + x; }\n",
    "KILN_FUSE kiln::array<float> rec(const kiln::array<float> &x) { return rec(x) + x; }\n",
    "KILN_FUSE kiln::array<float> gt(const kiln::array<float> &x) { goto out; out: return x; }\n",
    "KILN_FUSE void nothing() {}\n",
    "KILN_FUSE int scalar(int a) { return a + 1; }\n",
    "KILN_FUSE auto ded(const kiln::array<double> &x) { return x / x; }\n",
    "KILN_FUSE kiln::array<float> self(const kiln::array<float> &x) { auto y = x + 1.0f; y = y * y; return y; }\n",
    "KILN_FUSE kiln::array<float> mac(const kiln::array<float> &x) { return F(x); }\n",
    "KILN_RAWKERNEL void raw(float *p, int n) { for (int i = 0; i < n; ++i) p[i] = 0; }\n",
    "struct S { KILN_FUSE kiln::array<float> m(const kiln::array<float> &x) const { return x + 1.0f; } };\n",
    "namespace ns { KILN_FUSE kiln::array<int> f(const kiln::array<int> &x, int k) { return x << k; } }\n",
    "int main() { kiln::array<float> a = kiln::ones<float>({4}); auto b = a * 2.0f + a; return b.shape()[0] == 4 ? 0 : 1; }\n",
    "void plain() { auto a = kiln::zeros<std::int8_t>({2, 3}); auto b = kiln::sum(a * a, -1); (void)b; }\n",
    "KILN_FUSE kiln::array<float> va(const kiln::array<float> &x, ...) { return x; }\n",
    "KILN_FUSE kiln::array<float> dflt(const kiln::array<float> &x, float s = 1.0f / 0.0f) { return x * s; }\n",
    "KILN_FUSE kiln::array<float> vol(volatile float s, const kiln::array<float> &x) { return x + s; }\n",
    "KILN_FUSE kiln::array<float> asmb(const kiln::array<float> &x) { asm(\"nop\"); return x; }\n",
    "KILN_FUSE kiln::array<float> co(const kiln::array<float> &x) { return true ? x : x + 1.0f; }\n",
    "KILN_FUSE kiln::array<float> cm(const kiln::array<float> &x) { return (x, x * x); }\n",
    "KILN_FUSE kiln::array<float> ptr(const kiln::array<float> *x) { return *x + *x; }\n",
    "KILN_FUSE kiln::array<float> rv(kiln::array<float> &&x) { return std::move(x) * 2.0f; }\n",
    "KILN_FUSE kiln::array<float> sw(const kiln::array<float> &x, int k) { switch (k) { case 0: return x; default: return -x; } }\n",
    "KILN_FUSE kiln::array<float> tr(const kiln::array<float> &x) { try { return x; } catch (...) { return x; } }\n",
    "KILN_FUSE kiln::array<float> ce(const kiln::array<float> &x) { constexpr float k = 1.0f / 3; return x * k; }\n",
    "KILN_FUSE kiln::array<float> un(const kiln::array<float> &x) { union U { float f; int i; } u{1.0f}; return x * u.f; }\n",
    // Writes into arrays (issue 10): fused updates in place, NumPy's casting
    // errors at compile time, temporaries, views and overlap.
    "void upd(kiln::array<float> &x, const kiln::array<float> &y) { x += 2.5f * y; x.slice({kiln::all}) -= kiln::exp(y); }\n",
    "void upi(kiln::array<std::int32_t> &k) { k /= 2; k %= k; }\n",
    "void upt(const kiln::array<float> &x) { (x + x) *= 2.0f; x.T() += x; }\n",
    "void upb(kiln::array<bool> &m, const kiln::array<float> &x) { m &= x > 0.0f; m |= !m; }\n",
    "KILN_FUSE kiln::array<float> upf(kiln::array<float> x, const kiln::array<float> &y) { auto u = x * y; x += u; return u + x; }\n",
    "void upr(kiln::array<double> &x) { x -= kiln::mean(x, -1, true); kiln::elementwise_into(x, [](double v) { return v * v; }, x); }\n",
    "#pragma once\n",
    "#line 4000000000\n",
    "_Pragma(\"clang diagnostic ignored \\\"-Wall\\\"\")\n",
    "?\?=define TRI 1\n", // a trigraph, if the flags enable them
    "\\\n",
    "R\"x(raw)x\";\n",
    "template <int N> struct R { static constexpr int v = R<N - 1>::v + 1; }; template <> struct R<0> { static constexpr int v = 0; };\n",
};

std::string pick(std::mt19937 &rng, const char *const *list, size_t n) {
  return list[std::uniform_int_distribution<size_t>(0, n - 1)(rng)];
}
#define PICK(list) pick(rng, list, std::size(list))

/// A random expression over the parameters x, y (arrays) and s (a scalar).
std::string expr(std::mt19937 &rng, int depth) {
  int choice = std::uniform_int_distribution<int>(0, depth <= 0 ? 2 : 9)(rng);
  switch (choice) {
  case 0: return "x";
  case 1: return rng() % 2 ? "y" : "s";
  case 2: return PICK(kScalars);
  case 3:
  case 4: return "(" + expr(rng, depth - 1) + " " + PICK(kBinary) + " " + expr(rng, depth - 1) + ")";
  case 5: {
    std::string op = PICK(kUnary);
    if (op.size() <= 1) return op + "(" + expr(rng, depth - 1) + ")";
    bool reduce = op.find("sum") != std::string::npos || op.find("mean") != std::string::npos ||
                  op.find("max") != std::string::npos || op.find("min") != std::string::npos ||
                  op.find("var") != std::string::npos || op.find("std") != std::string::npos ||
                  op.find("norm") != std::string::npos || op.find("prod") != std::string::npos;
    return op + "(" + expr(rng, depth - 1) + (reduce ? PICK(kReduceTail) : "") + ")";
  }
  case 6: {
    std::string op = PICK(kBinaryCall);
    std::string args = expr(rng, depth - 1) + ", " + expr(rng, depth - 1);
    if (op == "kiln::where" || op == "kiln::clip") args += ", " + expr(rng, depth - 1);
    return op + "(" + args + ")";
  }
  case 7: return "static_cast<" + PICK(kTypes) + ">(" + expr(rng, depth - 1) + ")";
  case 8: return "x." + std::string(rng() % 2 ? "sum()" : "mean()");
  default: return "(" + expr(rng, depth - 1) + ")";
  }
}

std::string fuseFunction(std::mt19937 &rng) {
  static unsigned counter = 0;
  std::string t = PICK(kTypes), u = PICK(kTypes), st = PICK(kTypes);
  std::string name = "fz" + std::to_string(counter++ % 64);
  std::string body;
  int stmts = std::uniform_int_distribution<int>(0, 2)(rng);
  for (int i = 0; i < stmts; ++i)
    body += "  auto l" + std::to_string(i) + " = " + expr(rng, 3) + ";\n";
  std::string ret = rng() % 4 ? "kiln::array<" + t + ">" : "auto";
  return "KILN_FUSE " + ret + " " + name + "(const kiln::array<" + t + "> &x, const kiln::array<" + u +
         "> &y, " + st + " s) {\n" + body + "  return " + expr(rng, 4) + ";\n}\n";
}

/// Replaces one occurrence of a name from `list` with another from it.
bool swapName(std::string &text, std::mt19937 &rng, const char *const *list, size_t n) {
  std::string from = list[rng() % n], to = list[rng() % n];
  size_t pos = text.find(from);
  if (pos == std::string::npos) return false;
  text.replace(pos, from.size(), to);
  return true;
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  std::mt19937 rng(seed);
  int kind = std::uniform_int_distribution<int>(0, 9)(rng);
  if (kind < 4) // libFuzzer's own mutations
    return LLVMFuzzerMutate(data, size, maxSize);
  std::string text(reinterpret_cast<char *>(data), size);
  // Splice at a line start.
  std::vector<size_t> lines = {0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') lines.push_back(i + 1);
  size_t at = lines[std::uniform_int_distribution<size_t>(0, lines.size() - 1)(rng)];
  switch (kind) {
  case 4:
  case 5: text.insert(at, fuseFunction(rng)); break;
  case 6: text.insert(at, PICK(kSnippets)); break;
  case 7:
    if (!swapName(text, rng, kUnary, std::size(kUnary)))
      text.insert(at, fuseFunction(rng));
    break;
  case 8:
    if (!swapName(text, rng, kTypes, std::size(kTypes)))
      text.insert(at, PICK(kSnippets));
    break;
  default: { // drop a line
    if (lines.size() > 1) {
      size_t i = std::uniform_int_distribution<size_t>(0, lines.size() - 2)(rng);
      text.erase(lines[i], lines[i + 1] - lines[i]);
    }
    break;
  }
  }
  if (text.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

#else // KILN_FUZZ_REPLAY
//===----------------------------------------------------------------------===//
// Replay: every file named, and every regular file under every directory
// named (sorted), through the target once. Exit 0 when all ran.
//===----------------------------------------------------------------------===//
int main(int argc, char **argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p = argv[i];
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> in;
      for (const auto &e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file()) in.push_back(e.path());
      std::sort(in.begin(), in.end());
      files.insert(files.end(), in.begin(), in.end());
    } else {
      files.push_back(p);
    }
  }
  for (const auto &f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "kiln-fuzz-replay: cannot read %s\n", f.c_str());
      return 1;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "kiln-fuzz-replay: %s (%zu bytes)\n", f.c_str(), text.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(text.data()), text.size());
  }
  std::fprintf(stderr, "kiln-fuzz-replay: %zu input(s) ran\n", files.size());
  return 0;
}
#endif
