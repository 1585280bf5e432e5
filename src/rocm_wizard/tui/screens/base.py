"""What every screen of the wizard shares: the title bar, the footer of keys, help, back, quit."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, List, Tuple

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

from ..widgets.chrome import TitleBar

if TYPE_CHECKING:  # pragma: no cover
    from ..app import WizardApp


class WizardScreen(Screen):
    STEP = 0
    NAME = ""
    HELP = ""
    BACK = True  # escape goes back to the previous screen

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("f1", "help", "Help", show=False),
        Binding("q", "quit_wizard", "Quit"),
    ]

    @property
    def wizard(self) -> "WizardApp":
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield TitleBar(self.STEP, self.wizard.mode_label, id="title")
        yield from self.body()
        yield Footer(show_command_palette=False)

    def body(self) -> Iterable:
        return []

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "back" and not self.can_go_back():
            return None if self.BACK else False
        return True

    def can_go_back(self) -> bool:
        return self.BACK and len(self.app.screen_stack) > 2

    def action_back(self) -> None:
        if self.can_go_back():
            self.app.pop_screen()

    def action_help(self) -> None:
        from ..widgets.modals import HelpModal

        self.app.push_screen(HelpModal(self.NAME, self.HELP, self.key_help()))

    def key_help(self) -> List[Tuple[str, str]]:
        """(keys, what) of this screen and the app, the keys of one action together (a binding's
        tooltip, where it has one, is its full description)."""
        groups: dict = {}
        own = [c for c in type(self).__mro__ if c.__module__.startswith("rocm_wizard.")] + [type(self.app)]
        for cls in own:
            for b in cls.__dict__.get("BINDINGS", []):
                if not isinstance(b, Binding) or not b.description:
                    continue
                name = b.action.split("(")[0]
                if cls is not type(self.app) and self.check_action(name, ()) is False:
                    continue
                keys = groups.setdefault(b.tooltip or b.description, [])  # the footer may abbreviate
                for k in b.key.split(","):
                    k = "?" if k == "question_mark" else k
                    if k not in keys:
                        keys.append(k)
        out = [(", ".join(keys), desc) for desc, keys in groups.items()]
        out.append(("tab, shift+tab", "Move between fields and buttons"))
        return out

    def action_quit_wizard(self) -> None:
        self.wizard.request_quit()
