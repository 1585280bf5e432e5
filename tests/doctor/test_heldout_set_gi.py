"""Held-out set GI (tests/data/real/2900-2904, HELDOUT.md): a theme-neutral sample of JAX's and XLA's ROCm issues
(jax-ml/jax, ROCm/jax, ROCm/rocm-jax).  One miss had a general fix: 2900's jaxlib build stopping on LLVM's AMDGPU
back-end refusing a machine instruction, 'error: Illegal instruction detected: Invalid dpp_ctrl value: broadcasts are
not supported on GFX10+' (llvm/llvm-project llvm/lib/Target/AMDGPU/AMDGPUMCInstLower.cpp, AMDGPUAsmPrinter::
emitInstruction: emitError("Illegal instruction detected: " + Err) with SIInstrInfo::verifyInstruction's reason),
read at framework like clang's 'needs target feature' refusal of a program's device code.  2901 and 2902 are
labelled framework where the catalogue row wl_jax_plugin_configuration_error reads JAX's plugin configuration error at
packaging, the exception after it cut in the index's copies (MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "gi_llvm_amdgpu_illegal_instruction_detected"


@pytest.mark.parametrize("num,layer", [("2900", "framework"), ("2903", "hip"), ("2904", "framework")])
def test_the_set_gi_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_fixture_line_is_named_and_leads():
    assert_named_and_leads("2900", ROW, "framework")


@pytest.mark.parametrize("text", [
    # ROCm/ROCm#2685 (JAX and LAMMPS built for an RX 6600M, 'compiling for gfx1032')
    "error: Illegal instruction detected: Invalid dpp_ctrl value: broadcasts are not supported on GFX10+\n"
    "renamable $vgpr45 = V_MOV_B32_dpp undef $vgpr45(tied-def 0), $vgpr12, 322, 15, 15, 0, implicit $exec\n"
    "6 errors generated when compiling for gfx1032.\n",
    # ROCm/ROCm#5826's title (an -O0 build on gfx1100), the wavefront-shift reason of SIInstrInfo.cpp
    "llvm -O0 bug on gfx1100: Illegal instruction detected: Invalid dpp_ctrl value: wavefront shifts are not "
    "supported on GFX10+\n",
    # the -O0 register-class reason, as a project's source comment quotes the compiler's output (Gentoo's ROCm
    # ebuilds quote the same first line beside their -O0 -> -O1 workaround)
    "error: Illegal instruction detected: Operand has incorrect register class.\n"
    "V_CMP_NE_U32_e32 0, $src_private_base, implicit-def $vcc, implicit $exec\n",
])
def test_other_wordings_of_the_verifier_refusal_are_named(text):
    assert ROW in _ids(text)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("text", [
    "Illegal instruction (core dumped)\n",                                  # the shell's SIGILL report
    "Fatal Python error: Illegal instruction\n",                            # faulthandler's SIGILL
    "Illegal instruction detected in the guest, the VM was stopped\n",      # no colon and reason
    "# error: Illegal instruction detected:\n",                             # the words without a reason
])
def test_lines_that_are_not_the_verifier_refusal_are_not_named(text):
    assert ROW not in _ids(text)
