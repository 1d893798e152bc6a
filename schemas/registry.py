"""Registry: the manifest of one generated rule set (generated/<set>/registry.json)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .kernel_config import KernelConfig


class RegistryEntry(BaseModel):
    """One generated instance: its config, where it came from and where its source is."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    config: KernelConfig
    rule: str = Field(description="rule of the base set that admitted it")
    selected_by: list[str] = Field(description="keep clauses (outermost set first) that kept it; empty for base sets")
    archs: list[str] = Field(description="architectures whose constraints it satisfies")
    source: str = Field(description="path of the kernel source, relative to the repository root")
    sha256: str = Field(description="content hash of the source file")
    generator_version: str


class Registry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rule_set: str
    rule_files: list[str] = Field(description="the set's rule file, then the files it extends")
    generator_version: str
    entries: list[RegistryEntry]

    def by_name(self) -> dict[str, RegistryEntry]:
        return {entry.name: entry for entry in self.entries}

    @classmethod
    def from_json(cls, text: str) -> "Registry":
        """Parse registry.json (its `_generated` header is informational and dropped)."""
        import json

        data = json.loads(text)
        data.pop("_generated", None)
        return cls.model_validate(data)
