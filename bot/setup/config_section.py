"""The base every section of the configuration is a model of.

A section forbids unknown keys, so a typo is an error that names its key rather than a
setting silently ignored, and validates its defaults as it validates what the file says.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Section"]


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)
