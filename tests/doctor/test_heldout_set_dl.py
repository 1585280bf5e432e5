"""Held-out set DL (tests/data/real/2240-2243, HELDOUT.md): GPU workloads run as system services and read from their
journals (Ollama's systemd unit, an inference server's crash in `journalctl -k`, syslog-prefixed kernel lines).
The miss's cause, from the program that prints the line: Ollama creates its identity keypair on every start
(ollama/ollama cmd/cmd.go initializeKeypair: "Couldn't find '%s'. Generating new private key.", then
os.MkdirAll(filepath.Dir(privKeyPath)) -> fmt.Errorf("could not create directory %w", err), Go's *PathError
'mkdir <path>: <errno text>'); under the install script's ollama.service the unit's user must own its home, and
when it does not 'ollama serve' exits 1 before any GPU is reached (2241).  Read only by the catch-all before, with
two more catch-all lines that are no failures: that 'Couldn't find ... Generating new private key.' notice and
journalctl -x's catalog lines ('░░ Subject: Unit failed', systemd's catalog/systemd.catalog.in), now benign."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.failure_lines import looks_like_failure
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "dl_ollama_keypair_dir_not_creatable"


@pytest.mark.parametrize("num,layer", [("2240", "kernel"), ("2241", "framework"), ("2242", "framework")])
def test_the_set_dl_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_fixture_is_named_and_leads():
    assert_named_and_leads("2241", ROW, "framework")


def test_the_row_sits_at_the_applications_layer():
    assert error_signatures.failure_layer(ROW) == "framework"


# -- Ollama's keypair directory: the errno texts Go's os.MkdirAll gives, with and without a journal prefix -------
@pytest.mark.parametrize("line", [
    # the fixture's line (ollama.service after install.sh)
    "Jul 28 08:28:30 omnibook-ultra-14 ollama[74021]: Error: could not create directory mkdir /var/lib/ollama: "
    "permission denied",
    # the install script's home of the ollama user
    "Error: could not create directory mkdir /usr/share/ollama: permission denied",
    # a sandboxed unit (ProtectSystem=strict) or a read-only root
    "Error: could not create directory mkdir /usr/share/ollama/.ollama: read-only file system",
    # a full disk, in a container's log
    "ollama  | Error: could not create directory mkdir /root/.ollama: no space left on device",
])
def test_keypair_directory_wordings_are_named(line):
    assert ROW in _ids(line), line


@pytest.mark.parametrize("line", [
    "Error: could not create directory /var/lib/ollama",                    # no Go PathError after it
    "mkdir: cannot create directory '/var/lib/ollama': Permission denied",  # coreutils' mkdir, another program
    "Error: open /usr/share/ollama/.ollama/id_ed25519: permission denied",  # the key file itself, another step
])
def test_near_misses_are_not_this_row(line):
    assert ROW not in _ids(line), line


# -- the lines that only look like failures ------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "Jul 28 08:28:30 omnibook-ultra-14 ollama[74021]: Couldn't find '/var/lib/ollama/.ollama/id_ed25519'. "
    "Generating new private key.",
    "Couldn't find '/usr/share/ollama/.ollama/id_ed25519'. Generating new private key.",
    "░░ Subject: Unit failed",
    "░░ The unit ollama.service has entered the 'failed' state with result 'exit-code'.",
])
def test_first_start_notice_and_journal_catalog_lines_are_not_failures(line):
    assert not looks_like_failure(line), line


def test_an_unknown_missing_file_is_still_a_failure_line():
    assert looks_like_failure("Error: couldn't find '/opt/models/model.gguf'")
