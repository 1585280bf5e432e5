"""The wizard says on its first screen what root is for (issue 22), not after Run fails."""
from __future__ import annotations


async def test_the_wizard_shows_it_on_its_first_screen_at_80x24(make_app):
    from rocm_wizard.demo import DemoCore

    class LiveLike(DemoCore):  # the demo's data, as a live run whose Run would change this machine
        def changes_this_machine(self):
            return True

    core = LiveLike(speed=0, fail={})
    app = make_app(core=core, environ={"SUDO_USER": "nobody-here", "PATH": "/nonexistent"})
    app.euid = 1000
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        notice = app.screen.query_one("#root-notice")
        text = " ".join(str(notice.render()).split())
        assert "needs root" in text and "sudo" in text
    demo = make_app()
    async with demo.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not demo.screen.query("#root-notice")
