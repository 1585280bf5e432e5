"""The GPU probe's merge keeps what it asks of a slot (``Slot.val``, ``Slot.with_address``,
``_slot_facts``) while observations are appended to it: an answer of "none has it" must be looked
at again in the observations appended since, and a score must follow them."""
from __future__ import annotations

from rocm_wizard.detect.probes import gpus
from rocm_wizard.model import GPU


def _obs(**kw) -> gpus.Obs:
    o = gpus.Obs(tool=kw.pop("tool", "lspci"), source=kw.pop("source", "paste:x"))
    for k, v in kw.items():
        setattr(o, k, v)
    return o


def test_a_value_appended_after_a_none_answer_is_found():
    slot = gpus.Slot(GPU(), [_obs(device_id="744c")])
    assert slot.val("kfd_node") is None and slot.with_address() is None
    slot.obs.append(_obs(kfd_node=1, bdf="0000:03:00.0"))
    assert slot.val("kfd_node") == 1
    assert slot.with_address() is slot.obs[1]
    slot.obs.append(_obs(kfd_node=2, bdf="0000:04:00.0"))
    assert slot.val("kfd_node") == 1 and slot.with_address() is slot.obs[1]  # (the first one stays)
    assert slot.val("is_amd") is None
    slot.obs.append(_obs(is_amd=False))
    assert slot.val("is_amd") is False


def test_scores_follow_the_observations_appended():
    slot = gpus.Slot(GPU(), [_obs(device_id="744c", gfx_target="gfx1100")])
    o = _obs(bdf="0000:03:00.0", kfd_node=1, device_id="744c", gfx_target="gfx1100")
    assert gpus._score(slot, o) == 10 + 3
    slot.obs.append(_obs(bdf="0000:03:00.0", kfd_node=1))
    assert gpus._score(slot, o) == 100 + 50 + 10 + 3
    assert gpus._score(slot, _obs(bdf="0000:04:00.0")) is None  # another address
    slot.obs.append(_obs(is_amd=True, name="Radeon RX 7900 XTX"))
    assert gpus._score(slot, _obs(is_amd=False)) is None
    assert gpus._score(slot, _obs(name="Radeon RX 7900 XTX", revision="c8")) == 2
