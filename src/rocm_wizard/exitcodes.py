"""Process exit statuses of every rocm-wizard command (documented in README.md).

0 and 2 follow ``terraform plan -detailed-exitcode``: 0 = nothing to do / healthy, 2 = changes
pending or problems found.  Usage errors use 64 (sysexits EX_USAGE) so they never read as "2".
3 is about the system, not the command line: the way out asked for does not apply to it (a
container, WSL, a distribution AMD's repositories do not serve, a GPU no build supports), or
``doctor`` found neither an AMD GPU nor ROCm to diagnose.
"""

OK = 0  # success; --plan-only / --dry-run: nothing to do; doctor/verify: no problem found
ERROR = 1  # the command failed (bad input file, failed step, unreadable snapshot...)
PENDING = 2  # --plan-only / --dry-run: changes pending; doctor: problems found; verify: a check failed
NOT_APPLICABLE = 3  # the system is outside what was asked: the chosen way out does not apply; doctor: no AMD GPU, no ROCm
USAGE = 64  # bad command line (unknown option, invalid combination)
INTERRUPTED = 130  # stopped by SIGINT/SIGTERM at a safe point
