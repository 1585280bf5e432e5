"""Widgets of the wizard, grouped by feature: ``chrome`` (title bar, spinner), ``probes``
(detection rows), ``steps`` (plan and execution step lists), ``modals`` (confirm, export, step
failure)."""
