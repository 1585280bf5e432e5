#!/usr/bin/env python3
"""Write ``src/rocm_wizard/detect/_error_index.marshal``, the compact form of the known error table
(``detect/error_index.py``): run after editing ``detect/error_signatures.py`` or
``detect/failures.toml`` (``tests/detect/test_error_index.py`` fails while it is out of date; until
then detection loads the whole table, with the same results)."""
from __future__ import annotations

import marshal
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))

from rocm_wizard.detect import error_index  # noqa: E402


def main() -> int:
    data = error_index.build()
    blob = marshal.dumps(data, 4)
    tmp = error_index.INDEX_FILE + ".tmp"
    with open(tmp, "wb") as fh:
        fh.write(blob)
    os.replace(tmp, error_index.INDEX_FILE)
    print("%s: %d signatures, %d bytes" % (os.path.relpath(error_index.INDEX_FILE, ROOT), len(data["rows"]), len(blob)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
