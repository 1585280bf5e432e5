"""Messages that workers post to the screens (thread-safe ``post_message``); handlers own all state
changes, workers never touch widgets."""
from __future__ import annotations

from typing import Any, List, Optional

from textual.message import Message


class ProbeFinished(Message):
    def __init__(self, name: str, ok: bool, text: str, seconds: float) -> None:
        super().__init__()
        self.name = name
        self.ok = ok
        self.text = text
        self.seconds = seconds


class DetectionDone(Message):
    def __init__(self, system: Any, diagnosis: Any, error: Optional[str] = None) -> None:
        super().__init__()
        self.system = system
        self.diagnosis = diagnosis
        self.error = error


class PlanReady(Message):
    def __init__(self, plan: Any, reports: List[Any], script: str, error: Optional[str] = None) -> None:
        super().__init__()
        self.plan = plan
        self.reports = reports
        self.script = script
        self.error = error


class ExecEvent(Message):
    """One event of the executor (real or simulated), already translated by the core adapter."""

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event


class ExecFinished(Message):
    def __init__(self, outcome: Any) -> None:
        super().__init__()
        self.outcome = outcome


class VerifyProgress(Message):
    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line


class VerifyDone(Message):
    def __init__(self, report: Any, error: Optional[str] = None) -> None:
        super().__init__()
        self.report = report
        self.error = error
