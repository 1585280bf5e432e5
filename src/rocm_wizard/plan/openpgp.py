"""Just enough OpenPGP to check an apt signing key without gpg: split a key file (ASCII-armored or
binary) into packets, compute the fingerprint of every primary key (v4: SHA-1, v6: SHA-256, RFC
9580 §5.5.4), and read its creation, expiry and revocation from the self-signatures.

The plan checks the downloaded key *before* anything is written (:func:`minimal_keyring`), packet
by packet: the file must hold exactly one primary public key, the expected one, with its own subkeys,
user ids and signatures.  A file with any other primary key or with secret-key packets is refused
(apt versions that verify with sqv would trust a key smuggled in either way); packets of no use in a
keyring (trust, marker, padding, unknown or private types) are dropped.  What is written is a freshly
serialised keyring of the accepted packets, never the downloaded bytes.  The shell script and the
playbook apply the same rule with gpg (``plan/steps/apt.py``).  ``dearmor`` gives the same bytes as
``gpg --dearmor``.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Tuple

ARMOR_ANY = b"-----BEGIN PGP "

TAG_SIGNATURE = 2
TAG_SECRET_KEY = 5
TAG_PUBLIC_KEY = 6
TAG_SECRET_SUBKEY = 7
TAG_USER_ID = 13
TAG_PUBLIC_SUBKEY = 14
TAG_USER_ATTRIBUTE = 17

# what a public keyring is made of; every other packet type is dropped, except secret keys (refused)
KEEP = (TAG_SIGNATURE, TAG_PUBLIC_KEY, TAG_USER_ID, TAG_PUBLIC_SUBKEY, TAG_USER_ATTRIBUTE)
SECRET = (TAG_SECRET_KEY, TAG_SECRET_SUBKEY)

SIG_CERTIFICATIONS = (0x10, 0x11, 0x12, 0x13)
SIG_DIRECT_KEY = 0x1F
SIG_KEY_REVOCATION = 0x20


HASH_SHA1 = 2
SIG_SUBKEY_BINDING = 0x18


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
    # hash algorithms (RFC 9580 9.5: 2 = SHA-1, 8 = SHA-256...) of the key's own binding signatures:
    # user ID certifications, direct-key and subkey-binding signatures it issued
    binding_hashes: List[int] = field(default_factory=list)

    @property
    def sha1_only(self) -> bool:
        """Every binding signature of the key uses SHA-1: Sequoia's sqv (apt's verifier on Debian 13)
        rejects such bindings since 2026-02-01 (ROCm/legacy-rocm-build#5619), whatever the fingerprint."""
        return bool(self.binding_hashes) and all(h == HASH_SHA1 for h in self.binding_hashes)

    @property
    def long_id(self) -> str:
        return self.fingerprint[-16:]

    def expired(self, now: float) -> bool:
        return self.expires is not None and now >= self.expires


def is_armored(data: bytes) -> bool:
    return ARMOR_ANY in data[:4096]


def dearmor(data: bytes) -> bytes:
    """Binary packets of ASCII-armored data: every armored block, whatever its kind (a private key
    block beside the public one is read too, so that its packets are seen), concatenated; binary
    input is returned unchanged.  Raises :class:`KeyFormatError` on broken armor."""
    if not is_armored(data):
        if data[:1] and data[0] & 0x80:
            return data
        raise KeyFormatError("not an OpenPGP key (neither armored nor binary packets)")
    out = b""
    rest = data
    while ARMOR_ANY in rest:
        begin = rest.index(ARMOR_ANY)
        start = rest.find(b"-----", begin + len(ARMOR_ANY))
        if start < 0:
            raise KeyFormatError("broken armor header line")
        kind = rest[begin + len(ARMOR_ANY):start]
        start += 5
        end = rest.find(b"-----END PGP " + kind + b"-----", start)
        if end < 0:
            raise KeyFormatError("armored key block has no END line")
        lines = rest[start:end].replace(b"\r", b"").split(b"\n")
        rest = rest[end + len(kind) + 18:]
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
        if len(body) > 0xFFFF:  # v4 fingerprints hash a two-octet length (RFC 4880 12.2)
            raise KeyFormatError(f"v4 public key packet of {len(body)} bytes is longer than 65535")
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
    hash_alg: int = 0
    created: Optional[int] = None
    key_expiry: Optional[int] = None  # seconds after key creation
    issuer: Optional[str] = None  # long id or fingerprint, upper hex


def _signature(body: bytes) -> Optional[_Sig]:
    if len(body) < 6 or body[0] not in (4, 6):
        return None  # v3 signatures carry no subpackets we need
    version, sigtype = body[0], body[1]
    sig = _Sig(sigtype, hash_alg=body[3])
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
    """The primary public keys in ``data`` (armored or binary); packets that are not part of a
    public keyring are skipped.  Raises :class:`KeyFormatError`, also for secret-key packets."""
    return _read(_key_packets(data))


def _key_packets(data: bytes) -> List[Tuple[int, bytes]]:
    packets = list(_packets(dearmor(data)))
    secret = sum(1 for tag, _ in packets if tag in SECRET)
    if secret:
        raise KeyFormatError(f"it holds {secret} secret-key packet(s), which have no place in a public key file")
    return [(tag, body) for tag, body in packets if tag in KEEP]


def _header(tag: int, length: int) -> bytes:
    """A packet header as ``gpg --export`` writes it: the old format with the shortest length for
    tags below 16, the new format above (RFC 9580 §4.2)."""
    if tag < 16:
        for ltype, size in enumerate((1, 2, 4)):
            if length < 1 << (8 * size):
                return bytes((0x80 | tag << 2 | ltype,)) + length.to_bytes(size, "big")
    if length < 192:
        return bytes((0xC0 | tag, length))
    if length < 8384:
        n = length - 192
        return bytes((0xC0 | tag, (n >> 8) + 192, n & 0xFF))
    return bytes((0xC0 | tag, 0xFF)) + struct.pack(">I", length)


def minimal_keyring(data: bytes, fingerprint: str, now: Optional[float] = None) -> Tuple[PublicKey, bytes]:
    """Accept ``data`` only when it holds exactly the primary public key ``fingerprint`` (neither
    revoked nor, given ``now``, expired), no other primary key and no secret-key packet; return that
    key and a binary keyring freshly serialised from its own packets (public key, user ids and
    attributes, subkeys, signatures; nothing else).  Raises :class:`KeyFormatError` saying why not."""
    packets = _key_packets(data)
    keys = _read(packets)
    fprs = [k.fingerprint for k in keys]
    if fprs != [fingerprint]:
        raise KeyFormatError(f"it holds key(s) {', '.join(fprs)}, expected exactly {fingerprint}")
    if keys[0].revoked:
        raise KeyFormatError(f"key {fingerprint} is revoked")
    if now is not None and keys[0].expired(now):
        raise KeyFormatError(f"key {fingerprint} has expired")
    return keys[0], b"".join(_header(tag, len(body)) + body for tag, body in packets)


def _read(packets: List[Tuple[int, bytes]]) -> List[PublicKey]:
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
        elif tag == TAG_SIGNATURE and in_subkey:
            sig = _signature(body)
            if sig is not None and sig.sigtype == SIG_SUBKEY_BINDING and _by_issuer(sig, current):
                current.binding_hashes.append(sig.hash_alg)
        elif tag == TAG_SIGNATURE and not in_subkey:
            sig = _signature(body)
            if sig is None or not _by_issuer(sig, current):
                continue
            if sig.sigtype == SIG_KEY_REVOCATION:
                current.revoked = True
            elif sig.sigtype in SIG_CERTIFICATIONS or sig.sigtype == SIG_DIRECT_KEY:
                current.binding_hashes.append(sig.hash_alg)
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
