"""A failure line that names no layer and has none above it: a caption ("Compilation failure:") is about what it
introduces, so the lines under it give its layer; a line that is no caption is not read downwards.  And an
unrecognised failure of no known layer still says what to run next: a command from the bottom of the stack up."""
from __future__ import annotations

from rocm_wizard.detect import failure_lines as fl
from rwtest.heldout import doctor_files as _doctor, problems as _problems


def test_a_caption_takes_the_layer_of_what_it_introduces():
    text = ("Compilation failure:\n```\n$ cat /var/lib/dkms/amdgpu/6.16.13/build/make.log\n"
            "DKMS make.log for amdgpu-6.16.13 for kernel 6.18.14-generic (x86_64)\n```\n")
    assert fl.layer_below(text, "Compilation failure:") == "packaging"
    text = "Error when running it:\n```\n$ rocminfo\nROCk module is loaded\n```\n"
    assert fl.layer_below(text, "Error when running it:") == "runtime"
    text = "The crash:\n  File \"/venv/lib/python3.12/site-packages/torch/__init__.py\", line 1\nTraceback\n"
    assert fl.layer_below(text, "The crash:") == "framework"


def test_only_a_caption_is_read_downwards_and_only_near_it():
    # not a caption: what follows it is another matter
    text = "the build failed\n$ rocminfo\nROCk module is loaded\n"
    assert fl.layer_below(text, "the build failed") is None
    # a caption whose next lines name no layer, one the paste does not hold, one at the paste's end
    assert fl.layer_below("Compilation failure:\nsee the attached file\n", "Compilation failure:") is None
    assert fl.layer_below("x\n", "Compilation failure:") is None
    assert fl.layer_below("Compilation failure:", "Compilation failure:") is None
    # a layer named only further down than the lines a caption introduces
    far = "Compilation failure:\n" + "see below\n" * (fl._CONTEXT_LINES + 1) + "$ dkms status\n"
    assert fl.layer_below(far, "Compilation failure:") is None
    # a trace's header heads the frames of the failure above it (tests/data/real/890: abseil's, under an XLA F-line)
    trace = "*** Check failure stack trace: ***\n    @     0x7fdf7ccca963  xla::gpu::InitializeBuffer()\n"
    assert not fl.is_caption("*** Check failure stack trace: ***") and fl.layer_below(trace, trace.split("\n")[0]) is None
    assert not fl.is_caption("Call Trace:") and not fl.is_caption("Traceback (most recent call last):")
    assert fl.is_caption("**Compilation failure:**") and fl.is_caption("## Error output:")
    assert not fl.is_caption("I tried to install rocm with amdgpu-install and then the build of the module failed:")


def test_doctor_places_a_caption_by_the_block_under_it(tmp_path):
    got = _problems(_doctor(tmp_path, {"issue.txt": (
        "After the kernel update the driver does not build.\n\nCompilation failure:\n```\n"
        "$ cat /var/lib/dkms/amdgpu/6.16.13-2278356.24.04/build/make.log\n"
        "DKMS make.log for amdgpu-6.16.13-2278356.24.04 for kernel 6.18.14-061814-generic (x86_64)\n```\n")}))
    assert ("unrecognised-failure", "packaging") in got, got


def test_a_failure_of_no_known_layer_still_names_commands_to_run():
    assert fl.next_commands(["unknown"]) == ["sudo dmesg | grep -iE 'amdgpu|drm|kfd'", "rocminfo",
                                             "python -m torch.utils.collect_env"]


def test_doctor_gives_those_commands_with_an_unplaced_failure(tmp_path):
    # (tests/data/real/773's line: a Go program's log line that names no layer, alone in its paste)
    diag = _doctor(tmp_path, {"report.txt": "exporter 2025/06/03 23:55:53 rocpclient.go:66: exec error :signal: "
                                            "aborted (core dumped)\n"})
    found = [f for f in diag.findings if f.id == "unrecognised-failure"]
    assert len(found) == 1 and found[0].layer is None, [(f.id, f.layer) for f in diag.findings]
    assert found[0].next_commands == fl.next_commands(["unknown"])
