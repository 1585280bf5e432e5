"""Held-out set IR (tests/data/real/3470-3471, HELDOUT.md): a third theme-neutral sample of the Hugging Face libraries'
AMD GPU issues (TGI's ROCm image not finding its server program, transformers failing to import on Windows with AMD's
PyTorch because torch.distributed has no FileStore).  3471 led at framework on the unchanged code (the catch-all reads
Python's ImportError in transformers' own module).  3470 did not:

* 3470: 'text-generation-server not found in PATH', huggingface/text-generation-inference launcher/src/main.rs
  (download_convert_model and shard_manager: when spawning 'text-generation-server' fails with io::ErrorKind::NotFound,
  tracing::error!("text-generation-server not found in PATH") and "Please install it with `make install-server`"; main
  then returns DownloadError / ShardCannotStart).  The catch-all read the launcher's ERROR line at framework; the
  thread and the source put it in the install (the image's PATH does not reach the server's virtual environment).  Row
  ir_tgi_launcher_server_not_in_path reads it at packaging."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

TGI = "ir_tgi_launcher_server_not_in_path"


@pytest.mark.parametrize("num,layer", [("3470", "packaging"), ("3471", "framework")])
def test_the_set_ir_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_new_row_names_its_fixture_and_leads_at_packaging():
    assert_named_and_leads("3470", TGI, "packaging")


@pytest.mark.parametrize("line", [
    # the fixture's line (huggingface/text-generation-inference#3137, 2025-03-24): the download step's span
    "2025-03-24T17:44:27.843241Z ERROR download: text_generation_launcher: text-generation-server not found in PATH",
    # the same tracing::error! in shard_manager, under its 'shard-manager' span (launcher/src/main.rs)
    "2024-06-01T10:00:00.000000Z ERROR shard-manager: text_generation_launcher: text-generation-server not found in PATH"
    " rank=0",
    # the launcher's JSON log output (--json-output), the message as its 'fields.message'
    '{"timestamp":"2024-06-01T10:00:00.000000Z","level":"ERROR","fields":{"message":"text-generation-server not found in'
    ' PATH"},"target":"text_generation_launcher","span":{"name":"download"}}',
])
def test_the_tgi_row_reads_the_launchers_missing_server_line(line):
    assert TGI in ids(line)
    assert error_signatures.failure_layer(TGI) == "packaging"


@pytest.mark.parametrize("line", [
    # a shell not finding the launcher itself (huggingface/text-generation-inference#2058, 2024-06)
    "bash: text-generation-launcher: command not found",
    # the launcher's other start-up failures: a shard that started and died, and its own exit line alone
    "2024-04-15T14:03:19.035250Z ERROR shard-manager: text_generation_launcher: Shard complete standard error output:",
    "Error: DownloadError",
    # another program's lookup of a different tool
    "ERROR: uv not found in PATH",
])
def test_other_lines_are_not_the_missing_server(line):
    assert TGI not in ids(line)
