"""``catalog refresh`` reads index pages (up to ``refresh_net.PAGE_LIMIT``) with a linear scan for
anchors, not ``html.parser``, which is quadratic on CPython without the fix of CVE-2025-6069
(issue 27).  The pages are PEP 503 simple indexes and directory listings; a real PyPI page is read
field for field, and hostile pages cost a bounded amount of work per character: the scanner counts
the characters each of its steps looked at (``examined``) and the number of steps, and both stay
within a small multiple of the page's length whatever it holds.  (Timings are in
``benchmarks/bench_refresh_html.py``, not here.)"""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from rocm_wizard.catalog import refresh_parse as rp

PYPI_TORCH = Path(__file__).parent / "refresh_data" / "pypi" / "simple" / "torch" / "index.html"
N = 256 * 1024

HOSTILE = {
    "<a repeated": "<a",
    "<a with a space, never closed": "<a x",
    "unclosed quotes": "<a href='x",
    "unclosed double quotes after =": '<a x="',
    "bare = with no value": "<a x=",
    "<! repeated, never closed": "<!",
    "<!-- repeated, never closed": "<!--",
    "comment openers inside a tag": "<a <!--",
    "end tags": "</",
    "< and letters": "<aaaa",
    "lone <": "<",
    "closed anchors with text": '<a href="x">y',
    "closed anchors, unclosed comment after each": '<a href="x">y<!-',
    "tags with quoted >": "<p x='>'",
    "entities": "&#x26;&amp;&",
}


def test_the_parser_is_not_html_parser():
    tree = ast.parse(inspect.getsource(rp))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names} | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "html.parser" not in imported and "HTMLParser" not in imported


def test_a_real_pypi_page_is_read_field_for_field():
    body = PYPI_TORCH.read_bytes()
    links = rp.simple_links(body, "text/html", "https://pypi.org/simple/torch/")
    assert len(links) == body.count(b"<a ") == 6
    first, last = links[0], links[-1]
    assert first.filename == "torch-1.0.0-cp37-cp37m-manylinux1_x86_64.whl"
    assert first.url == ("https://files.pythonhosted.org/packages/f5/3b/0b8de6e654c2983898564226792c6f09d9bcaba97b7b29"
                         "c40e4ed4ae43ed/torch-1.0.0-cp37-cp37m-manylinux1_x86_64.whl")  # no #sha256 fragment
    assert first.requires_python is None and first.core_metadata is None and not first.yanked
    assert last.filename == "torch-2.15.0-cp315-cp315t-win_amd64.whl"
    assert last.requires_python == ">=3.11"  # &gt; unescaped
    assert rp.wheel_info(last.filename).version == "2.15.0"


def test_anchor_attributes_as_pep_503_and_658_write_them():
    page = ("<!DOCTYPE html><html><body><!-- <a href='commented-out.whl'>no</a> -->"
            "<A HREF=\"/whl/rocm7.2/torch-2.9.1%2Brocm7.2-cp312-cp312-linux_x86_64.whl#sha256=ab\" "
            "data-requires-python=\"&gt;=3.10\" data-core-metadata=\"sha256=cd\" data-dist-info-metadata=\"sha256=cd\">"
            "torch-2.9.1+rocm7.2-cp312-cp312-linux_x86_64.whl</A><br/>\n"
            "<a href=/whl/x-1.0-py3-none-any.whl data-yanked>x-1.0-py3-none-any.whl</a>"
            "<a data-x='a>b' href='y-1.0.tar.gz' data-core-metadata=false></a>"
            "<a name=anchor-without-href>z</a></body></html>").encode()
    links = rp.simple_links(page, "text/html", "http://127.0.0.1/whl/torch/")
    assert [link.filename for link in links] == [
        "torch-2.9.1+rocm7.2-cp312-cp312-linux_x86_64.whl", "x-1.0-py3-none-any.whl", "y-1.0.tar.gz"]
    assert links[0].url == "http://127.0.0.1/whl/rocm7.2/torch-2.9.1%2Brocm7.2-cp312-cp312-linux_x86_64.whl"
    assert links[0].requires_python == ">=3.10" and links[0].core_metadata == "sha256=cd"
    assert links[1].yanked and links[1].url == "http://127.0.0.1/whl/x-1.0-py3-none-any.whl"
    assert links[2].core_metadata is None and links[2].url == "http://127.0.0.1/whl/torch/y-1.0.tar.gz"


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_pages_cost_linear_work(name):
    for size in (N, 2 * N):
        unit = HOSTILE[name]
        text = unit * (size // len(unit))
        scanner = rp._Anchors(text)
        try:
            scanner.scan()
        except rp.ParseError:
            pass
        # each step looks at fresh characters (a failed search or match counts twice: the
        # engine's pass and its way back), and no more steps than characters
        assert scanner.examined <= 3 * len(text) + 16, (name, size, scanner.examined)
        assert scanner.steps <= len(text) + 2, (name, size, scanner.steps)


def test_an_unclosed_tag_or_comment_ends_the_scan_but_keeps_what_came_before():
    good = '<a href="/a-1.0.tar.gz">a-1.0.tar.gz</a>\n'
    for tail in ('<a href="x' + "y" * N, "<!--" + "<a href=z>z</a>" * 1000, "<a x" * N):
        links = rp.simple_links((good + tail).encode(), "text/html", "http://h/p/")
        assert [link.filename for link in links] == ["a-1.0.tar.gz"], tail[:20]


def test_too_many_links_is_a_parse_error():
    with pytest.raises(rp.ParseError, match="more than"):
        rp.simple_links(b"<a href=x>x</a>" * (rp.MAX_LINKS + 1), "text/html", "http://h/")
