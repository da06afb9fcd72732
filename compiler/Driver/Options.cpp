//===- Driver/Options.cpp - kilnc's command line -------------------------===//
//
// Sorts each argument into kilnc's own options, inputs, and the flags the
// frontend, the host compiler and the linker need. Unknown flags pass through
// to the host compiler, so kilnc takes any command line c++ takes.
//
//===----------------------------------------------------------------------===//
#include "Driver/Options.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using llvm::StringRef;

namespace kiln::driver {

bool isCxxSource(const std::string &path) {
  StringRef ext = llvm::sys::path::extension(path);
  return ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c++" ||
         ext == ".C" || ext == ".cp" || ext == ".CPP";
}

namespace {

/// Wrappers that may precede the compiler in a launcher command.
bool isCompilerWrapper(StringRef word) {
  StringRef name = llvm::sys::path::filename(word);
  return name == "ccache" || name == "sccache" || name == "distcc" ||
         name == "icecc" || name == "buildcache";
}

/// Flags whose value may be joined or separate and that the frontend needs.
bool isPreprocessorFlagWithValue(StringRef flag) {
  return llvm::StringSwitch<bool>(flag)
      .Cases({"-I", "-D", "-U", "-isystem", "-iquote", "-idirafter"}, true)
      .Cases({"-include", "-imacros", "-isysroot", "--sysroot", "-iprefix"},
             true)
      .Default(false);
}

/// Linker-only flags with a separate value.
bool isLinkerFlagWithValue(StringRef flag) {
  return flag == "-Xlinker" || flag == "-u" || flag == "-T" || flag == "-z" ||
         flag == "-L" || flag == "-l";
}

/// Linker-only flags without a value (or with a joined one).
bool isLinkerFlag(StringRef a) {
  return a.starts_with("-L") || a.starts_with("-l") || a.starts_with("-Wl,") ||
         a == "-shared" || a.starts_with("-static") || a == "-rdynamic" ||
         a.starts_with("-fuse-ld=") || a == "-nostdlib" ||
         a == "-nodefaultlibs" || a == "-nostartfiles" || a == "-pie" ||
         a == "-no-pie" || a == "-s";
}

/// Other compile flags with a separate value (kept paired).
bool isCompileFlagWithValue(StringRef flag) {
  return flag == "-x" || flag == "-Xclang" || flag == "-Xpreprocessor" ||
         flag == "-Xassembler" || flag == "-arch" || flag == "-target" ||
         flag == "--target" || flag == "-aux-info" || flag == "--param";
}

/// Compile flags clang should see too: they change what the source means.
bool frontendWantsFlag(StringRef a) {
  return a.starts_with("-std=") || a.starts_with("-O") || a == "-pthread" ||
         a == "-nostdinc" || a == "-nostdinc++" || a.starts_with("-stdlib=") ||
         a.starts_with("--sysroot=") || a == "-ffreestanding" ||
         a == "-fno-exceptions" || a == "-fexceptions" || a == "-fno-rtti" ||
         a == "-frtti" || a == "-funsigned-char" || a == "-fsigned-char" ||
         a == "-m32" || a == "-m64" || a == "-w" || a == "-fopenmp" ||
         a == "-ffast-math" || a == "-fno-fast-math";
}

/// -O<x> as a number for the kernels (kilnc's pipeline levels 0..3).
int parseOptLevel(StringRef a) {
  StringRef level = a.drop_front(2);
  if (level.empty())
    return 1;
  if (level == "s" || level == "z" || level == "g")
    return level == "g" ? 1 : 2;
  if (level == "fast")
    return 3;
  unsigned n = 0;
  if (level.getAsInteger(10, n))
    return -1;
  return std::min(n, 3u);
}

bool isValidCudaArch(StringRef arch) {
  if (!arch.consume_front("sm_"))
    return false;
  if (arch.ends_with("a") || arch.ends_with("f"))
    arch = arch.drop_back();
  unsigned n = 0;
  return arch.size() >= 2 && arch.size() <= 3 && !arch.getAsInteger(10, n);
}

std::string missingValue(StringRef flag) {
  return ("argument to '" + flag + "' is missing (expected 1 value)").str();
}

} // namespace

ParseResult parseCommandLine(const std::vector<std::string> &args) {
  ParseResult result;
  DriverOptions &o = result.options;
  size_t i = 0;

  if (!args.empty() && args[0] == "--launcher") {
    o.launcher = true;
    i = 1;
    // `--launcher --cuda-arch=sm_90 c++ ...`: kiln_target() passes the
    // target archs this way (KILN_CUDA_ARCHS).
    std::vector<std::string> archArgs;
    while (i < args.size() && StringRef(args[i]).starts_with("--cuda-arch="))
      archArgs.push_back(args[i++]);
    for (const std::string &a : archArgs) {
      for (StringRef arch : llvm::split(StringRef(a).drop_front(12), ','))
        if (!arch.empty())
          o.cudaArchs.push_back(arch.str());
    }
    for (; i < args.size();) {
      o.hostCompiler.push_back(args[i++]);
      if (!isCompilerWrapper(o.hostCompiler.back()))
        break;
    }
    if (o.hostCompiler.empty() || isCompilerWrapper(o.hostCompiler.back())) {
      result.error = "'--launcher' needs a compiler command after it";
      return result;
    }
  }

  auto fail = [&](std::string message) {
    result.error = std::move(message);
    return result;
  };
  // Adds a compile flag (and its value) to the lists it belongs to.
  auto addCompile = [&](std::initializer_list<std::string> words, bool frontend,
                        bool link) {
    for (const std::string &w : words) {
      o.compileFlags.push_back(w);
      if (frontend)
        o.frontendFlags.push_back(w);
      if (link)
        o.linkDriverFlags.push_back(w);
    }
  };

  for (; i < args.size(); ++i) {
    const std::string &arg = args[i];
    StringRef a(arg);
    bool hasNext = i + 1 < args.size();

    // kilnc's own options (in launcher mode the whole line is the host's).
    if (!o.launcher) {
      if (a == "--help" || a == "-help" || a == "-h") {
        o.showHelp = true;
        continue;
      }
      if (a == "--version") {
        o.showVersion = true;
        continue;
      }
      if (a == "-v" || a == "--verbose") {
        o.verbose = true;
        continue;
      }
      if (a == "-save-temps" || a == "--save-temps" || a == "-save-temps=cwd") {
        o.saveTemps = true;
        continue;
      }
      if (a == "--fusion-report") {
        o.fusionReport = true;
        continue;
      }
      if (a == "--launcher")
        return fail("'--launcher' must be the first argument");
      if (a == "--emit" || a.starts_with("--emit=")) {
        std::string value;
        if (a == "--emit") {
          if (!hasNext)
            return fail(missingValue(a));
          value = args[++i];
        } else {
          value = a.drop_front(7).str();
        }
        o.emit = llvm::StringSwitch<EmitKind>(value)
                     .Case("mlir", EmitKind::MLIR)
                     .Case("fused-mlir", EmitKind::FusedMLIR)
                     .Case("ptx", EmitKind::PTX)
                     .Case("cpp", EmitKind::Cpp)
                     .Default(EmitKind::None);
        if (o.emit == EmitKind::None)
          return fail("invalid value '" + value +
                      "' in '--emit' (expected mlir, fused-mlir, ptx or cpp)");
        continue;
      }
      if (a == "--cuda-host-only") {
        o.cudaHostOnly = true;
        continue;
      }
      if (a == "--cuda-arch" || a.starts_with("--cuda-arch=")) {
        std::string value;
        if (a == "--cuda-arch") {
          if (!hasNext)
            return fail(missingValue(a));
          value = args[++i];
        } else {
          value = a.drop_front(12).str();
        }
        llvm::SmallVector<StringRef> archs;
        StringRef(value).split(archs, ',');
        for (StringRef arch : archs) {
          arch = arch.trim();
          if (!isValidCudaArch(arch))
            return fail(
                "invalid CUDA architecture '" + arch.str() +
                "' in '--cuda-arch' (expected a list like sm_80,sm_90)");
          if (std::find(o.cudaArchs.begin(), o.cudaArchs.end(), arch.str()) ==
              o.cudaArchs.end())
            o.cudaArchs.push_back(arch.str());
        }
        continue;
      }
      if (a == "-p" || a.starts_with("-p=")) {
        if (a == "-p") {
          if (!hasNext)
            return fail(missingValue(a));
          o.buildDir = args[++i];
        } else {
          o.buildDir = a.drop_front(3).str();
        }
        if (o.buildDir->empty())
          return fail("'-p' needs a build directory");
        continue;
      }
    }

    // Output and mode.
    if (a == "-o") {
      if (!hasNext)
        return fail(missingValue(a));
      o.output = args[++i];
      continue;
    }
    if (a.starts_with("-o") && a.size() > 2 && !a.starts_with("-objc")) {
      o.output = a.drop_front(2).str();
      continue;
    }
    if (a == "-c") {
      o.compileOnly = true;
      continue;
    }
    if (a == "-E" || a == "-S" || a == "-M" || a == "-MM" ||
        a == "-fsyntax-only") {
      if (!o.launcher)
        return fail(
            "'" + arg +
            "' is not supported; use --emit=cpp to see the rewritten source");
      o.passthroughReason = arg;
      addCompile({arg}, false, false);
      continue;
    }
    if (a == "-") {
      if (!o.launcher)
        return fail("reading a source from standard input is not supported");
      o.passthroughReason = "stdin";
      addCompile({arg}, false, false);
      continue;
    }

    // Dependency files.
    if (a == "-MD" || a == "-MMD") {
      o.writesDepFile = true;
      addCompile({arg}, false, false);
      continue;
    }
    if (a == "-MF" || a == "-MT" || a == "-MQ") {
      if (!hasNext)
        return fail(missingValue(a));
      std::string value = args[++i];
      if (a == "-MF")
        o.depFile = value;
      else
        o.hasDepTarget = true;
      addCompile({arg, value}, false, false);
      continue;
    }
    if ((a.starts_with("-MF") || a.starts_with("-MT") ||
         a.starts_with("-MQ")) &&
        a.size() > 3) {
      if (a.starts_with("-MF"))
        o.depFile = a.drop_front(3).str();
      else
        o.hasDepTarget = true;
      addCompile({arg}, false, false);
      continue;
    }
    if (a == "-MP") {
      addCompile({arg}, false, false);
      continue;
    }

    // Preprocessor flags: frontend and host compiler.
    if (isPreprocessorFlagWithValue(a)) {
      if (!hasNext)
        return fail(missingValue(a));
      addCompile({arg, args[i + 1]}, true, false);
      ++i;
      continue;
    }
    if ((a.starts_with("-I") || a.starts_with("-D") || a.starts_with("-U")) &&
        a.size() > 2) {
      addCompile({arg}, true, false);
      continue;
    }
    if (a.starts_with("-isystem") || a.starts_with("-iquote") ||
        a.starts_with("-idirafter")) {
      addCompile({arg}, true, false);
      continue;
    }
    if (a.starts_with("-std=")) {
      o.hasStd = true;
      addCompile({arg}, true, false);
      continue;
    }
    if (a.starts_with("-O")) {
      int level = parseOptLevel(a);
      if (level >= 0)
        o.optLevel = level;
      addCompile({arg}, true, true);
      continue;
    }

    // Linker flags.
    if (isLinkerFlagWithValue(a)) {
      if (!hasNext)
        return fail(missingValue(a));
      std::string joined = a == "-L" || a == "-l" ? arg + args[i + 1] : "";
      if (!joined.empty()) {
        o.linkItems.push_back({LinkItem::Flag, joined});
      } else {
        o.linkItems.push_back({LinkItem::Flag, arg});
        o.linkItems.push_back({LinkItem::Flag, args[i + 1]});
      }
      ++i;
      continue;
    }
    if (isLinkerFlag(a)) {
      o.linkItems.push_back({LinkItem::Flag, arg});
      continue;
    }

    // Any other flag passes through to the host compiler (and the link).
    if (isCompileFlagWithValue(a)) {
      if (!hasNext)
        return fail(missingValue(a));
      addCompile({arg, args[i + 1]}, false, a != "-x");
      ++i;
      continue;
    }
    if (a.size() > 1 && a.starts_with("-")) {
      bool warningFlag = a.starts_with("-W") && !a.starts_with("-Wl,");
      addCompile({arg}, frontendWantsFlag(a), !warningFlag);
      continue;
    }

    // Inputs.
    if (isCxxSource(arg)) {
      o.sources.push_back(arg);
      o.linkItems.push_back({LinkItem::Source, arg});
    } else {
      o.linkItems.push_back({LinkItem::Object, arg});
    }
  }

  if (o.launcher || o.showHelp || o.showVersion)
    return result;

  if (o.linkItems.empty() ||
      std::none_of(
          o.linkItems.begin(), o.linkItems.end(),
          [](const LinkItem &item) { return item.kind != LinkItem::Flag; }))
    return fail("no input files");
  if (o.emit != EmitKind::None) {
    for (const LinkItem &item : o.linkItems)
      if (item.kind == LinkItem::Object)
        return fail("'--emit' takes C++ sources only, not '" + item.value +
                    "'");
  }
  if (o.cudaHostOnly && o.emit == EmitKind::PTX)
    return fail("'--emit=ptx' needs GPU code, which '--cuda-host-only' leaves out");
  if (o.cudaHostOnly && !o.cudaArchs.empty())
    return fail("'--cuda-arch' needs GPU code, which '--cuda-host-only' leaves out");
  bool printsOnly = o.emit != EmitKind::None ||
                    (o.fusionReport && !o.compileOnly && !o.output);
  if (o.output && *o.output == "-" && !printsOnly)
    return fail("'-o -' writes to standard output, which only --emit does");
  if ((o.compileOnly || printsOnly) && o.sources.empty())
    return fail("no C++ source files among the inputs");
  if (o.compileOnly && o.output && o.sources.size() > 1 &&
      o.emit == EmitKind::None)
    return fail("cannot specify -o when generating multiple output files");
  return result;
}

const char *helpText() {
  return R"(OVERVIEW: kilnc - the Kiln kernel-fusion compiler for C++ array code

USAGE: kilnc [options] <inputs...>

  kilnc app.cpp -o app                      compile and link, like c++
  kilnc -c app.cpp -o app.o                 compile only
  kilnc --emit=cpp app.cpp -o -             print a stage
  kilnc --fusion-report app.cpp             which statements became which kernel

Inputs: C++ sources (.cpp .cc .cxx .c++ .C) go through kilnc; anything else
(.o .a .so) goes to the link.

OPTIONS:
  -o <file>             Write the output to <file> ("-" = standard output for --emit)
  -c                    Compile each source to an object file; do not link
  --emit=<stage>        Print a stage instead of compiling:
                          mlir        the kernels as the frontend wrote them
                          fused-mlir  after fusion
                          ptx         the kernels' PTX
                          cpp         the rewritten C++ with its kernel table
  --fusion-report       Print which expressions became which kernel, the ops
                        fused and the bytes moved per element; then compile if
                        -c or -o is given
  --cuda-host-only      Build the kernels for the host only (no PTX): faster
                        builds for machines without a GPU; a GPU launch of
                        such a kernel raises kiln::device_error
  --cuda-arch=<archs>   Also build cubins for these GPUs, e.g. sm_80,sm_90
                        (needs ptxas); PTX for sm_80 is always embedded
  -p <build-dir>        Take each source's flags from <build-dir>/compile_commands.json
  -I<dir> -D<m>[=<v>] -U<m> -std=<std> -O0..-O3 -g
                        As for c++ (the default standard is -std=c++20)
  -save-temps           Keep the rewritten source and objects in the current directory
  -v                    Print the stages and each command kilnc runs
  --version             Print kilnc's version
  --help                Print this help
  --launcher <c++> ...  Act as CMake's compiler launcher for the command that follows

Other flags (-Wall, -fPIC, -march=..., -pthread, -L, -l, -Wl,...) pass through
to the host compiler ($KILN_CXX, else c++) and the linker.
)";
}

} // namespace kiln::driver
