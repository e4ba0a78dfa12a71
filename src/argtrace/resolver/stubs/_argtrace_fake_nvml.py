# mypy: ignore-errors
"""A fake NVML (the pynvml API) answering from the ``ARGTRACE_FAKE_GPU`` profile.

Served for ``vllm.third_party.pynvml`` and ``pynvml`` when a fake NVIDIA GPU is installed: vLLM decides its
platform (and several defaults) from NVML, without touching CUDA. Every answer reads the current profile
through ``_argtrace_stubs.field`` when asked (a resolver host's child may switch profile; a host's import
notes what it read).
"""

from __future__ import annotations

from types import SimpleNamespace

from _argtrace_stubs import field, has_profile

NVML_SUCCESS = 0
NVML_P2P_CAPS_INDEX_NVLINK = 2
NVML_P2P_CAPS_INDEX_READ = 0
NVML_P2P_STATUS_OK = 0
NVML_TEMPERATURE_GPU = 0
NVML_CLOCK_SM = 1
NVML_DEVICE_NAME_BUFFER_SIZE = 96


class NVMLError(Exception):
    def __init__(self, value: int = 999) -> None:
        super().__init__(f"NVML error {value} (argtrace fake NVML)")
        self.value = value


class NVMLError_NotSupported(NVMLError):
    pass


class NVMLError_LibraryNotFound(NVMLError):
    pass


def _count() -> int:
    return int(field("count", 1))


def nvmlInit(*_a, **_k) -> None:
    if not has_profile() or field("vendor", "nvidia") != "nvidia":
        raise NVMLError_LibraryNotFound(12)


nvmlInitWithFlags = nvmlInit


def nvmlShutdown() -> None:
    return None


def nvmlDeviceGetCount() -> int:
    return _count()


def nvmlDeviceGetHandleByIndex(index: int) -> int:
    if not 0 <= int(index) < _count():
        raise NVMLError(2)
    return int(index)


def nvmlDeviceGetHandleByUUID(uuid) -> int:
    text = uuid.decode() if isinstance(uuid, bytes) else str(uuid)
    return int(text.rsplit("-", 1)[-1]) if text.startswith("GPU-argtrace-fake-") else 0


def nvmlDeviceGetIndex(handle: int) -> int:
    return int(handle)


def nvmlDeviceGetUUID(handle: int) -> str:
    return f"GPU-argtrace-fake-{int(handle):04d}"


def nvmlDeviceGetName(handle: int) -> str:
    return str(field("product") or field("name") or "NVIDIA H100 80GB HBM3")


def nvmlDeviceGetCudaComputeCapability(handle: int) -> tuple[int, int]:
    cap = field("capability") or [9, 0]
    return int(cap[0]), int(cap[1])


def nvmlDeviceGetMemoryInfo(handle: int, *_a):
    total = int(field("memory", 80 * 2**30))
    free = int(field("free", total))
    return SimpleNamespace(total=total, free=free, used=total - free, reserved=0)


def nvmlDeviceGetPciInfo(handle: int):
    bus = f"00000000:{0x18 + int(handle):02X}:00.0"
    return SimpleNamespace(
        busId=bus,
        busIdLegacy=bus,
        domain=0,
        bus=0x18 + int(handle),
        device=0,
        pciDeviceId=0,
        pciSubSystemId=0,
    )


def nvmlDeviceGetP2PStatus(h1: int, h2: int, index: int) -> int:
    return NVML_P2P_STATUS_OK


def nvmlDeviceGetNumaNodeId(handle: int) -> int:
    return 0


def nvmlDeviceGetCpuAffinity(handle: int, size: int) -> list[int]:
    return [(1 << 64) - 1] * int(size)


def nvmlSystemGetDriverVersion() -> str:
    return str(field("driver", "575.57.08"))


def nvmlSystemGetCudaDriverVersion() -> int:
    major, minor = (str(field("cuda", "12.8")) + ".0").split(".")[:2]
    return int(major) * 1000 + int(minor) * 10


nvmlSystemGetCudaDriverVersion_v2 = nvmlSystemGetCudaDriverVersion


def nvmlDeviceGetComputeRunningProcesses(handle: int) -> list:
    return []


nvmlDeviceGetComputeRunningProcesses_v3 = nvmlDeviceGetComputeRunningProcesses


def nvmlDeviceGetPowerManagementLimit(handle: int) -> int:
    return 700_000


def nvmlDeviceGetTemperature(handle: int, sensor: int) -> int:
    return 30


def nvmlDeviceGetUtilizationRates(handle: int):
    return SimpleNamespace(gpu=0, memory=0)


def nvmlDeviceGetMaxClockInfo(handle: int, clock: int) -> int:
    return 1980


def nvmlDeviceGetMultiGpuBoard(handle: int) -> int:
    return 0


def nvmlDeviceGetBrand(handle: int) -> int:
    return 0
