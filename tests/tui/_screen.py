"""Read what a running Textual app shows, as plain text (for assertions and for reviewing)."""
from __future__ import annotations

import io


def screen_text(app) -> str:
    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system=None,
                      record=True, legacy_windows=False, safe_box=False)
    render = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(render)
    return console.export_text()


def svg_text(svg: str) -> str:
    """The visible text of a Textual SVG screenshot, one line per row (to review snapshots)."""
    import html
    import re

    rows = {}
    for m in re.finditer(r'<text[^>]*\by="([\d.]+)"[^>]*>(.*?)</text>', svg, re.S):
        y = float(m.group(1))
        rows.setdefault(y, []).append(html.unescape(re.sub(r"<[^>]+>", "", m.group(2))))
    return "\n".join("".join(parts) for _y, parts in sorted(rows.items()))


def flat(text: str) -> str:
    """Whitespace folded, so that a phrase wrapped over two lines still reads as one."""
    return " ".join(text.split())


def shown(app, *phrases: str) -> bool:
    """Every phrase is on the screen (wrapping and padding ignored)."""
    text = flat(screen_text(app))
    return all(flat(p) in text for p in phrases)
