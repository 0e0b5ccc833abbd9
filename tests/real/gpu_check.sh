#!/usr/bin/env bash
# The real-component tests on an NVIDIA GPU machine, in one go (for a lent GPU machine):
#   tests/real/gpu_check.sh [VENV]
# Installs the app with vLLM's CUDA wheel (the [vllm] extra) into VENV (default
# .venv-gpu), prints the GPU and versions, and runs tests/real with MEDRCUBE_REAL_GPU=1:
# CUDA graphs and compilation on, --gpu-memory-utilization 0.3, the GPU name recorded.
# Writes its log and the pytest report under $OUT when set (the device tool's folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${1:-.venv-gpu}
out=${OUT:-/tmp/medrcube-gpu-check}
mkdir -p "$out"
{
    nvidia-smi || true
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -e '.[test,vllm]'
    "$venv/bin/python" -c "import torch, vllm, transformers; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '-', 'vllm', vllm.__version__, 'transformers', transformers.__version__)"
    MEDRCUBE_REAL_GPU=1 QT_QPA_PLATFORM=offscreen "$venv/bin/python" -m pytest -m real tests/real \
        -v --durations=0 --junitxml="$out/real-gpu.xml"
} 2>&1 | tee "$out/gpu_check.log"
