"""The executor: applies a :class:`~rocm_wizard.plan.core.Plan` for real, unattended.

* :mod:`.engine` -- the step loop: journal after every step, console results, safe stop on
  SIGINT/SIGTERM/SIGHUP, automatic restore of the files when a run fails before packages changed;
* :mod:`.journal` -- the run's state on disk (atomic JSON), what ``resume`` and ``rollback`` read;
* :mod:`.runlog` -- the run's log and event stream (commands with argv, exit status, duration),
  secrets redacted (:mod:`.redact`), a stable ``latest`` link (:mod:`.paths`);
* :mod:`.paths` -- where runs live, the trust checks root applies to them, the run lock;
* :mod:`.procs` -- the executor and its commands' process groups, told from reused pids by their
  start time; what ``resume`` and ``rollback`` wait for (or end) after a SIGKILL;
* :mod:`.context` -- the step context that remembers every file's state before the run touched it;
* :mod:`.runner` -- commands with live output to the log and progress for long steps;
* :mod:`.preflight` -- root/sudo, the dpkg lock (bounded wait) and ``dpkg --audit``, SSH without
  tmux/screen;
* :mod:`.answers` -- the ``--answers`` TOML file (read and written);
* :mod:`.rollback`, :mod:`.detach`, :mod:`.cli` -- ``rollback``, ``--detach`` and the ``--yes`` /
  ``--dry-run`` entry point.

Nothing here imports Textual or Rich.
"""
