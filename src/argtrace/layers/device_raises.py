"""A release's argument check that refuses a flag on the GPU ``--gpu`` names, evaluated without running it
(RS036).

SGLang's argument checks test the device as well as the flags: ``--attention-backend trtllm_mha`` raises
"TRTLLM MHA backend is only supported on Blackwell GPUs (SM100)" when ``not is_sm100_supported()``
(``ServerArgs._handle_attention_backend_compatibility``, 0.5.1.post3-0.5.9), ``--kv-cache-dtype nvfp4``
"requires Blackwell SM100 or SM120" (0.5.16 on), ``--moe-a2a-backend flashinfer_megamoe`` an SM100-family
device (0.5.20 on). The raise-site index (``frameworks/data/raise_sites/``) records those tests; RS032
(layers/start_raises.py) leaves them alone because a call is not a setting. With ``--gpu`` the device is
known, so its probes have a value: they read the compute capability's major number and nothing else
(``_check_cuda_device_version`` in ``sglang/srt/utils/common.py``, 0.5.10.post1 and 0.5.23;
``PlatformContext`` of 0.5.19 on maps ``get_platform().is_sm100`` & co. to the same functions,
``srt/runtime_context.py``). Each probe here is that table: the majors it accepts.

A probe on a GPU outside its majors is False whatever else holds. One inside them is True when the CUDA
runtime is new enough (12.8 for SM10x-SM12x, which CUDA needs to run those GPUs at all; 12.3 for SM90): that
assumption is said. The site is then evaluated as RS032 evaluates one (``start_raises.refuses``): every
test must read only given settings, literals and the probes, and read at least one setting and one probe.

Severity: the release's own check refuses the flag on that GPU, but the index records the tests around the
raise, not an earlier return in the function, and the GPU is the one ``--gpu`` names, not the node's: a
warning. A release nothing names is analysed as the newest bundled one (PR011); when that one accepts the
flag on the GPU but other releases that accept every flag of the launch refuse it, a note names them: which
release runs decides (``--framework-version``).
"""

from __future__ import annotations

from argtrace.model import LayerResult, Report


def device_raises(report: Report, gpu: str | None) -> LayerResult:
    """RS036 findings (``device_refusals.py``): none without a GPU named, as :func:`device_refusals._device`
    gives no device then; the probe table and the evaluation are read only for a ``--gpu`` check."""
    if not gpu:
        return LayerResult()
    from argtrace.layers.device_refusals import device_raises as refused_on_device

    return refused_on_device(report, gpu)
