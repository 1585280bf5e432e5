"""doctor never calls a system healthy over an error: every real fixture whose labels name a failure
gets a warning or worse (and never "No known problem"), a healthy one gets no "unrecognised" or
"told" finding, and a folder that holds only error text describes a system with an error."""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import List

import pytest
from rwtest import realrun

from rocm_wizard.cli import main
from rocm_wizard.exitcodes import PENDING

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
PROBLEM = ("warning", "error", "critical")
# Fixtures whose failure no line of the paste shows and whose prose names nothing of the stack, or
# whose failure is a wrong target that only names show (no PCI id): reported as a miss, not hidden.
MISSES = {
    # s25-ryzenaiwin (set JK)
    "3663": "held-out JK: VoiceStudio's web interface choosing the CPU on Strix Halo, told only in prose; the pastes are "
            "torch's version and a working GPU matmul benchmark (tests/doctor/test_known_failure.py MISSES)",


    # s25-torch210win (set JM)
    "3682": "held-out JM: torch from pytorch.org's rocm7.1 wheel crashing, told only in the title and prose; the paste "
            "is a rocminfo fragment of a DSP agent (tests/doctor/test_known_failure.py MISSES)",
    # s25-envwin (set IV)
    "3512": "held-out IV: vLLM's gfx1151 tuned-config lookup miss (slower default kernels), told only in the title and "
            "prose; the paste is collect_env's healthy head (tests/doctor/test_known_failure.py MISSES)",
    "3513": "held-out IV: a vLLM gfx906 image's 'hip error' told only in a title that quotes no line; the pastes are "
            "collect_env's head and start-up lines cut before any error (tests/doctor/test_known_failure.py MISSES)",

    # s25-smiwin (set IS)
    "3482": "held-out IS: amd-smi's 'static --csv' printing nothing, told only in the title and prose; the paste is "
            "the form's healthy rocminfo (tests/doctor/test_known_failure.py MISSES)",
    # s24-cloudwin (set IQ)
    "3461": "held-out IQ: the AMD device plugin never registering its gpu resource (no /sys/class/kfd), told only in prose; the "
            "paste is the plugin's healthy start-up lines (tests/doctor/test_known_failure.py MISSES)",
    # s24-rpm2win (set IN)
    "3431": "held-out IN: hipfire's Fedora installer missing libamdhip64.so.6, told only in prose; the paste is ldconfig's "
            "healthy line (tests/doctor/test_known_failure.py MISSES)",
    "3432": "held-out IN: an Arch 780M's segfaults after an update, blamed on Linux 6.12, told only in the title and prose; "
            "the paste is pacman -Q's package list (tests/doctor/test_known_failure.py MISSES)",
    # s24-triton2win (set II)
    "3384": "held-out II: comfy-kitchen's Triton rope kernel faulting on a gfx1151, told only in the title's prose; the "
            "paste is HIP's level-3 trace of successful calls, cut before the fault (tests/doctor/test_known_failure.py "
            "MISSES)",
    # s24-inst2win (set HW)
    "3261": "held-out HW: a nightly meta package declaring no dependencies, shown only by an empty dpkg -I Depends and "
            "an rpm -qR without ROCm packages (tests/doctor/test_known_failure.py MISSES)",
    "3262": "held-out HW: a nightly meta package's Depends line without its gfx variants, a well-formed list with "
            "nothing failing in it (tests/doctor/test_known_failure.py MISSES)",


    # s24-torch4win (set IA)
    "3303": "held-out IA: torch's CK SDPA flash-attention kernel asserting on gfx1200/gfx1201 told only in the title "
            "('... kernel asserts on ...', no error word a program prints), the paste a maintainer's healthy build log "
            "that turns CK SDPA off (tests/doctor/test_known_failure.py MISSES)",

    # s24-ggml5win (set ID)
    "3331": "held-out ID: llama.cpp's HIP wrong logits on gfx1151 shown only by llama-perplexity's completed runs, no "
            "failing line (tests/doctor/test_known_failure.py MISSES)",
    # s23-distrodebwin (set HS)
    "3211": "held-out HS: Ubuntu universe's rocminfo blocking AMD's rocm-hip-runtime told only in the title and prose; the "
            "pastes are apt 'Get:' lines and the workaround (tests/doctor/test_known_failure.py MISSES)",
    "3212": "held-out HS: two incompatible hsa.h from the distribution's and AMD's packages told only in the title and "
            "prose; the paste is debtree's dependency edges (tests/doctor/test_known_failure.py MISSES)",

    # s23-wheels26win (set HT)
    "3221": "held-out HT: comfyui-rocm not starting because HIP_VISIBLE_DEVICES=1 was left set, told only in prose; the "
            "paste is detect_gpu.py's healthy report (tests/doctor/test_known_failure.py MISSES)",
    # s23-rocm2526win (set HH)
    "3152": "held-out HH: an amdgpu DKMS build failure told only in the title and prose; the paste is rocminfo's healthy "
            "header (tests/doctor/test_known_failure.py MISSES)",
    "3153": "held-out HH: torch's hipBLASLt refusal cut by the index inside its warning line; told only in the title and "
            "prose, the paste a shell session up to the benchmark (tests/doctor/test_known_failure.py MISSES)",
    "3154": "held-out HH: the paste's one line is torch's hipBLASLt fallback notice, information (it goes on with hipBLAS); "
            "the workload's failure is told only in prose (tests/doctor/test_known_failure.py MISSES)",
    # s23-rpmdist (set GR)
    "2994": "held-out GR: rocBLAS failing to emerge on Gentoo (out of memory) told only in the title and prose; the paste "
            "is rocminfo's healthy header (tests/doctor/test_known_failure.py MISSES)",
    # s22-mathwin (set GL)
    "2930": "held-out GL: a rocBLAS wrong sgemm result shown only by the reporter's own comparison numbers "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2934": "held-out GL: hipsparse-test's segfault told only in prose and a screenshot; the paste is rocminfo's head "
            "(tests/doctor/test_known_failure.py MISSES)",
    # s22-rocmmidwin2 (set GD)
    "2850": "held-out GD: a HIP toolchain compiling no simple program told only in the title; the paste is a clean "
            "'cmake ..' and the 'make' command, cut before the compiler's error (tests/doctor/test_known_failure.py MISSES)",
    "2853": "held-out GD: ROCm's source-build instructions failing told only in prose; the paste is rocminfo's healthy "
            "header (tests/doctor/test_known_failure.py MISSES)",

    # s22-nixwin (set GC)
    "2841": "held-out GC: Ollama's CPU fallback on NixOS (RX 580) told only in prose; the paste is Ollama's benign amdgpu-version "
            "warning (tests/doctor/test_known_failure.py MISSES)",

    # s22-comfy26win2 (set GE)
    "2863": "held-out GE: torch's 'No HIP GPUs are available' told only in a misspelt title; the paste is ComfyUI "
            "Desktop's start-up lines cut before the failure (tests/doctor/test_known_failure.py MISSES)",

    # s22-hfwin2 (set GJ)
    "2912": "held-out GJ: an Unsloth training crash in an attached log only; the paste is Unsloth's banner cut before it "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2913": "held-out GJ: a TGI failure told only in the title; the pastes are TGI's runtime block and an idle rocm-smi "
            "table (tests/doctor/test_known_failure.py MISSES)",


    # s23-webuiwin (set GP)
    "2971": "held-out GP: KoboldCpp's 'ROCm CUDA error' told only in the title; the paste is the start-up banner, cut "
            "before any error line (tests/doctor/test_known_failure.py MISSES)",

    # s23-finetune (set GT)
    "3010": "held-out GT: an Unsloth desktop install failure told only in the title; the pastes are install.ps1's phase "
            "logs cut after their first steps (tests/doctor/test_known_failure.py MISSES)",
    "3011": "held-out GT: LLaMA-Factory's two-GPU training failure told only in prose; the rank traceback is cut before its "
            "exception line (tests/doctor/test_known_failure.py MISSES)",
    "3013": "held-out GT: Unsloth Studio's CPU-only backend told only in prose; the paste is its healthy-looking update "
            "lines (tests/doctor/test_known_failure.py MISSES)",
    # s22-multiwin (set GM)
    "2943": "held-out GM: DeepSpeed's CPU Adam JIT-build traceback cut before its exception line; the CUDA-only builder "
            "path told only in the title and prose (tests/doctor/test_known_failure.py MISSES)",
    # s22-archwin (set GH)
    "2891": "held-out GH: an AUR hipsparse build's CMake failure told only in prose; the paste is hipconfig's healthy report "
            "(tests/doctor/test_known_failure.py MISSES)",
    # s22-torch26win2 (set FV)
    "2770": "held-out FV: a torch.compile wrong result told only in prose; the paste is the reproducer's own print "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2771": "held-out FV: a slow Conv3d told only in prose; the paste is the user's timing printout "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2773": "held-out FV: TunableOp tuning past its limits told only in prose; the paste is collect_env's first lines "
            "(tests/doctor/test_known_failure.py MISSES)",

    # s22-ggml26win2 (set FY)
    "2800": "held-out FY: llama-server's silent exit at the vision warm-up on Vulkan (RX 550) told only in prose; the pastes are healthy log lines "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2801": "held-out FY: llama.cpp's crash at model load on Vulkan (RX 7900 XTX) told only in prose; the pastes are the version block and start-up lines "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2802": "held-out FY: llama.cpp's crash on Vulkan with injected layers (780M) told only in prose; the paste is a healthy device listing "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2803": "held-out FY: llama-bench's Vulkan segfault (RX 6800 XT) told only in prose; the paste is a healthy HIP device listing "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2804": "held-out FY: llama-server's Vulkan segfault at load (Strix Halo) told only in prose; the pastes are the version block and the console's start "
            "(tests/doctor/test_known_failure.py MISSES)",
    # s22-comfyoldwin (set FQ)
    "2720": "held-out FQ: SD.Next's start-up hang told only in prose and a screenshot; the paste is its healthy start-up "
            "lines (tests/doctor/test_known_failure.py MISSES)",
    "2721": "held-out FQ: the GPU left unused by SD.Next told only in prose; the paste is its healthy --debug start-up "
            "console (tests/doctor/test_known_failure.py MISSES)",

    # s22-ollama24win (set FS)
    "2744": "held-out FS: Ollama's CPU fallback told only in prose; the pastes are its verbose card description's "
            "benign 'rsmi_dev_*_get failed: 2' lines and a debug log cut before discovery "
            "(tests/doctor/test_known_failure.py MISSES)",

    # s22-ggmloldwin (set FR)
    "2731": "held-out FR: a llama.cpp HIP build for gfx1151 failing, told only in prose; the build log is cut before "
            "any error line (tests/doctor/test_known_failure.py MISSES)",
    "2732": "held-out FR: a llama.cpp hipBLAS build failing, told only in prose; the build log is cut before any "
            "error line (tests/doctor/test_known_failure.py MISSES)",

    # s22-llmappwin (set FN)
    "2690": "held-out FN: KoboldCpp's 'CUDA error' told only in the title; the paste is the start-up banner, cut before "
            "any error line (tests/doctor/test_known_failure.py MISSES)",

    # s22-toolswin (set FO)
    "2701": "held-out FO: rocprofv2's failing line is cut in the index's copy; the last line left is bash's setlocale "
            "warning, no failure (tests/doctor/test_known_failure.py MISSES)",
    "2703": "held-out FO: a ROCgdb internal error told only in prose; the paste is rocminfo's healthy head "
            "(tests/doctor/test_known_failure.py MISSES)",

    # s21-appwin2 (set FD)
    "2616": "held-out FD: a darktable crash with AMD's OpenCL driver told only in prose; the log is cut before any "
            "OpenCL line (tests/doctor/test_known_failure.py MISSES)",
    "2619": "held-out FD: waifu2x-ncnn-vulkan closing silently told only in prose; the pastes are ncnn's device lines "
            "(tests/doctor/test_known_failure.py MISSES)",

    # s22-drmwin (set FL)
    "2672": "held-out FL: a desktop broken by the amdgpu-dkms 6.8.5 update told only in prose and a photo; the pastes "
            "are rocm-smi and the start of dmesg (tests/doctor/test_known_failure.py MISSES)",

    # s21-wslwin (set FH)
    "2628": "held-out FH: Ollama's WSL GPU discovery failure told only in prose; the paste is rocminfo's healthy WSL "
            "header (tests/doctor/test_known_failure.py MISSES)",

    # s21-torch26win (set EZ)
    "2598": "held-out EZ: a hang in the ROCm thunk's hsaKmtMemoryVaMap told only in the title and prose; the paste is a "
            "collect_env head (tests/doctor/test_known_failure.py MISSES)",
    "2599": "held-out EZ: AOTriton SDPA wrong outputs told only in the title and prose; the paste is the reproducer's "
            "mask print (tests/doctor/test_known_failure.py MISSES)",

    # s21-ollama26win (set EX)
    "2586": "held-out EX: an Ollama model-load timeout and system hang told only in prose; the one pasted line is "
            "Ollama's INFO status 'llm server not responding' (tests/doctor/test_known_failure.py MISSES)",
    # s21-rocm26win (set ET)
    "2562": "held-out ET: a slowdown after a ROCm upgrade shown only by two successful runs' timing tables and the "
            "title; no line is an error (tests/doctor/test_known_failure.py MISSES)",
    "142": "a 512 MB carve-out is told by the kernel log's memory lines, not by an error line",
    # s6-heldout (set K)
    "556": "held-out K: Lemonade printing 'Still waiting for llama-server...' until the user gives up (a linux-firmware "
           "regression on Strix Halo, fixed by a downgrade); no line of the paste is an error",
    # s8-heldp (set P): nothing the paste prints is an error (tests/doctor/test_known_failure.py MISSES says why)
    "650": "held-out P: an app launcher's uv command and an issue form; the wheels' observed arch list carries the GPU",
    "654": "held-out P: prose only, the iGPU's target named as an example in a sentence",
    # (659, prose 'causing a crash' about a DLL renamed between two ROCm releases, out since s24-torch4win: the catch-all
    # reads the crash words, so the prose is a failure told, not shown, and asked for)
    # s9-heldu (set U)
    "760": "held-out U: a tool's hardware report of a Strix Halo's carve-out as its VRAM; no line of the paste is an error",
    # s11-heldap (set AP): 1126 (a title alone, '... runtime crash during hardware survey') out since s24-torch4win, told
    # by the crash words now
    # s12-heldba (set BA)
    "1340": "held-out BA: inxi's healthy report and a title telling of a desktop freeze; no line of a program's output "
            "is an error (tests/doctor/test_known_failure.py MISSES)",
    # s13-heldbg (set BG)
    "1460": "held-out BG: the only line is the title's quote of MIOpen's 'CK grouped conv library not found for device "
            "gfx90c', a fallback reported as information (tests/doctor/test_known_failure.py MISSES); its warnings before "
            "s14-detect were gfx-no-official-build and override advice, wrong: the pasted install command's "
            "torch[device-gfx90c] wheel holds kernels for the GPU",
    "1461": "held-out BG: MIOpen's warnings of a missing CK grouped-conv library and find-db, a fallback reported as "
            "information; the slower convolutions are told only in the title and prose (tests/doctor/test_known_failure.py "
            "MISSES)",
    # s14-heldby (set BY)
    "1642": "held-out BY: a HIP build's wrong totalGlobalMem told only in the title and the user's version lines; no "
            "program output (tests/doctor/test_known_failure.py MISSES)",
    "1643": "held-out BY: HIP's free over total read from a user's probe script, which working Strix Halo systems print "
            "too; no line is an error (tests/doctor/test_known_failure.py MISSES)",
    # s16-heldda (set DA)
    "2020": "held-out DA: a library's wrong fp64 GEMM result shown only in the numbers of the user's own scan script "
            "and the title; no program of the stack prints a line about it (tests/doctor/test_known_failure.py MISSES)",
    # s17-helddl (set DL)
    "2243": "held-out DL: Ollama's out-of-memory told only in the title and prose; the pasted lines are the kernel's "
            "healthy VRAM line and amd-smi's table head (tests/doctor/test_known_failure.py MISSES)",
    # s17-helddm (set DM)
    "2263": "held-out DM: migraphx-driver returns to the prompt after 'Reading:' with no line printed; the crash is told "
            "only in prose (tests/doctor/test_known_failure.py MISSES)",
    # s19-fwblobs (set DV)
    # s20-rocmwin3 (set EH)
    "2482": "held-out EH: a GPU not detected under WSL2 told only in prose; the paste is wsl --version "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2483": "held-out EH: apt's refusal on Debian 13 told only in title and prose; the paste is apt's install list "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2484": "held-out EH: crashes with amdgpu-dkms told only in prose; the paste is modinfo's aliases "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2485": "held-out EH: a repository 404 told only in the title; the pastes are wget's 200 OK and a dnf transaction "
            "(tests/doctor/test_known_failure.py MISSES)",
    # s20-appwin (set ED)
    "2493": "held-out EJ: Ollama's gfx1010 refusal cut in the index's copy; the discovery lines before it are healthy "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2511": "held-out EL: a segfault in libamdhip64 told only in the title's words; the pasted rocminfo is healthy "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2472": "held-out EG: PyTorch seeing no GPU is told only in prose; the pasted pip list and rocminfo start are healthy "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2441": "held-out ED: rocBLAS files missing from Ollama's bundle, read from `ls` listings and prose; no line is an error "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2443": "held-out ED: a llama.cpp build's segfault told in title and prose; the paste is its version output "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2444": "held-out ED: ComfyUI's silent crash told in title and prose; the pasted start-up lines are healthy "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2364": "held-out DV: an R9700's fan that does not spin is told only in the title and prose; the pasted SMU lines are "
            "the kernel's informational interface notice, read as healthy as in 508 (tests/doctor/test_known_failure.py "
            "MISSES)",
    # s21-fwwin (set EV)
    "2577": "held-out EV: TensorFlow ignoring the RX 7600 (gfx1102) told only in prose; the copy of the session is cut "
            "before TensorFlow's line, the lines kept informational (tests/doctor/test_known_failure.py MISSES)",

    # s21-ctrwin (set EW)
    "2578": "held-out EW: the GPU Operator's NFD failure told in title and prose; the pasted pod descriptions are of "
            "Running pods (tests/doctor/test_known_failure.py MISSES)",
    "2580": "held-out EW: the rocm/pytorch images' gfx1102 failure told in title and prose; the pasted lines are healthy "
            "start-up, the trace cut before its error (tests/doctor/test_known_failure.py MISSES)",
    "2581": "held-out EW: Apptainer's container seeing no GPU told in the title; only the expected output is in the copy "
            "(tests/doctor/test_known_failure.py MISSES)",
    "2783": "held-out FW: amd-smi's all-N/A metrics on Strix Halo told only in the title and prose; the paste is amd-smi's "
            "header cut before the values (tests/doctor/test_known_failure.py MISSES)",
    "2762": "held-out FU: a llama.cpp Vulkan regression on Strix Halo told only in prose; the paste is the build's "
            "version block (tests/doctor/test_known_failure.py MISSES)",
    # s24-rocm4win (set IC)
    "3322": "held-out IC: an R9700's fan that does not spin is told only in the title and prose; the pasted SMU lines are "
            "the kernel's informational interface notice, read as healthy as in 508 and 2364 "
            "(tests/doctor/test_known_failure.py MISSES)",
    # s24-hpcwin (set IG)
    "3363": "held-out IG: an MI300A allocation placed in another APU's HBM, shown only by the reproducer's per-node "
            "memory figures and the title; no failing line (tests/doctor/test_known_failure.py MISSES)",
}


def _labels(folder: Path) -> dict:
    with open(folder / "labels.toml", "rb") as fh:
        return tomllib.load(fh)


def _folders() -> List[Path]:
    return sorted(p for p in REAL.iterdir() if (p / "labels.toml").is_file())


def _failing(folder: Path) -> bool:
    lab = _labels(folder)
    return lab.get("failure_class") not in (None, "none") and lab.get("failure_layer") != "none"


@functools.lru_cache(maxsize=None)
def _diag(folder: Path):
    return realrun.diagnosis(folder)


FAILING = [pytest.param(f, id=f.name.split("-", 1)[0], marks=[pytest.mark.xfail(strict=True, reason=MISSES[f.name.split("-", 1)[0]])]
                        if f.name.split("-", 1)[0] in MISSES else []) for f in _folders() if _failing(f)]
HEALTHY = [pytest.param(f, id=f.name.split("-", 1)[0]) for f in _folders()
           if _labels(f).get("failure_class") == "none" or _labels(f).get("failure_layer") == "none"]


def test_the_corpus_is_there():
    assert len(FAILING) >= 100 and len(HEALTHY) >= 20


@pytest.mark.parametrize("folder", FAILING)
def test_a_failure_is_never_called_healthy(folder: Path):
    findings = _diag(folder).findings
    assert [f for f in findings if f.severity in PROBLEM], [(f.id, f.severity) for f in findings]


@pytest.mark.parametrize("folder", HEALTHY)
def test_a_healthy_paste_gets_no_unrecognised_failure(folder: Path):
    ids = [f.id for f in _diag(folder).findings]
    assert "unrecognised-failure" not in ids and "failure-told-not-shown" not in ids, ids


def test_a_folder_of_only_error_text_has_findings(tmp_path, capsys):
    # apt's output of a repository path that is not there (the lines as fixture 225 has them)
    src = next(REAL.glob("225-*"))
    lines = [l for l in (src / next(p.name for p in src.glob("*.txt"))).read_text(encoding="utf-8").splitlines()
             if "404" in l or l.startswith("E:")]
    assert lines
    (tmp_path / "apt.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rc = main(["doctor", "--snapshot", str(tmp_path), "--json"])
    doc = json.loads(capsys.readouterr()[0])
    assert rc == PENDING
    # the lines are known failures (detect/failures.toml) or, for any the catalogue lacks,
    # unrecognised ones: either way a problem at the packaging layer with commands to run
    found = [f for f in doc["findings"] if f["layer"] == "packaging" and f["severity"] in PROBLEM]
    assert found and all(f["next_commands"] for f in found), doc["findings"]
    assert {f["id"] for f in found} <= {"known-failure", "unrecognised-failure"}


def test_commands_to_run_are_printed_whole_at_any_width(tmp_path, capsys, monkeypatch):
    # a made-up kernel line no known text matches (this tests the rendering, not the diagnosis)
    (tmp_path / "dmesg.txt").write_text(
        "[  12.345678] amdgpu 0000:03:00.0: amdgpu: rocm-wizard test: frobnicating the widget failed\n",
        encoding="utf-8")
    main(["doctor", "--snapshot", str(tmp_path), "--json"])
    doc = json.loads(capsys.readouterr()[0])
    cmds = [c for f in doc["findings"] for c in f["next_commands"]]
    assert cmds and any(f["id"] == "unrecognised-failure" and f["layer"] == "kernel" for f in doc["findings"])
    for columns in ("40", "80", "200"):
        monkeypatch.setenv("COLUMNS", columns)
        main(["doctor", "--snapshot", str(tmp_path)])
        out = capsys.readouterr()[0]
        for cmd in cmds:
            assert any(line.strip() == cmd for line in out.splitlines()), (columns, cmd)
