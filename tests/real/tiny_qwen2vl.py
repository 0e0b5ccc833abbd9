"""A tiny, random-weight Qwen2-VL checkpoint built on the spot, for the "real engine" tests.

The tests under ``tests/real`` drive the genuine vLLM (CPU build) and transformers code paths:
model loading, the multimodal processor, the chat template, image placeholders, generation and
the OpenAI-compatible server. They must run offline, so nothing may come from the Hugging Face
hub. This module writes a complete Qwen2-VL folder instead:

- ``config.json`` with 2 text layers (hidden 128, 2 heads of 64, 1 KV head, M-RoPE sections
  ``[8, 12, 12]``), a 2-block vision tower and ``max_position_embeddings`` 4096, so an engine
  that takes its context length from the config gets 4096;
- ``model.safetensors`` with seeded random weights (the output is gibberish, but deterministic);
- a byte-level BPE tokenizer trained here on a small corpus, carrying Qwen2-VL's special tokens
  and an equivalent chat template;
- the image and video preprocessors, capped at ``64 * 28 * 28`` pixels so images stay small.

The whole folder is about 1.5 MB and takes well under a second to write once torch is imported.
"""

from __future__ import annotations

from pathlib import Path

# Qwen2-VL's added tokens, in the order the original tokenizer numbers them (after the BPE vocab).
SPECIAL_TOKENS: tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
)

# Number of ordinary (BPE) tokens; the special tokens follow them.
BPE_VOCAB_SIZE = 400
# Embedding rows in the model: covers the BPE vocab plus the special tokens, rounded up.
MODEL_VOCAB_SIZE = 512

MIN_PIXELS = 4 * 28 * 28
MAX_PIXELS = 64 * 28 * 28
MAX_POSITION_EMBEDDINGS = 4096

# Equivalent of Qwen2-VL-Instruct's template: a default system turn, image / video parts turned
# into vision placeholders (the processor expands <|image_pad|> to the image's token count).
CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}"
    "{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}"
    "{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
    "{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}"
    "{{ message['content'] }}"
    "{% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] in ('image', 'image_url') or 'image' in part or 'image_url' in part %}"
    "{% set image_count.value = image_count.value + 1 %}"
    "{% if add_vision_id %}Picture {{ image_count.value }}: {% endif %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] in ('video', 'video_url') or 'video' in part %}"
    "{% set video_count.value = video_count.value + 1 %}"
    "{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in part %}"
    "{{ part['text'] }}"
    "{% endif %}"
    "{% endfor %}"
    "{% endif %}"
    "<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}"
    "<|im_start|>assistant\n"
    "{% endif %}"
)

_CORPUS: tuple[str, ...] = (
    "A B C D",
    "A. B. C. D.",
    "The answer is A. The answer is B. The answer is C. The answer is D.",
    "Answer with the letter of the correct option: A, B, C or D.",
    "Question: which option is correct? Options: (A) yes (B) no (C) maybe (D) unknown",
    "You are a helpful assistant. Look at the image and answer the question.",
    "The image shows a chest X-ray, a CT scan, an MRI of the brain, or an ultrasound.",
    "normal abnormal left right upper lower lung heart liver kidney bone fracture lesion",
    "What is the modality of this image? What organ is shown? Is there an abnormality?",
    "0 1 2 3 4 5 6 7 8 9 yes no true false",
)


def _build_tokenizer():  # -> transformers.PreTrainedTokenizerFast
    """Train a small byte-level BPE and wrap it with Qwen2-VL's special tokens and template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=BPE_VOCAB_SIZE,
        min_frequency=1,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    backend.train_from_iterator(list(_CORPUS) * 4, trainer=trainer)
    # Added after training, so they take the ids right after the BPE vocab.
    backend.add_special_tokens(list(SPECIAL_TOKENS))

    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token=None,
        bos_token=None,
        chat_template=CHAT_TEMPLATE,
        model_max_length=MAX_POSITION_EMBEDDINGS,
        clean_up_tokenization_spaces=False,
        split_special_tokens=False,
    )


def build_tiny_qwen2vl(folder: Path) -> Path:
    """Write a tiny random-weight Qwen2-VL checkpoint into ``folder`` and return ``folder``.

    The folder holds everything vLLM and transformers need to load it offline: ``config.json``,
    ``generation_config.json``, ``model.safetensors`` (bfloat16, seeded random weights, so the
    same call always writes the same weights), the tokenizer files with the chat template, and
    the image and video preprocessor configs (images resized to at most ``64 * 28 * 28`` pixels).
    Nothing is downloaded.
    """
    import torch
    from transformers import (
        GenerationConfig,
        Qwen2VLConfig,
        Qwen2VLForConditionalGeneration,
        Qwen2VLImageProcessor,
        Qwen2VLProcessor,
        Qwen2VLVideoProcessor,
    )

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)

    tokenizer = _build_tokenizer()
    token_id = tokenizer.convert_tokens_to_ids
    eos_ids = [token_id("<|im_end|>"), token_id("<|endoftext|>")]
    assert len(tokenizer) <= MODEL_VOCAB_SIZE, len(tokenizer)

    config = Qwen2VLConfig(
        text_config={
            "vocab_size": MODEL_VOCAB_SIZE,
            "hidden_size": 128,
            "intermediate_size": 256,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "num_key_value_heads": 1,
            "max_position_embeddings": MAX_POSITION_EMBEDDINGS,
            "max_window_layers": 2,
            "rms_norm_eps": 1e-6,
            "rope_parameters": {
                "rope_type": "default",
                "rope_theta": 1000000.0,
                "mrope_section": [8, 12, 12],
            },
            "bos_token_id": token_id("<|endoftext|>"),
            "eos_token_id": token_id("<|im_end|>"),
            "pad_token_id": token_id("<|endoftext|>"),
        },
        vision_config={
            "depth": 2,
            "embed_dim": 64,
            "hidden_size": 128,
            "num_heads": 2,
            "mlp_ratio": 4,
            "patch_size": 14,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
        },
        image_token_id=token_id("<|image_pad|>"),
        video_token_id=token_id("<|video_pad|>"),
        vision_start_token_id=token_id("<|vision_start|>"),
        vision_end_token_id=token_id("<|vision_end|>"),
        tie_word_embeddings=False,
    )

    torch.manual_seed(0)
    model = Qwen2VLForConditionalGeneration(config).to(torch.bfloat16).eval()
    model.generation_config = GenerationConfig(
        bos_token_id=token_id("<|endoftext|>"),
        eos_token_id=eos_ids,
        pad_token_id=token_id("<|endoftext|>"),
    )
    model.save_pretrained(folder, safe_serialization=True)

    size = {"shortest_edge": MIN_PIXELS, "longest_edge": MAX_PIXELS}
    processor = Qwen2VLProcessor(
        image_processor=Qwen2VLImageProcessor(
            size=size, patch_size=14, temporal_patch_size=2, merge_size=2
        ),
        # cap_pixels_per_frame set explicitly: transformers warns on every load when it is unset.
        video_processor=Qwen2VLVideoProcessor(
            size=size, patch_size=14, temporal_patch_size=2, merge_size=2, cap_pixels_per_frame=True
        ),
        tokenizer=tokenizer,
        chat_template=CHAT_TEMPLATE,
    )
    processor.save_pretrained(folder)
    return folder
