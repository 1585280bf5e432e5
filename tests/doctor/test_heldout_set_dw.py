"""Held-out set DW (tests/data/real/2370-2374, HELDOUT.md): PCIe and BIOS around AMD GPUs (PCIe atomics, AER errors,
risers, eGPUs over Thunderbolt/OCuLink).  One row was added: rocm_bandwidth_test's validation table with a FAIL cell
(ROCm/rocm_bandwidth_test rocm_bandwidth_test_report.cpp, RocmBandwidthTest::PrintPerfMatrix: the title 'Data Path
Validation', a 'D/D' header of agent numbers, then one row per source agent whose cells are 'N/A', 'PASS' or 'FAIL'
for VALIDATE_COPY_OP_FAILURE).  2371 and 2374 were labelled at the kernel that printed their AER lines; the twentieth
session settled PCI (AER, the port driver "pcieport") at firmware, issue 28's "firmware/BIOS/PCI", and moved both
labels (HELDOUT.md); the catch-all reads a "pcieport" device's line there too."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer, realrun

ROW = "dw_rocm_bandwidth_test_data_path_validation_fail"


@pytest.mark.parametrize("num,layer", [("2370", "firmware"), ("2371", "firmware"), ("2373", "runtime"),
                                       ("2374", "firmware")])
def test_the_set_dw_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("line", [
    # drivers/pci/pcie/aer.c aer_print_error's detail line and dpc.c's containment report, under the port driver
    "[ 1204.118311] pcieport 0000:00:01.1:   device [1022:1453] error status/mask=00001000/00006000",
    "Mar 02 10:11:12 host kernel: pcieport 0000:00:1c.0: DPC: containment event, status:0x1f01 source:0x0000",
])
def test_a_pcieport_line_is_read_at_firmware(line):
    from rocm_wizard.detect import failure_lines

    assert failure_lines.layer_of(line) == "firmware"


def test_the_healthy_oculink_pi_has_no_problem():
    assert _lead_layer(_fixture("2372")) is None


def test_the_row_is_read_at_runtime_on_the_fixture():
    folder = _fixture("2373")
    text = (folder / "outputs.txt").read_text(encoding="utf-8")
    assert ROW in _ids(text)
    assert error_signatures.failure_layer(ROW) == "runtime"


def _table(rows, agents):
    """A validation table laid out as PrintPerfMatrix prints it (width 10 for the row label, 12 per cell)."""
    out = "Data Path Validation\n\n" + " " * 10 + "D/D".rjust(10) + "".join(str(i).rjust(12) for i in range(agents))
    out += "\n\n"
    for i, cells in enumerate(rows):
        out += " " * 10 + str(i).rjust(10) + "".join(c.rjust(12) for c in cells) + "\n\n"
    return out + "\n"


@pytest.mark.parametrize("text", [
    # the tool's own layout (rocm_bandwidth_test_report.cpp, PrintPerfMatrix with validate=true): a FAIL on the
    # last row of a four-agent table (one CPU, three GPUs) -- the rows above are PASS/N/A only
    _table([["N/A", "PASS", "PASS", "PASS"], ["PASS", "PASS", "PASS", "PASS"], ["PASS", "PASS", "PASS", "PASS"],
            ["PASS", "PASS", "PASS", "FAIL"]], 4),
    # a GPU-to-GPU failure only (two GPUs behind one switch), host copies pass
    _table([["N/A", "PASS", "PASS"], ["PASS", "PASS", "FAIL"], ["PASS", "FAIL", "PASS"]], 3),
    # the fixture's own table (ROCm/ROCm#559, 2018; the index holds no other real paste of a failing table)
    "    Data Path Validation\n\n    D/D       0           1\n\n    0         N/A         FAIL\n\n    1         FAIL        PASS\n",
])
def test_the_row_reads_the_validation_table_with_a_fail(text):
    assert ROW in _ids(text)


@pytest.mark.parametrize("text", [
    # every copy verified
    _table([["N/A", "PASS"], ["PASS", "PASS"]], 2),
    # a FAIL in later, unrelated text after a clean table (a test runner's summary line)
    _table([["N/A", "PASS"], ["PASS", "PASS"]], 2) + "test_copy ... FAIL\n",
    # the bandwidth matrix (no -v): numbers, not validation cells
    "Unidirectional copy peak bandwidth GB/s\n\n          D/D       0           1\n\n          0         N/A         11.8\n",
    # prose naming the table
    "Data Path Validation\nthe table said FAIL for the host copies\n",
])
def test_near_misses_are_not_read_as_a_failed_validation(text):
    assert ROW not in _ids(text)


def test_the_row_does_not_fire_on_a_passing_run_through_doctor(tmp_path):
    (tmp_path / "outputs.txt").write_text(_table([["N/A", "PASS"], ["PASS", "PASS"]], 2), encoding="utf-8")
    diag = realrun.diagnosis(tmp_path)
    assert not any(ROW in " ".join(map(str, getattr(f, "evidence", []) or [])) for f in diag.findings)
