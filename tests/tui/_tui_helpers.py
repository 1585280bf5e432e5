"""Helpers of the TUI tests (import them from here, not from conftest): wait for the pilot, walk
the wizard to a screen, a frozen clock."""
from __future__ import annotations

import asyncio


def frozen_clock() -> float:
    return 0.0


async def wait_for(pilot, predicate, timeout: float = 20.0, step: float = 0.02):
    """Pause the pilot until ``predicate()`` is true; fail the test after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {getattr(predicate, '__name__', predicate)}; "
                                 f"screen is {type(pilot.app.screen).__name__}; run outcome {getattr(pilot.app, 'outcome', None)!r}")
        await pilot.pause(step)
    await pilot.pause()


def screen_name(app) -> str:
    return type(app.screen).__name__


async def to_screen(pilot, name: str, timeout: float = 20.0):
    await wait_for(pilot, lambda: screen_name(pilot.app) == name, timeout)


async def detected(pilot):
    await to_screen(pilot, "DetectionScreen")
    await wait_for(pilot, lambda: pilot.app.screen.done)


PATH_INDEX = {"torch-reinstall": 0, "docker": 1, "rocm-upgrade": 2,  # the demo's ranking
              "guard": 3, "clean": 4}  # then the ways of one's own (the demo's venv, its host state)


async def walk_to_options(pilot, path: str = "torch-reinstall"):
    await detected(pilot)
    await pilot.press("n")
    await to_screen(pilot, "FindingsScreen")
    await pilot.press("n")
    await to_screen(pilot, "PathScreen")
    for _ in range(PATH_INDEX[path]):
        await pilot.press("down")
    await pilot.press("enter")
    await to_screen(pilot, "OptionsScreen")


async def walk_to_review(pilot, path: str = "torch-reinstall"):
    await walk_to_options(pilot, path)
    await pilot.press("ctrl+n")
    await to_screen(pilot, "ReviewScreen")
    await wait_for(pilot, lambda: pilot.app.screen.plan is not None or pilot.app.screen.error is not None)


async def answer_questions(pilot, answer: str = "n"):
    """Answer the plan's own yes/no questions (apt removals...) that follow the run confirmation;
    no is the safe answer."""
    app = pilot.app
    for q in app.core.confirmations(app.plan):
        await wait_for(pilot, lambda q=q: getattr(app.screen, "question", None) == q["question"])
        await pilot.press(answer)


async def walk_to_execute(pilot, path: str = "torch-reinstall"):
    await walk_to_review(pilot, path)
    await pilot.press("x")
    await to_screen(pilot, "ConfirmModal")
    await pilot.press("y")
    await answer_questions(pilot)
    # the run starts at once: a failure dialog may already stand on top of the execute screen
    await wait_for(pilot, lambda: any(type(s).__name__ == "ExecuteScreen" for s in pilot.app.screen_stack))
