"""rocm-wizard: get ROCm, PyTorch and Triton on AMD GPUs back in step, safely."""

__version__ = "0.1.0"
