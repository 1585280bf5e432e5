from rocm_wizard import _re_code

_re_code.install()  # (before the CLI's imports compile their patterns: see _re_code)

from rocm_wizard.cli import entry  # noqa: E402

entry()
