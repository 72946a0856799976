"""The JSON bodies the API reads, as pydantic models: FastAPI checks a request
against them (a 422 names the field) and describes them in the OpenAPI document."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from perfwalk.report.change_list import TRIAGE_STATES
from perfwalk.services.push import COMMIT_ID, PUSH_FORMATS

PushFormat = Literal["hyperfine", "pytest-benchmark", "gbench"]
TriageState = Literal["acknowledged", "expected", "invalid", "fixed"]
assert PUSH_FORMATS == ("hyperfine", "pytest-benchmark", "gbench")
assert TRIAGE_STATES == ("acknowledged", "expected", "invalid", "fixed")

_NAME = r"^[^\x00-\x1f\x7f]+$"  # no control character


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class PushBody(_Body):
    """A result made elsewhere: the file a benchmark tool wrote, where and at which
    commit it was measured."""

    format: PushFormat = Field(description="the tool that wrote the file")
    text: str = Field(min_length=1, description="the file's content, as the tool wrote it")
    commit: str = Field(
        pattern=COMMIT_ID,
        description="the commit measured: its object id (4 to 64 hex digits; the full "
        "id, or a start the API's clone of the project resolves)",
    )
    branch: str = Field(min_length=1, max_length=255, pattern=_NAME)
    host: str = Field(min_length=1, max_length=255, pattern=_NAME, description="the runner")
    date: AwareDatetime | None = Field(
        default=None,
        description="the commit's date, with its offset (default: now); from 1970 to "
        "[api] push_future past the API's clock",
    )
    project: str | None = Field(
        default=None,
        min_length=1,
        max_length=255,
        pattern=_NAME,
        description="default: the API's [project] name",
    )
    test: str | None = Field(
        default=None,
        min_length=1,
        max_length=255,
        pattern=_NAME,
        description="the name of the result (default: the format)",
    )
    subject: str = Field(
        default="",
        max_length=1000,
        description="the commit's subject, as the push claims it (git's wins where known)",
    )
    author: str = Field(default="", max_length=255, description="as the push claims it")


class PushAnswer(BaseModel):
    """Where a push was stored (201)."""

    series: int = Field(description="the push series of its project, branch and host")
    checkout: int = Field(description="the index of its commit's checkout in the series")
    repetition: int = Field(description="the index of its repetition in the checkout")
    values: int = Field(description="the values stored")
    new_series: bool
    new_checkout: bool


class TriageBody(_Body):
    """A person's word on a change (what `perfwalk triage` stores)."""

    state: TriageState
    reason: str = Field(
        min_length=1, max_length=10_000, description="why: what the next person reads"
    )
    bug: str = Field(default="", max_length=2000, description="the http(s) address of its bug")


class JobBody(_Body):
    """A job to queue: its kind and parameters, checked by the job queue
    (:mod:`perfwalk.services.job_params`): names and values the configuration allows,
    never a command."""

    kind: str = Field(
        min_length=1,
        max_length=64,
        pattern=r"^[a-z][a-z0-9-]*$",
        description="run, drill, try or watch",
    )
    params: dict[str, Any] = Field(
        default_factory=dict,
        description="the direct command's options by name (docs/api.md lists them)",
    )
