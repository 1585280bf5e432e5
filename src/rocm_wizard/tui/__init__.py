"""The Textual TUI (the only package that imports Textual; its modules load it lazily)."""
