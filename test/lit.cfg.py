# -*- Python -*-
import os
import shutil
import subprocess
import sys

from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

# The test format lives in a module of its own: lit's worker processes
# unpickle it by name.
sys.path.insert(0, os.path.dirname(__file__))
from rvnn_lit_format import ShTestRemovingPassedOutputs

config.name = "RVNN"
config.test_format = ShTestRemovingPassedOutputs(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "rvnn_lit_format.py", "__pycache__"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.rvnn_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%rvnn_src", config.rvnn_src_root))
config.substitutions.append(("%models", os.path.join(config.rvnn_src_root, "models")))
# The build directory, for scripts that take one (bench/cost_protocol.py).
config.substitutions.append(("%rvnn_build", config.rvnn_obj_root))
# OpenBLAS's Haswell and Zen SGEMM kernels (what rvnn-run multiplies with
# on a machine without AVX-512, where it does not use LIBXSMM) round equal
# rows of a product differently by their place in a tile; its Sandybridge
# kernels compute every row alike. Tests that need exactly tied float32
# values (BT-GRC's scores of equal pairs, pinning rvnn.topk's tie rule) run
# rvnn-run on those.
config.substitutions.append(
    ("%row_invariant_blas", "env OPENBLAS_CORETYPE=Sandybridge"))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# The sanitizer build (RVNN_SANITIZE; scripts/test.sh --sanitize) reads its
# runtime options and suppressions from the environment
# (scripts/sanitize/options.sh). lit.llvm passes only some of them, and in
# LLVM 19 not ASAN_OPTIONS (a missing comma joins it to the name before).
llvm_config.with_system_environment(
    ["ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS", "ASAN_SYMBOLIZER_PATH"])
if getattr(config, "rvnn_sanitize", False):
    config.available_features.add("sanitize")

tools = ["rvnn-opt"]
if os.path.exists(os.path.join(config.rvnn_tools_dir, "rvnn-run")):
    tools.append("rvnn-run")
    config.available_features.add("runtime")
llvm_config.add_tool_substitutions(tools, [config.rvnn_tools_dir])


# Equivalence tests run the eager references in bench/reference with
# Debian's python3-torch.
PYTHON_TORCH = "/usr/bin/python3"
try:
    if subprocess.run([PYTHON_TORCH, "-c", "import torch"], capture_output=True,
                      timeout=60).returncode == 0:
        config.available_features.add("python-torch")
        # Before lit's own %python, which is a prefix of this name.
        config.substitutions.insert(0, ("%python_torch", PYTHON_TORCH))
except (OSError, subprocess.TimeoutExpired):
    pass


def find_ptxas():
    """The ptxas the compiler itself would find (PATH, then the toolkit's
    default place), so tests that assemble PTX run wherever export does."""
    ptxas = shutil.which("ptxas")
    if not ptxas and os.access("/usr/local/cuda/bin/ptxas", os.X_OK):
        ptxas = "/usr/local/cuda/bin/ptxas"
    return ptxas


PTXAS = find_ptxas()
if PTXAS:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", PTXAS))
    # The toolkit ptxas belongs to, when it has libdevice (f64 math in
    # CUDA kernels links it at compile time).
    CUDA_HOME = os.path.dirname(os.path.dirname(os.path.realpath(PTXAS)))
    if os.path.isfile(os.path.join(CUDA_HOME, "nvvm", "libdevice", "libdevice.10.bc")):
        config.available_features.add("cuda-libdevice")
        config.substitutions.append(("%cuda_home", CUDA_HOME))


def has_cuda_gpu():
    """GPU tests run only where a CUDA device answers."""
    smi = shutil.which("nvidia-smi")
    if not config.rvnn_have_cuda_gpu or not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if has_cuda_gpu():
    config.available_features.add("cuda-gpu")
