"""What the ``vllm`` and ``hf`` backends share inside :mod:`.model_worker`: the chat
message of one request and the GPU's name for the record.

Kept apart from :mod:`.model_worker` (which imports the backends) so that no import
chain leads back to the module it starts from.
"""

from __future__ import annotations


def conversation(request: dict) -> list[dict]:
    """One user message in the OpenAI chat format: the image (a data URL) first, then
    the Table 9 text (paper Table 9; the same message the ``openai`` engine sends)."""
    content: list[dict] = []
    if request.get("image_b64"):
        mime = request.get("image_mime") or "image/png"
        url = f"data:{mime};base64,{request['image_b64']}"
        content.append({"type": "image_url", "image_url": {"url": url}})
    content.append({"type": "text", "text": request["prompt"]})
    return [{"role": "user", "content": content}]


def gpu_name() -> str:
    """The first CUDA device's name, or '' (informative only: any failure gives '')."""
    try:
        import torch

        return torch.cuda.get_device_name(0) if torch.cuda.is_available() else ""
    except Exception:  # noqa: BLE001 - a name for the record, never a reason to fail
        return ""
