"""Just enough OpenPGP to check an apt signing key without gpg: split a key file (ASCII-armored or
binary) into packets, compute the fingerprint of every primary key (v4: SHA-1, v6: SHA-256, RFC
9580 §5.5.4), and read its creation, expiry and revocation from the self-signatures.

The plan checks the fingerprint of the downloaded key *before* anything is written, and refuses a
file that carries any primary key other than the expected one (a second, foreign key in the same
file would otherwise be trusted by apt too).  ``dearmor`` gives the same bytes as ``gpg --dearmor``.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Tuple

ARMOR_BEGIN = b"-----BEGIN PGP PUBLIC KEY BLOCK-----"
ARMOR_END = b"-----END PGP PUBLIC KEY BLOCK-----"

TAG_SIGNATURE = 2
TAG_PUBLIC_KEY = 6
TAG_USER_ID = 13
TAG_PUBLIC_SUBKEY = 14

SIG_CERTIFICATIONS = (0x10, 0x11, 0x12, 0x13)
SIG_DIRECT_KEY = 0x1F
SIG_KEY_REVOCATION = 0x20


class KeyFormatError(ValueError):
    """The data is not an OpenPGP public key (or is damaged)."""


@dataclass
class PublicKey:
    fingerprint: str  # upper-case hex, no spaces
    version: int
    created: int  # seconds since the epoch
    expires: Optional[int] = None  # seconds since the epoch; None = never
    revoked: bool = False
    user_ids: List[str] = field(default_factory=list)

    @property
    def long_id(self) -> str:
        return self.fingerprint[-16:]

    def expired(self, now: float) -> bool:
        return self.expires is not None and now >= self.expires


def is_armored(data: bytes) -> bool:
    return ARMOR_BEGIN in data[:4096]


def dearmor(data: bytes) -> bytes:
    """Binary packets of an ASCII-armored key block (every block, concatenated); binary input is
    returned unchanged.  Raises :class:`KeyFormatError` on broken armor."""
    if not is_armored(data):
        if data[:1] and data[0] & 0x80:
            return data
        raise KeyFormatError("not an OpenPGP key (neither armored nor binary packets)")
    out = b""
    rest = data
    while ARMOR_BEGIN in rest:
        start = rest.index(ARMOR_BEGIN) + len(ARMOR_BEGIN)
        end = rest.find(ARMOR_END, start)
        if end < 0:
            raise KeyFormatError("armored key block has no END line")
        lines = rest[start:end].replace(b"\r", b"").split(b"\n")
        rest = rest[end + len(ARMOR_END):]
        body: List[bytes] = []
        in_headers = True
        for line in lines[1:] if lines and not lines[0].strip() else lines:
            text = line.strip()
            if in_headers:
                if b":" in text and not body:
                    continue  # armor header such as "Version: ..." or "Comment: ..."
                in_headers = False
            if not text:
                continue
            if text.startswith(b"=") and len(text) == 5:
                break  # CRC-24 checksum line
            body.append(text)
        try:
            out += base64.b64decode(b"".join(body), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise KeyFormatError(f"armored key block is not valid base64: {exc}") from exc
    if not out:
        raise KeyFormatError("armored key block is empty")
    return out


def _packets(data: bytes) -> Iterator[Tuple[int, bytes]]:
    pos = 0
    n = len(data)
    while pos < n:
        head = data[pos]
        pos += 1
        if not head & 0x80:
            raise KeyFormatError(f"bad packet header at byte {pos - 1}")
        if head & 0x40:  # new format
            tag = head & 0x3F
            if pos >= n:
                raise KeyFormatError("truncated packet length")
            o1 = data[pos]
            if o1 < 192:
                length, pos = o1, pos + 1
            elif o1 < 224:
                if pos + 1 >= n:
                    raise KeyFormatError("truncated packet length")
                length, pos = ((o1 - 192) << 8) + data[pos + 1] + 192, pos + 2
            elif o1 == 255:
                if pos + 5 > n:
                    raise KeyFormatError("truncated packet length")
                length, pos = struct.unpack(">I", data[pos + 1:pos + 5])[0], pos + 5
            else:
                raise KeyFormatError("partial body lengths are not used in key files")
        else:  # old format
            tag = (head >> 2) & 0x0F
            ltype = head & 0x03
            if ltype == 3:
                length = n - pos
            else:
                size = (1, 2, 4)[ltype]
                if pos + size > n:
                    raise KeyFormatError("truncated packet length")
                length = int.from_bytes(data[pos:pos + size], "big")
                pos += size
        if pos + length > n:
            raise KeyFormatError("truncated packet body")
        yield tag, data[pos:pos + length]
        pos += length


def _fingerprint(body: bytes) -> Tuple[int, str, int]:
    if not body:
        raise KeyFormatError("empty public key packet")
    version = body[0]
    if version in (2, 3):
        raise KeyFormatError("v3 keys are not supported (obsolete)")
    if version == 4:
        digest = hashlib.sha1(b"\x99" + struct.pack(">H", len(body)) + body).hexdigest()
    elif version == 5:
        digest = hashlib.sha256(b"\x9a" + struct.pack(">I", len(body)) + body).hexdigest()
    elif version == 6:
        digest = hashlib.sha256(b"\x9b" + struct.pack(">I", len(body)) + body).hexdigest()
    else:
        raise KeyFormatError(f"unknown public key version {version}")
    if len(body) < 5:
        raise KeyFormatError("truncated public key packet")
    created = struct.unpack(">I", body[1:5])[0]
    return version, digest.upper(), created


def _subpackets(blob: bytes) -> Iterator[Tuple[int, bytes]]:
    pos = 0
    while pos < len(blob):
        o1 = blob[pos]
        if o1 < 192:
            length, pos = o1, pos + 1
        elif o1 < 255:
            if pos + 1 >= len(blob):
                return
            length, pos = ((o1 - 192) << 8) + blob[pos + 1] + 192, pos + 2
        else:
            if pos + 5 > len(blob):
                return
            length, pos = struct.unpack(">I", blob[pos + 1:pos + 5])[0], pos + 5
        if length == 0 or pos + length > len(blob):
            return
        yield blob[pos] & 0x7F, blob[pos + 1:pos + length]
        pos += length


@dataclass
class _Sig:
    sigtype: int
    created: Optional[int] = None
    key_expiry: Optional[int] = None  # seconds after key creation
    issuer: Optional[str] = None  # long id or fingerprint, upper hex


def _signature(body: bytes) -> Optional[_Sig]:
    if len(body) < 6 or body[0] not in (4, 6):
        return None  # v3 signatures carry no subpackets we need
    version, sigtype = body[0], body[1]
    sig = _Sig(sigtype)
    pos = 4
    size = 4 if version == 6 else 2
    for _area in range(2):
        if pos + size > len(body):
            return sig
        n = int.from_bytes(body[pos:pos + size], "big")
        pos += size
        for stype, data in _subpackets(body[pos:pos + n]):
            if stype == 2 and len(data) == 4 and sig.created is None:
                sig.created = struct.unpack(">I", data)[0]
            elif stype == 9 and len(data) == 4:
                sig.key_expiry = struct.unpack(">I", data)[0]
            elif stype == 16 and len(data) == 8:
                sig.issuer = data.hex().upper()
            elif stype == 33 and len(data) >= 21:
                sig.issuer = data[1:].hex().upper()
        pos += n
    return sig


def _by_issuer(sig: _Sig, key: PublicKey) -> bool:
    return sig.issuer is None or key.fingerprint.endswith(sig.issuer)


def read_keys(data: bytes) -> List[PublicKey]:
    """The primary keys in ``data`` (armored or binary).  Raises :class:`KeyFormatError`."""
    packets = list(_packets(dearmor(data)))
    keys: List[PublicKey] = []
    current: Optional[PublicKey] = None
    in_subkey = False
    best: Optional[_Sig] = None
    for tag, body in packets:
        if tag == TAG_PUBLIC_KEY:
            if current is not None:
                _finish(current, best)
            version, fpr, created = _fingerprint(body)
            current = PublicKey(fpr, version, created)
            keys.append(current)
            in_subkey, best = False, None
        elif current is None:
            raise KeyFormatError("key data does not start with a public key packet")
        elif tag == TAG_PUBLIC_SUBKEY:
            in_subkey = True
        elif tag == TAG_USER_ID and not in_subkey:
            current.user_ids.append(body.decode("utf-8", errors="replace"))
        elif tag == TAG_SIGNATURE and not in_subkey:
            sig = _signature(body)
            if sig is None or not _by_issuer(sig, current):
                continue
            if sig.sigtype == SIG_KEY_REVOCATION:
                current.revoked = True
            elif sig.sigtype in SIG_CERTIFICATIONS or sig.sigtype == SIG_DIRECT_KEY:
                if best is None or (sig.created or 0) >= (best.created or 0):
                    best = sig
    if current is not None:
        _finish(current, best)
    if not keys:
        raise KeyFormatError("no public key in the data")
    return keys


def _finish(key: PublicKey, sig: Optional[_Sig]) -> None:
    if sig is not None and sig.key_expiry:
        key.expires = key.created + sig.key_expiry


def normalize_fingerprint(value: object) -> Optional[str]:
    """``"CA8B B472 ..."`` / ``"0xca8b..."`` -> upper-case hex of 40 (v4) or 64 (v6) digits; None
    when it is not a fingerprint."""
    text = str(value or "").strip().upper().replace(" ", "").replace(":", "")
    if text.startswith("0X"):
        text = text[2:]
    if len(text) not in (40, 64) or any(c not in "0123456789ABCDEF" for c in text):
        return None
    return text
