# lit configuration of Kiln's compiler tests: one .mlir (or .cpp) file a
# behaviour, RUN lines with the substitutions below.
import os
import platform
import shutil

import lit.formats

config.name = "Kiln"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root)

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])

config.substitutions.append(("%kiln-opt", config.kiln_opt))
config.substitutions.append(("%kiln-translate", config.kiln_translate))
config.substitutions.append(("%FileCheck", os.path.join(config.llvm_tools_dir, "FileCheck")))
config.substitutions.append(("%cxx", config.cxx))
config.substitutions.append(("%kiln_include", config.kiln_include))
config.substitutions.append(("%kiln_runtime_lib", config.kiln_runtime_lib))
# The host kernels' float32 sin/cos call glibc's libmvec (KILN_HOST_LIBMVEC).
if getattr(config, "kiln_host_libmvec", "OFF") in ("ON", "1", "TRUE"):
    config.available_features.add("libmvec")
    config.substitutions.append(("%libmvec", "-lmvec"))
else:
    config.substitutions.append(("%libmvec", ""))
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86_64")
# root reads files whatever their mode: tests of unreadable files skip.
if hasattr(os, "getuid") and os.getuid() == 0:
    config.available_features.add("root")

# Tests of minutes (e.g. 1000 kernels compiled): KILN_LONG_TESTS=1.
if os.environ.get("KILN_LONG_TESTS") == "1":
    config.available_features.add("long")

if config.kilnc:
    config.substitutions.append(("%kilnc", config.kilnc))
    config.available_features.add("kilnc")

ptxas = config.ptxas if config.ptxas and os.path.exists(config.ptxas) else shutil.which("ptxas")
if ptxas:
    config.available_features.add("ptxas")
    # %ptxas_bin (any flags) must come before %ptxas, its prefix.
    config.substitutions.append(("%ptxas_bin", ptxas))
    config.substitutions.append(("%ptxas", ptxas + " -arch=sm_80"))
    fatbinary = os.path.join(os.path.dirname(ptxas), "fatbinary")
    if os.path.exists(fatbinary):
        config.available_features.add("fatbinary")

# A GPU and its driver: tests that launch kernels (REQUIRES: gpu).
config.substitutions.append(("%cuda_include", config.cuda_include))
nvidia_smi = shutil.which("nvidia-smi")
if nvidia_smi and os.path.exists(config.cuda_include):
    import subprocess
    try:
        if subprocess.run([nvidia_smi, "-L"], capture_output=True, timeout=30).returncode == 0:
            config.available_features.add("gpu")
    except Exception:
        pass

# NVRTC, which kilnc opens to compile CUDA source literals
# (kiln::raw_module::from_source): tests of that REQUIRE nvrtc. kilnc looks
# for it as the runtime does, $KILN_NVRTC first (passed through).
if os.environ.get("KILN_NVRTC"):
    config.environment["KILN_NVRTC"] = os.environ["KILN_NVRTC"]


def _has_nvrtc():
    import ctypes
    import glob
    candidates = [os.environ.get("KILN_NVRTC", "")]
    for include in config.cuda_include.split(";"):
        root = os.path.dirname(include)
        for lib in ("lib64", "lib"):
            candidates += sorted(glob.glob(os.path.join(root, lib, "libnvrtc.so*")))
    candidates += ["libnvrtc.so.13", "libnvrtc.so", "libnvrtc.so.12"]
    for c in candidates:
        if not c:
            continue
        try:
            ctypes.CDLL(c)
            return True
        except OSError:
            pass
    return False


if _has_nvrtc():
    config.available_features.add("nvrtc")
