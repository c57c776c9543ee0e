"""Targets and their geometry (SPEC §1)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError


@dataclass(frozen=True)
class Target:
    """One chip generation tongasm encodes for."""

    name: str  # "gen2" / "gen3" (the BIR JSON ``arch`` spelling)
    chip: str
    generator: str
    arch_level: int  # module version
    sbuf_partitions: int = 128
    sbuf_bytes_per_partition: int = 192 * 1024
    psum_banks: int = 8
    psum_bank_bytes: int = 2048
    registers: int = 62  # usable register ids 0..61 per engine
    semaphores: int = 256

    @property
    def psum_bytes_per_partition(self) -> int:
        return self.psum_banks * self.psum_bank_bytes


GEN2 = Target("gen2", "Trn1 / Inf2, NeuronCore-v2", "CoreV2", 20, sbuf_bytes_per_partition=192 * 1024)
GEN3 = Target("gen3", "Trn2, NeuronCore-v3", "CoreV3", 30, sbuf_bytes_per_partition=224 * 1024)
TARGETS = {t.name: t for t in (GEN2, GEN3)}
DEFAULT_TARGET = GEN2


def get_target(name: str | Target) -> Target:
    """Look a target up by name (``gen2``/``gen3``)."""
    if isinstance(name, Target):
        return name
    try:
        return TARGETS[name]
    except KeyError:
        raise UsageError(f"unknown target {name!r}; choose one of: {', '.join(TARGETS)}") from None
