"""The golden-plan cases: a system (a seed scenario in ``systems/`` or a real fixture in
``../shared/fixtures/real``), command-line choices, the formats kept as golden files, and the exit
status.  Regenerate with ``UPDATE_GOLDEN=1 pytest tests/plan/test_golden.py`` and read the diff."""
from __future__ import annotations

from typing import List, NamedTuple, Tuple

ALL = ("shell", "ansible", "json")
REFUSED: Tuple[str, ...] = ()

TEST_KEY_FPR = "0123456789ABCDEF0123456789ABCDEF01234567"


class Case(NamedTuple):
    name: str
    system: str  # seed:<file stem> | fixture:<folder>
    args: List[str]
    formats: Tuple[str, ...]  # empty: refused, the golden file is the message
    rc: int


SEED_002 = "seed:seed-rx7900xt-jammy-rocm6.2"
SEED_000 = "seed:seed-triton-language-rocm6.0"
SEED_003 = "seed:seed-gfx803-rx580"
SEED_RESOLUTE = "seed:seed-rx7900xt-resolute-fresh"
SEED_GFX1031 = "seed:seed-rx6700xt-noble-gfx1031"

CASES = [
    # seed 002: RX 7900 XT, Ubuntu 22.04, ROCm 6.2, torch 2.5.1+rocm6.2 -> the three ways out
    Case("seed002-rocm-upgrade-6.4", SEED_002, ["--path", "rocm-upgrade", "--rocm", "6.4"], ALL, 2),
    Case("seed002-rocm-upgrade-6.3.4-no-dkms", SEED_002, ["--path", "rocm-upgrade", "--rocm", "6.3.4", "--no-dkms"],
         ("shell",), 2),
    Case("seed002-rocm-upgrade-7.2.1-mirror", SEED_002,
         ["--path", "rocm-upgrade", "--rocm", "7.2.1", "--rocm-mirror", "http://127.0.0.1:8081/radeon", "--allow-http-mirror",
          "--rocm-key-fingerprint", TEST_KEY_FPR], ("shell", "json"), 2),
    # the same machine with Secure Boot on: the MOK step before the driver (or --no-dkms)
    Case("seed002-rocm-upgrade-6.4.3-secure-boot", "seed:seed-rx7900xt-jammy-rocm6.2-secure-boot",
         ["--path", "rocm-upgrade", "--rocm", "6.4.3"], ("shell", "ansible"), 2),
    Case("seed002-torch-2.4.1", SEED_002, ["--path", "torch-reinstall", "--torch", "2.4.1"], ALL, 2),
    Case("seed002-torch-2.4.1-new-venv", SEED_002,
         ["--path", "torch-reinstall", "--torch", "2.4.1", "--venv", "/home/dev/venvs/train"], ALL, 2),
    Case("seed002-docker", SEED_002, ["--path", "docker"], ALL, 2),
    # the Core SDK stream (issue 11): a fresh Ubuntu 26.04 gets 10.0 by the policy; a fingerprint given
    # overrides the catalog's; from legacy 6.2 the removals come first
    Case("seed-resolute-coresdk-10.0", SEED_RESOLUTE, ["--path", "rocm-upgrade", "--rocm-core-key-fingerprint",
                                                       TEST_KEY_FPR], ALL, 2),
    # issue 30: AMD's repo-package builder pins the Core SDK key (D0F004A0...): no fingerprint flag needed
    Case("seed-resolute-coresdk-default-key", SEED_RESOLUTE, ["--path", "rocm-upgrade"], ("shell", "json"), 2),
    Case("seed002-coresdk-10.1-from-legacy", SEED_002, ["--path", "rocm-upgrade", "--rocm", "10.1", "--no-dkms",
                                                        "--rocm-core-key-fingerprint", TEST_KEY_FPR], ("shell", "json"), 2),
    Case("seed002-coresdk-7.12-preview", SEED_002, ["--path", "rocm-upgrade", "--rocm", "7.12"], REFUSED, 64),
    # the last legacy release: amdgpu-install 7.2.4.70204, driver directory 30.30.4
    Case("seed002-rocm-upgrade-7.2.4", SEED_002, ["--path", "rocm-upgrade", "--rocm", "7.2.4"], ("shell",), 2),
    # RX 6700 XT (gfx1031), no PyTorch index carries it: AMD's 7.14 index, torch[device-gfx1031] with
    # rocm[libraries,device-gfx1031]==7.14.0
    Case("gfx1031-torch-amd-index", SEED_GFX1031, ["--path", "torch-reinstall"], ALL, 2),
    # seed 000: the triton.language error with torch 2.4.1+rocm6.0: same pins, stray triton removed
    Case("seed000-torch-2.4.1-rocm6.0", SEED_000, ["--path", "torch-reinstall", "--torch", "2.4.1+rocm6.0"], ALL, 2),
    # seed 003: gfx803, refused honestly
    Case("seed003-gfx803-default", SEED_003, [], REFUSED, 3),
    Case("seed003-gfx803-torch", SEED_003, ["--path", "torch-reinstall"], REFUSED, 3),
    Case("seed003-gfx803-docker", SEED_003, ["--path", "docker"], REFUSED, 3),
    # real systems
    Case("fx001-arch-gfx1101-docker", "fixture:001-gfx1101-rocm7.2.1-arch", ["--path", "docker"], ALL, 2),
    Case("fx001-arch-rocm-upgrade", "fixture:001-gfx1101-rocm7.2.1-arch", ["--path", "rocm-upgrade"], REFUSED, 3),
    Case("fx008-wsl-torch-new-venv", "fixture:008-gfx1100-rx7900xt-rocm6.4-wsl2-ubuntu24.04",
         ["--path", "torch-reinstall", "--venv", "/home/user/venvs/comfy", "--torch", "2.8.0"], ALL, 2),
    Case("fx008-wsl-rocm-upgrade", "fixture:008-gfx1100-rx7900xt-rocm6.4-wsl2-ubuntu24.04",
         ["--path", "rocm-upgrade"], REFUSED, 3),
    Case("fx008-wsl-docker", "fixture:008-gfx1100-rx7900xt-rocm6.4-wsl2-ubuntu24.04",
         ["--path", "docker"], ALL, 2),
    Case("fx011-gfx1201-igpu-torch", "fixture:011-gfx1201-rx9070-gfx1036-rocmNA-arch",
         ["--path", "torch-reinstall", "--venv", "/opt/venvs/torch"], ALL, 2),
    Case("fx013-no-amd-gpu", "fixture:013-nogpu-intel-hd8750m-rocm6.2.2-ubuntu24.04", [], REFUSED, 3),
    # no GPU, but the way chosen: provisioning before the card is in, with the catalog's defaults (and notes)
    Case("fx013-no-gpu-rocm-upgrade", "fixture:013-nogpu-intel-hd8750m-rocm6.2.2-ubuntu24.04",
         ["--path", "rocm-upgrade", "--no-dkms"], ("shell",), 2),
    Case("fx013-no-gpu-torch", "fixture:013-nogpu-intel-hd8750m-rocm6.2.2-ubuntu24.04",
         ["--path", "torch-reinstall", "--venv", "/home/user/venvs/ml"], ("json",), 2),
    Case("fx017-mi210-docker-6.4", "fixture:017-gfx90a-4xmi210-rocm6.2.4-ubuntu22.04",
         ["--path", "docker", "--rocm", "6.4"], ALL, 2),
    # 7.2.0 does not list gfx1150: the installed 7.2.0, asked for, is set up again with the note that it
    # does not list the GPU; by default (issue 30) the legacy host stays legacy with 7.2.4, which lists
    # gfx1150 (rdna3-5.rst), on the APU's own kernel driver (no amdgpu-dkms)
    Case("fx019-gfx1150-rocm-upgrade", "fixture:019-gfx1150-radeon890m-rocm7.2.0-ubuntu24.04",
         ["--path", "rocm-upgrade", "--rocm", "7.2.0"], ALL, 2),
    Case("fx019-gfx1150-rocm-upgrade-default", "fixture:019-gfx1150-radeon890m-rocm7.2.0-ubuntu24.04",
         ["--path", "rocm-upgrade"], ("shell", "json"), 2),
    Case("fx021-gfx902-default", "fixture:021-gfx902-cezanne-apu-rocm4.3.1-arch", [], REFUSED, 3),
    Case("fx028-rocky-rocm-upgrade", "fixture:028-gfx1030-rx6800-rocm5.3.0-rocky9.0", ["--path", "rocm-upgrade"],
         REFUSED, 3),
    # its amdgpu 5.3 driver: AMD's window (5.3-5.6 rows documented, issue 30) ends at ROCm 5.5, older
    # than every image: refused, upgrade the kernel driver first
    # issue 26: the Core SDK on rpm hosts (Rocky 9.4 with dnf, SLES 15 SP7 with zypper), from a legacy 6.2
    Case("seed-rocky9.4-coresdk-10.0", "seed:seed-rx7900xt-rocky9.4-rocm6.2", ["--path", "rocm-upgrade", "--rocm", "10.0"],
         ALL, 2),
    Case("seed-sles15.7-coresdk-10.0", "seed:seed-rx7900xt-sles15.7-rocm6.2", ["--path", "rocm-upgrade", "--rocm", "10.0"],
         ALL, 2),
    Case("seed-rocky9.4-coresdk-10.1-inferred", "seed:seed-rx7900xt-rocky9.4-rocm6.2",
         ["--path", "rocm-upgrade", "--rocm", "10.1"], ("shell",), 2),
    Case("fx028-rocky-docker", "fixture:028-gfx1030-rx6800-rocm5.3.0-rocky9.0", ["--path", "docker"],
         REFUSED, 64),
]
