"""A Qwen3-VL reranker served without a reranker chat template (RS077).

SGLang's /v1/rerank picks its path from the served chat template and the model path
(``_detect_rerank_backend``, srt/entrypoints/openai/serving_rerank.py:88 in 0.5.23, :86 in 0.5.10.post1): a
model path naming Qwen3-VL (``_is_qwen3_vl_model``: ``"qwen3-vl"`` or ``"qwen3vl"`` in it, lower-cased)
takes the multimodal decoder-only reranker path, which renders the served chat template itself with only
``query`` and ``document`` (``_render_vl_jinja_template``, :168 in 0.5.23, :165 in 0.5.10.post1). Without
``--chat-template`` the template is the model's own chat template, which iterates ``messages``: every rerank
request answers 400 "'messages' is undefined" (QwenLM/Qwen3-VL-Embedding#84, Qwen3-VL-Reranker-8B). A
Qwen3-VL reranker needs a reranker template (the yes/no judgement with the vision placeholders, what
``_is_qwen3_vl_reranker_template`` tests).

Said only when the model path names Qwen3-VL and says it reranks (a chat or embedding Qwen3-VL model is not
served through /v1/rerank), for the releases whose serving_rerank.py was read (0.5.10.post1 and 0.5.23)
and those between them; a warning resting on the name.
"""

from __future__ import annotations

from argtrace.model import Evidence, LayerResult, Report

FIRST_READ, LAST_READ = "0.5.10.post1", "0.5.23"
SOURCE = (
    "sglang/srt/entrypoints/openai/serving_rerank.py: _is_qwen3_vl_model, _detect_rerank_backend (:88) and "
    "_render_vl_jinja_template (:168) in 0.5.23; :78, :86, :165 in 0.5.10.post1"
)


def _in_read_range(release: str) -> bool:
    from argtrace.frameworks.release_index import release_index

    releases = list(release_index("sglang").releases)
    if release not in releases or FIRST_READ not in releases or LAST_READ not in releases:
        return False
    return releases.index(FIRST_READ) <= releases.index(release) <= releases.index(LAST_READ)


def rerank_template(report: Report) -> LayerResult:
    """RS077 for an SGLang launch of a Qwen3-VL reranker without --chat-template."""
    result = LayerResult()
    release = report.parsed_release("sglang")
    if release is None or not _in_read_range(release):
        return result
    model = report.setting("model_path")
    path = model.effective if model is not None else None
    if not isinstance(path, str):
        return result
    lowered = path.lower()
    if not ("qwen3-vl" in lowered or "qwen3vl" in lowered) or "rerank" not in lowered:
        return result  # (Report.parsed_release)
    template = report.setting("chat_template")
    if template is not None and template.intended is not None and not template.unknown_to_framework:
        return result
    from argtrace.rules.start_values import RS077

    at = model.last_at if model is not None else None
    result.findings.append(
        RS077.finding(
            f"/v1/rerank will answer 400 \"'messages' is undefined\" for {path}: SGLang sends a model path "
            "naming Qwen3-VL down its multimodal reranker path, which renders the served chat template with "
            "only query and document (_detect_rerank_backend, _render_vl_jinja_template, "
            "srt/entrypoints/openai/serving_rerank.py), and without --chat-template that is the model's own "
            "chat template, which reads messages (assumed: a reranker, as the model's name says)",
            at=at,
            evidence=[
                Evidence("parser", at, f"model_path={path}, no --chat-template"),
                Evidence("resolution", SOURCE, "the VL reranker path renders query and document only"),
            ],
            setting="chat_template",
            fix="add --chat-template naming a Qwen3-VL reranker template (one whose text says the answer can "
            'only be "yes" or "no" and holds the vision placeholders <|vision_start|>/<|image_pad|>, what '
            "_is_qwen3_vl_reranker_template tests)",
            severity="warning",
            basis="assumed",
        )
    )
    return result
