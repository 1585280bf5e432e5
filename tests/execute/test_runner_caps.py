"""#27 finding 8: the executor reads a child's output in capped chunks (a huge line neither sits
in root's memory nor fills run.log).  Measured in a child process, on a 96 MiB line."""
from __future__ import annotations

import subprocess
import sys



def test_a_huge_line_is_capped_in_memory_and_in_run_log(tmp_path):
    # 96 MiB on one line, in a child process so that its peak memory is measured apart from ours
    code = f"""
import sys
sys.path[:0] = {sys.path!r}
from rocm_wizard.execute.runner import Runner, MAX_KEEP
from rocm_wizard.execute.runlog import RunLog
log = RunLog({str(tmp_path)!r}, console=open('/dev/null', 'w'))
res = Runner(log)(['python3', '-c', "import sys\\nfor _ in range(96): sys.stdout.buffer.write(b'x' * (1 << 20))\\nprint('\\\\nafter')"])
log.close()
print(res.rc, len(res.stdout), MAX_KEEP, next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rc, kept, cap, maxrss_kib = map(int, out.stdout.split())
    assert rc == 0 and kept <= cap
    # VmHWM: the child's own peak since exec (ru_maxrss would count the test session it was forked
    # from).  readline held the whole 96 MiB line and copies of it (about 500 MiB); chunks keep the
    # child to the interpreter and its imports
    assert maxrss_kib < 120 * 1024
    text = (tmp_path / "run.log").read_text()
    assert len(text) < 1024 * 1024
    assert "[line cut: " in text
    assert "| after" in text  # lines after the huge one are still logged
