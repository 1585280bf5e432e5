"""Issue 22 (TUI at 80x24): the Core SDK's mirror and key fields show only while a Core SDK release
is chosen in the ROCm release list; the legacy mirror and key stay (repo.radeon.com also serves a
Core SDK plan's kernel driver)."""
from __future__ import annotations

from _tui_helpers import walk_to_options


async def test_core_sdk_fields_follow_the_chosen_release(make_app):
    from textual.widgets import Select

    from rocm_wizard.tui import fields as F

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await walk_to_options(pilot, "rocm-upgrade")
        screen = app.screen
        sel = screen.query_one("#in-rocm", Select)
        core = [v for _label, v in sel._options if F.is_core_release(v)]
        legacy = [v for _label, v in sel._options if not F.is_core_release(v)]
        assert core and legacy, sel._options

        def shown(name):
            return screen.query_one(f"#field-{name}").display

        assert not F.is_core_release(sel.value)  # the demo's default: ROCm 7.2.4, legacy
        assert not shown("rocm_core_mirror") and not shown("rocm_core_key_fingerprint")
        assert shown("rocm_mirror") and shown("rocm_key_fingerprint")
        sel.value = core[0]
        await pilot.pause()
        assert shown("rocm_core_mirror") and shown("rocm_core_key_fingerprint") and shown("rocm_key_fingerprint")
        sel.value = legacy[0]
        await pilot.pause()
        assert not shown("rocm_core_mirror") and not shown("rocm_core_key_fingerprint")
