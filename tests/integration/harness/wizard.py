"""Running rocm-wizard itself inside a test root: the repository is bind-mounted read-only at
/opt/rocm-wizard and run with the root's own python3 (``python3 -m rocm_wizard``), as root or as
a user, like on a real machine.  The machine has no AMD GPU, so a test that needs one gives the
root the sysfs entries of a real card (:func:`add_gpu`); /sys is not mounted in the root."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, Optional

from .debroot import DebRoot

REPO = Path(__file__).resolve().parents[3]
MOUNT = "/opt/rocm-wizard"

# PCI and KFD values of a Radeon RX 7900 XTX (Navi 31): device 744c, revision c8, gfx1100
# (gfx_target_version 110000 = 11*10000 + 0*100 + 0).  Sources: shared/research/amd-gpus.csv and
# rocm-facts.md section 7 (KFD topology encoding).
RX7900XTX = {"device": "744c", "revision": "c8", "gfx_target_version": "110000", "bdf": "0000:03:00.0",
             "location_id": "768"}


def prepare(root: DebRoot) -> None:
    root.bind(str(REPO), MOUNT)


def env(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    out = {"PYTHONPATH": f"{MOUNT}/src", "PYTHONDONTWRITEBYTECODE": "1"}
    if extra:
        out.update(extra)
    return out


def run(root: DebRoot, *args: str, user: Optional[str] = None, extra_env: Optional[Dict[str, str]] = None,
        timeout: float = 600):
    return root.run(["python3", "-m", "rocm_wizard", *args], env=env(extra_env), user=user, timeout=timeout)


def popen(root: DebRoot, *args: str, user: Optional[str] = None, extra_env: Optional[Dict[str, str]] = None, **kw):
    return root.popen(["python3", "-m", "rocm_wizard", *args], env=env(extra_env), user=user, **kw)


def add_gpu(root: DebRoot, card: Dict[str, str] = RX7900XTX) -> None:
    base = f"/sys/bus/pci/devices/{card['bdf']}"
    for name, value in (("vendor", "0x1002"), ("device", "0x" + card["device"]),
                        ("revision", "0x" + card["revision"]), ("class", "0x030000"),
                        ("uevent", f"DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_ID=1002:{card['device'].upper()}\n"
                                   f"PCI_SLOT_NAME={card['bdf']}\n")):
        root.write(f"{base}/{name}", value + "\n")
    root.write("/sys/class/kfd/kfd/topology/nodes/0/properties",
               "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\nvendor_id 0\n")
    root.write("/sys/class/kfd/kfd/topology/nodes/1/properties",
               f"cpu_cores_count 0\nsimd_count 192\ngfx_target_version {card['gfx_target_version']}\n"
               f"vendor_id 4098\ndevice_id {int(card['device'], 16)}\nlocation_id {card['location_id']}\n"
               "domain 0\ndrm_render_minor 128\n")
