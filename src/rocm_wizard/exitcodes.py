"""Process exit statuses of every rocm-wizard command (documented in README.md).

0 and 2 follow ``terraform plan -detailed-exitcode``: 0 = nothing to do / healthy, 2 = changes
pending or problems found.  Usage errors use 64 (sysexits EX_USAGE) so they never read as "2".
3 is about the system, not the command line: the way out asked for does not apply to it (a
container, WSL, a distribution AMD's repositories do not serve, a GPU no build supports), or
``doctor`` found neither an AMD GPU nor ROCm to diagnose.

The one rule every command follows -- a refusal's status is decided by *what* is wrong, never by
which command noticed it (:func:`refusal`):

- the command line itself (an unknown option, a combination that is refused, a value the option
  cannot take) -> 64;
- a file the command reads (a snapshot that describes no system, an answers file that is missing,
  not TOML, has an unknown key *or* a bad value, an error log) or a step that failed -> 1;
- this system is outside what was asked: no AMD GPU, a GPU no build supports, a torch the driver
  cannot run or whose wheels lack the card's kernels, a way out that does not apply -> 3.
"""

OK = 0  # success; --plan-only / --dry-run: nothing to do; doctor/verify: no problem found
ERROR = 1  # the command failed (bad input file, failed step, unreadable snapshot...)
PENDING = 2  # --plan-only / --dry-run: changes pending; doctor: problems found; verify: a check failed
NOT_APPLICABLE = 3  # the system is outside what was asked: the chosen way out does not apply; doctor: no AMD GPU, no ROCm
USAGE = 64  # bad command line (unknown option, invalid combination)
INTERRUPTED = 130  # stopped by SIGINT/SIGTERM at a safe point

COMMAND_LINE = "command-line"
INPUT = "input"
FAILED = "failed"
SYSTEM = "system"

_BY_KIND = {COMMAND_LINE: USAGE, INPUT: ERROR, FAILED: ERROR, SYSTEM: NOT_APPLICABLE}


def refusal(kind: str) -> int:
    """The exit status of a refusal about ``kind`` (:data:`COMMAND_LINE`, :data:`INPUT`,
    :data:`FAILED` or :data:`SYSTEM`), the same for every command."""
    return _BY_KIND[kind]
