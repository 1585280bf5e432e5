"""Hostile and broken sources stay bounded: huge, truncated, deeply nested, escaped pages and
redirects to other hosts, served on loopback; the parsers on recorded responses."""
from __future__ import annotations

import io
import json
import os
import zipfile

import pytest

from refresh_mirror import DATA, Mirror
from rocm_wizard.catalog import refresh_parse as rp
from rocm_wizard.catalog.refresh import Options, RefreshError, refresh
from rocm_wizard.catalog.refresh_net import FetchError, Fetcher, redact


@pytest.fixture()
def mirror():
    m = Mirror().start()
    yield m
    m.stop()


def _route(m: Mirror, path: str, code: int = 200, body: bytes = b"", headers=None, length=None, ctype="text/html"):
    def answer(h):
        h._send(code, body, ctype, headers, length)
    m.routes[path] = answer


def test_body_over_the_limit_is_refused_with_and_without_content_length(mirror):
    _route(mirror, "/big", body=b"x" * 300_000)
    with pytest.raises(FetchError, match="more than the 100000 allowed"):
        Fetcher().get(mirror.url + "/big", limit=100_000)

    def stream(h):  # no Content-Length: the limit must hold while reading
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.end_headers()
        h.wfile.write(b"y" * 300_000)
        h.close_connection = True
    mirror.routes["/stream"] = stream
    with pytest.raises(FetchError, match="more than the 100000 bytes allowed"):
        Fetcher().get(mirror.url + "/stream", limit=100_000)


def test_truncated_download_is_a_failure(mirror):
    _route(mirror, "/short", body=b"<html>", length=5000)
    with pytest.raises(FetchError, match="cut short"):
        Fetcher(timeout=5).get(mirror.url + "/short")


def test_redirects_stay_on_the_host(mirror):
    other = Mirror(host="127.0.0.2").start()
    try:
        _route(other, "/secret", body=b"from another host")
        _route(mirror, "/away", 302, headers={"Location": other.url + "/secret"})
        with pytest.raises(FetchError, match="redirected to another host"):
            Fetcher().get(mirror.url + "/away")
        assert other.requests == []
        _route(mirror, "/here", 301, headers={"Location": "/whl/torch/"})
        assert b"Links for torch" in Fetcher().get(mirror.url + "/here").body
        _route(mirror, "/loop", 302, headers={"Location": "/loop"})
        with pytest.raises(FetchError):
            Fetcher().get(mirror.url + "/loop")
        assert mirror.requests.count("/loop") <= 6
    finally:
        other.stop()


def test_garbage_and_slow_answers_are_one_line_failures(mirror):
    def garbage(h):
        h.wfile.write(b"\x1b[2J not http at all\r\n\r\n")
        h.close_connection = True
    mirror.routes["/garbage"] = garbage
    with pytest.raises(FetchError) as exc:
        Fetcher(timeout=5).get(mirror.url + "/garbage")
    assert "\n" not in str(exc.value) and "\x1b" not in str(exc.value)

    def trickle(h):  # each byte well within the socket timeout, the whole far beyond the deadline
        import time
        h.send_response(200)
        h.send_header("Content-Length", "100")
        h.end_headers()
        for _ in range(100):
            h.wfile.write(b"x")
            h.wfile.flush()
            time.sleep(0.05)
    mirror.routes["/slow"] = trickle
    with pytest.raises(FetchError, match="took longer"):
        Fetcher(timeout=0.2).get(mirror.url + "/slow")


def test_only_http_is_read():
    with pytest.raises(FetchError, match="only http"):
        Fetcher().get("file:///etc/passwd")


def test_redaction():
    assert redact("https://user:pw@h.example/p/?token=abc&page=2") == "https://h.example/p/?token=REDACTED&page=2"
    assert redact("http://h/whl/\x1b[2J\u202e.whl") == "http://h/whl/%1B[2J%E2%80%AE.whl"
    assert rp.release_file("Suite: noble\x1b[31m\nCodename: noble\n")["Suite"] == "noble[31m"


def test_deeply_nested_tags_page_fails_the_refresh_cleanly(mirror, tmp_path):
    deep = b"[" * 100_000 + b"]" * 100_000
    _route(mirror, "/hub/v2/repositories/rocm/pytorch/tags", body=deep, ctype="application/json")
    with pytest.raises(RefreshError, match="nested deeper"):
        refresh(Options(docker_hub=mirror.url + "/hub", sources=("docker",)))
    with pytest.raises(rp.ParseError, match="nested deeper"):
        rp.tags_page(deep)


def test_next_page_on_another_host_is_read_from_the_configured_one(mirror):
    page = {"count": 1, "next": "http://127.0.0.2:9/v2/repositories/rocm/pytorch/tags?page=2", "results": []}
    _route(mirror, "/hub/v2/repositories/rocm/pytorch/tags", body=json.dumps(page).encode(), ctype="application/json")
    # every page names a `next` on another host: it is read from the mirror, and the loop is bounded
    out = refresh(Options(docker_hub=mirror.url + "/hub", sources=("docker",)))
    assert any("stopped after 30 pages" in w for w in out["warnings"])
    assert len(mirror.requests) == 30 and all(r.startswith("/hub/v2/repositories/rocm/pytorch/tags") for r in mirror.requests)
    assert all("page=2" in r for r in mirror.requests[1:])


def test_escapes_and_nesting_in_index_pages_are_harmless():
    page = ("<html>" + "<div>" * 50_000 + "\n<a href='/whl/rocm9.9/torch-9.9.0%2Brocm9.9-cp312-cp312-linux_x86_64.whl'>"
            "torch-9.9.0+rocm9.9\x1b[2J-cp312-cp312-linux_x86_64.whl</a>"
            "<a href='/whl/rocm9.9/torch-9.9.1&#x25;2Brocm9.9-cp312-cp312-linux_x86_64.whl' data-requires-python='&gt;=3.10'>"
            "torch-9.9.1+rocm9.9-cp312-cp312-linux_x86_64.whl</a>" + "</div>" * 50_000 + "</html>").encode()
    links = rp.simple_links(page, "text/html", "http://127.0.0.1/whl/torch/")
    names = [rp.wheel_info(link.filename) for link in links]
    assert names[0] is None  # a name with a terminal escape is no wheel name
    assert names[1].version == "9.9.1+rocm9.9" and links[1].requires_python == ">=3.10"
    assert links[1].url == "http://127.0.0.1/whl/rocm9.9/torch-9.9.1%2Brocm9.9-cp312-cp312-linux_x86_64.whl"


def test_pep691_json_page():
    body = json.dumps({"meta": {"api-version": "1.1"}, "name": "torch", "files": [
        {"filename": "torch-2.16.0+rocm10.1-cp312-cp312-manylinux_2_28_x86_64.whl",
         "url": "../rocm10.1/torch-2.16.0%2Brocm10.1-cp312-cp312-manylinux_2_28_x86_64.whl",
         "hashes": {}, "requires-python": ">=3.10", "core-metadata": {"sha256": "ab"}},
        {"filename": "torch-2.16.0+rocm10.1-cp313-cp313-manylinux_2_28_x86_64.whl", "url": "x.whl", "hashes": {},
         "yanked": "broken"}]}).encode()
    links = rp.simple_links(body, "application/vnd.pypi.simple.v1+json", "http://h/whl/torch/")
    assert links[0].url == "http://h/whl/rocm10.1/torch-2.16.0%2Brocm10.1-cp312-cp312-manylinux_2_28_x86_64.whl"
    assert links[0].core_metadata == "sha256=ab" and links[0].requires_python == ">=3.10"
    assert links[1].yanked and links[1].core_metadata is None


def test_real_release_file():
    with open(os.path.join(DATA, "apt/rocm/apt/6.2.4/dists/noble/Release"), encoding="utf-8") as fh:
        fields = rp.release_file(fh.read())
    assert fields["Version"] == "6.2.4" and fields["Codename"] == "noble"
    assert fields["Components"] == "main proprietary" and fields["Date"] == "Fri, 08 Nov 2024 18:58:55 UTC"
    with pytest.raises(rp.ParseError):
        rp.release_file("<html>404</html>")


def test_metadata_pins():
    with open(os.path.join(DATA, "pytorch/whl/rocm10.1/torch-2.16.0+rocm10.1-cp312-cp312-manylinux_2_28_x86_64.whl.metadata"),
              encoding="utf-8") as fh:
        meta = rp.core_metadata(fh.read())
    assert rp.exact_pin(meta["requires_dist"], ["triton-rocm", "pytorch-triton-rocm"]) == ("triton-rocm", "3.9.0")
    assert rp.exact_pin(['triton-rocm==1.0; platform_system == "Windows"'], ["triton-rocm"]) is None
    assert rp.exact_pin(["triton-rocm>=3"], ["triton-rocm"]) is None
    assert rp.exact_pin(["triton-rocm==3.9.*"], ["triton-rocm"]) is None
    assert rp.exact_pin(["triton-rocm===$(reboot)"], ["triton-rocm"]) is None


def test_zip_directory_from_the_tail():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("torch/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat", b"x")
        z.writestr("torch/share/miopen/db/gfx942.kdb", b"x")
        z.writestr("torch/lib/libtorch_hip.so", b"gfx1030 is named here but not a kernel file")
        z.writestr("t.dist-info/METADATA", b"Name: torch\nVersion: 1\n")
    blob = buf.getvalue()
    offset, size = rp.zip_tail_directory(blob[-200:], len(blob))
    entries = rp.zip_entries(blob[offset:offset + size])
    assert rp.gfx_from_members([e.name for e in entries]) == ["gfx1100", "gfx942"]
    meta = [e for e in entries if e.name.endswith("METADATA")][0]
    assert rp.zip_member_data(blob[meta.header_offset:], meta) == b"Name: torch\nVersion: 1\n"
    with pytest.raises(rp.ParseError):
        rp.zip_tail_directory(b"not a zip at all" * 10)
    with pytest.raises(rp.ParseError):
        rp.zip_tail_directory(blob[-200:], 10)  # points past the end
