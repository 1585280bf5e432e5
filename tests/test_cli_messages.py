"""Messages a first-time user reads (issue 17, "Messages"): each through the command line or the
code that prints it, with the exit status the README documents."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from rocm_wizard.cli import main
from rocm_wizard.exitcodes import ERROR, NOT_APPLICABLE, OK, USAGE
from rocm_wizard.model import GPU, DockerInfo, OSInfo, System, TorchEnv, to_dict

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "plan"))
from plan_helpers import run_cli  # noqa: E402


def _no_amd_live_system() -> System:
    """What 'detect --json' gives on a machine with an NVIDIA card, CPU torch and no ROCm."""
    s = System(origin="live")
    s.os = OSInfo(id="debian", version_id="12", pretty_name="Debian GNU/Linux 12 (bookworm)", kernel="6.1.0-30-amd64")
    s.gpus = [GPU(vendor_id="10de", device_id="2684", is_amd=False, name="NVIDIA GeForce RTX 4090", bdf="0000:01:00.0")]
    s.rocm.packages = {"libdrm-amdgpu1": "2.4.114-1+b1"}  # Mesa's, not ROCm
    s.rocm.amdgpu_loaded = False
    s.torch = [TorchEnv(path="/home/u/venv", python="3.11", version="2.13.0+cpu", build="cpu")]
    return s


def _write(tmp_path: Path, system: System) -> str:
    p = tmp_path / "system.json"
    p.write_text(json.dumps(to_dict(system)))
    return str(p)


def test_doctor_without_amd_gpu_or_rocm_says_there_is_nothing_to_diagnose(tmp_path):
    path = _write(tmp_path, _no_amd_live_system())
    code, out, err = run_cli(["doctor", "--snapshot", path])
    assert code == NOT_APPLICABLE == 3
    assert "Nothing to diagnose" in out and "no AMD GPU and no ROCm" in out and "No known problem" not in out
    code, out, _ = run_cli(["doctor", "--snapshot", path, "--json"])
    assert code == 3 and json.loads(out)["status"] == "not-applicable"
    # with ROCm installed it is a system to diagnose again (the no-amd-gpu finding)
    s = _no_amd_live_system()
    s.rocm.version = "6.4.1"
    s.rocm.packages["rocm-core"] = "6.4.1.60401-83~22.04"
    code, out, _ = run_cli(["doctor", "--snapshot", _write(tmp_path, s), "--json"])
    doc = json.loads(out)
    assert code == 2 and doc["status"] == "problems" and "no-amd-gpu" in [f["id"] for f in doc["findings"]]


def test_exit_3_is_documented():
    readme = (REPO / "README.md").read_text()
    assert "| 3 | not applicable to this system" in readme


def test_a_way_out_that_does_not_apply_to_a_container_exits_3_not_64(tmp_path):
    s = System(origin="snapshot")
    s.os = OSInfo(id="ubuntu", version_id="22.04", codename="jammy", pretty_name="Ubuntu 22.04.4 LTS",
                  kernel="6.8.0-45-generic", container="docker")
    s.gpus = [GPU(vendor_id="1002", device_id="744c", pci_id="1002:744c", gfx_target="gfx1100", name="AMD Radeon RX 7900 XTX",
                  kind="dgpu", bdf="0000:03:00.0")]
    code, out, err = run_cli(["--plan-only", "--snapshot", _write(tmp_path, s), "--path", "rocm-upgrade"])
    assert code == NOT_APPLICABLE and out == "" and "container" in err


def test_detect_says_daemon_not_running_without_a_usable_verdict():
    from rocm_wizard.commands.detect import render_human

    s = System(origin="live")
    s.docker = DockerInfo(client="28.2.2", daemon=False, user_allowed=True)
    buf = io.StringIO()
    render_human(s, file=buf)
    line = next(l for l in buf.getvalue().splitlines() if l.startswith("Docker"))
    assert "daemon not running" in line and "usable" not in line
    s.docker = DockerInfo(client="28.2.2", daemon=True, user_allowed=False, images=["rocm/pytorch:latest"])
    buf = io.StringIO()
    render_human(s, file=buf)
    line = next(l for l in buf.getvalue().splitlines() if l.startswith("Docker"))
    assert "daemon running" in line and "this user cannot use it" in line and "rocm/pytorch:latest" in line


def test_no_gpu_note_names_each_missing_tool_once(tmp_path):
    from rocm_wizard.detect.probes import gpus
    from rocm_wizard.detect.sources import LiveSource

    (tmp_path / "bin").mkdir()
    source = LiveSource(root=str(tmp_path), commands=True, environ={"PATH": str(tmp_path / "bin")})
    system = System(origin="live")
    gpus.probe(source, system)
    note = next(n for n in system.notes if n.startswith("no GPU found"))
    assert "rocminfo: not installed" in note and "rocminfo: rocminfo" not in note


def test_tui_probe_line_says_torch_is_not_installed_instead_of_none():
    from rocm_wizard.tui.text import probe_result_text

    s = System()
    s.torch = [TorchEnv(path="/opt/rocm-wizard/venv", python="3.12", version=None)]
    text = probe_result_text("python", s)
    assert "None" not in text and "torch not installed" in text


def test_snapshot_messages_do_not_speak_of_this_machine(tmp_path):
    s = System(origin="snapshot")
    s.os = OSInfo(id="ubuntu", version_id="22.04", kernel="6.8.0-45-generic")
    s.gpus = [GPU(vendor_id="1002", device_id="744c", pci_id="1002:744c", gfx_target="gfx1100", kind="dgpu")]
    s.docker = DockerInfo(client="27.0.1", daemon=False)
    code, out, err = run_cli(["doctor", "--snapshot", _write(tmp_path, s)])
    assert "this machine" not in out + err and "in the snapshot" in out


def test_help_opens_with_what_the_tool_does():
    code, out, err = run_cli(["--help"])
    assert code == 0 and "Command line entry point" not in out
    assert "Detect an AMD GPU Linux system" in out


def test_a_misspelt_option_is_named_not_the_word_after_it():
    code, out, err = run_cli(["--pth", "docker"])
    assert code == USAGE and "unknown option '--pth' (did you mean --path?)" in err


def test_one_wording_for_a_missing_snapshot(tmp_path):
    gone = str(tmp_path / "nope")
    for argv in (["detect", "--snapshot", gone], ["doctor", "--snapshot", gone], ["--plan-only", "--snapshot", gone]):
        code, out, err = run_cli(argv)
        assert code == ERROR and out == "" and f"snapshot {gone}: no such file or directory" in err, (argv, err)


def test_output_cut_short_by_a_closed_pipe_is_not_an_error():
    fixture = next((REPO / "tests" / "data" / "real").glob("170-*"))
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONUNBUFFERED", None)  # stdout buffered, as for a user (with it, every write fails at once)
    for args in (["doctor", "--snapshot", str(fixture)], ["detect", "--json", "--snapshot", str(fixture)]):
        # the reader is gone before the first write (as after 'head -c1' has its byte): a pipe whose
        # read end is closed before the command starts, so every write fails, however short the
        # output (a reader closed after reading raced a short output that fit the pipe at once)
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            proc = subprocess.Popen([sys.executable, "-m", "rocm_wizard", *args], stdout=write_end,
                                    stderr=subprocess.PIPE, env=env)
        finally:
            os.close(write_end)
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == OK, err
        assert b"Traceback" not in err and b"BrokenPipe" not in err


def test_the_wsl_release_note_stays_off_native_plans():
    seed = REPO / "tests" / "plan" / "systems" / "seed-rx7900xt-jammy-rocm6.2.json"
    code, out, err = run_cli(["--plan-only", "--snapshot", str(seed), "--path", "rocm-upgrade", "--rocm", "6.3.4",
                              "--no-dkms"])
    assert code == 2 and "ROCm 6.3.4" in out and "WSL" not in out + err


def test_a_closed_pipe_found_only_by_the_last_flush_is_not_an_error():
    """The same rule where the broken pipe shows only after ``main`` returned: a command that wrote
    less than stdout's buffer without flushing (``detect --json`` on a small paste) meets the closed
    pipe in the exit's flush.  Seen once on a fresh Debian 12 root under load (status 120 and
    "Exception ignored ... BrokenPipeError" from the interpreter's teardown); here the command is made
    to do exactly that, deterministically.  (A host with ``PYTHONUNBUFFERED`` set, as this project's
    build machine has, hid it: every write went out at once and failed inside ``main``.)"""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONUNBUFFERED", None)  # stdout buffered, as for a user: the write itself does not fail
    program = ("import sys\nimport rocm_wizard.cli as cli\n"
               "cli.main = lambda: (sys.stdout.write('{}\\n' * 100), cli.OK)[1]  # buffered, not flushed\n"
               "from rocm_wizard.cli import entry\nentry()\n")
    for quick in (False, True):  # the ordinary exit and detect's quick one (cli.QUICK_EXIT)
        prog = program.replace("from rocm_wizard", "cli._quick_exit = True\nfrom rocm_wizard") if quick else program
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            proc = subprocess.Popen([sys.executable, "-c", prog], stdout=write_end, stderr=subprocess.PIPE, env=env)
        finally:
            os.close(write_end)
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == OK, (quick, err)
        assert b"Exception ignored" not in err and b"BrokenPipe" not in err, err
