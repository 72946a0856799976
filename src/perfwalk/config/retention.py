"""``[retention]`` as the program reads it: what ``perfwalk prune`` drops by default,
and ``perfwalk watch`` at the end of each cycle when a rule is set
(:mod:`perfwalk.services.prune`)."""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.config.settings import default_of


@dataclass(frozen=True)
class RetentionConfig:
    """``[retention]``: the outputs ``perfwalk prune`` drops by default, and ``watch``
    at the end of each cycle when either is set."""

    older_than: int | None = default_of("retention.older_than")  # days; None: no age limit
    max_size: int | None = None  # bytes; None: no size limit

    @property
    def set(self) -> bool:
        """Whether a rule is set: ``watch`` prunes only then."""
        return self.older_than is not None or self.max_size is not None
