"""Offline verification of svc sealed receipts, outside JavaScript (docs/verify.md).

Standard library plus Debian's python3-cryptography (Ed25519, ECDSA P-256). It checks, from the
specifications alone:

* the receipt's digest: SHA-256 of the RFC 8785 canonical JSON of the sealed response without
  ``receipt.log``, ``receipt.digest``, ``tokens`` and ``signature``, equal to ``receipt.digest``;
* the inclusion proof (RFC 6962 section 2.1.1, verified as RFC 9162 section 2.1.3.2) from the
  leaf ``SHA-256(0x00 || digest)`` to the root of the checkpoint in ``receipt.log``;
* the checkpoint (c2sp.org/tlog-checkpoint) is a signed note (c2sp.org/signed-note) signed by
  the log's Ed25519 note key: a vkey, or the ``vkey`` member of a log key in the node's JWKS;
* optionally, an attestation (a Sigstore bundle v0.3 whose DSSE envelope carries an in-toto
  Statement v1): the ECDSA P-256 signature over the DSSE pre-authentication encoding, by the
  JWKS key the bundle names, and a subject digest equal to the receipt's.

Usage::

    python3 -m svc_client.verify receipt.json [--vkey VKEY | --jwks jwks.json] [--bundle bundle.json]

Exit status 0 when every check holds, 1 when one fails, 2 on a usage error.
"""

import base64
import hashlib
import json
import math
import struct
import sys
import urllib.request

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

__all__ = [
    "canonical_json", "receipt_digest", "verify_inclusion", "parse_vkey", "verify_note",
    "parse_checkpoint", "verify_receipt", "verify_attestation", "main",
]

SIG_ED25519 = 0x01
DSSE_PAYLOAD_TYPE = "application/vnd.in-toto+json"
PREDICATE_TYPE = "urn:svc:predicate:sealed-receipt:v1"


# --- RFC 8785 (JSON Canonicalization Scheme) -------------------------------------------------

def _es_number(x):
    """ECMAScript Number::toString (ECMA-262 section 7.1.12.1) of a finite float: the shortest
    round-trip digits (Python's repr gives the same digits), laid out as JavaScript does."""
    if x == 0:
        return "0"
    if math.isnan(x) or math.isinf(x):
        raise ValueError("canonical JSON has no NaN or Infinity")
    sign = "-" if x < 0 else ""
    r = repr(abs(x))
    mantissa, _, exp = r.partition("e")
    e = int(exp) if exp else 0
    if "." in mantissa:
        whole, frac = mantissa.split(".")
    else:
        whole, frac = mantissa, ""
    digits = (whole + frac).lstrip("0")
    # position of the decimal point relative to the first significant digit
    lead = len(whole + frac) - len((whole + frac).lstrip("0"))
    n = len(whole) - lead + e
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        s = digits + "0" * (n - k)
    elif 0 < n <= 21:
        s = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        s = "0." + "0" * (-n) + digits
    else:
        ex = n - 1
        s = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if ex >= 0 else "-") + str(abs(ex))
    return sign + s


def _string(s):
    out = json.dumps(s, ensure_ascii=False)
    # lone surrogates, as JSON.stringify writes them (well-formed JSON.stringify)
    return "".join("\\u%04x" % ord(c) if 0xD800 <= ord(c) <= 0xDFFF else c for c in out)


def canonical_json(v):
    """RFC 8785: keys sorted by UTF-16 code units, numbers as ECMAScript writes them."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        # JavaScript reads integers beyond 2**53 as the nearest double
        return str(v) if abs(v) <= 2 ** 53 else _es_number(float(v))
    if isinstance(v, float):
        return _es_number(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(canonical_json(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v.keys(), key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(_string(k) + ":" + canonical_json(v[k]) for k in keys) + "}"
    raise TypeError("not JSON: %r" % type(v))


def receipt_digest(receipt):
    """SHA-256 of the canonical sealed body: the receipt's log entry."""
    body = {k: v for k, v in receipt.items() if k not in ("tokens", "signature")}
    if isinstance(body.get("receipt"), dict):
        body["receipt"] = {k: v for k, v in body["receipt"].items() if k not in ("log", "digest")}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).digest()


# --- RFC 6962 / RFC 9162 ------------------------------------------------------------------------

def _node(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def leaf_hash(entry):
    return hashlib.sha256(b"\x00" + entry).digest()


def verify_inclusion(leaf, index, size, proof, root):
    """RFC 9162 section 2.1.3.2."""
    if not (0 <= index < size) or len(root) != 32 or any(len(p) != 32 for p in proof):
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            r = _node(p, r)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = _node(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


# --- c2sp.org/signed-note and tlog-checkpoint ---------------------------------------------------

def _b64(s):
    raw = base64.b64decode(s, validate=True)
    if base64.b64encode(raw).decode() != s:
        raise ValueError("non-canonical base64")
    return raw


def parse_vkey(vkey):
    """``<name>+<hex key id>+base64(0x01 || 32-byte Ed25519 key)``; returns (name, id, key)."""
    name, _, rest = vkey.strip().partition("+")
    key_id, _, b64 = rest.partition("+")
    raw = _b64(b64)
    if not name or len(key_id) != 8 or raw[:1] != bytes([SIG_ED25519]) or len(raw) != 33:
        raise ValueError("not an Ed25519 signed-note vkey")
    kid = hashlib.sha256(name.encode() + b"\n" + raw).digest()[:4]
    if kid.hex() != key_id:
        raise ValueError("the vkey's key id does not match its key")
    return name, kid, Ed25519PublicKey.from_public_bytes(raw[1:])


def verify_note(note, vkeys):
    """Returns the note text when a signature by a trusted key verifies and none by a trusted key
    fails (unknown keys are ignored); raises ValueError otherwise."""
    cut = note.rfind("\n\n")
    if cut < 0 or not note.endswith("\n"):
        raise ValueError("malformed signed note")
    text = note[:cut + 1]
    ok = False
    for line in note[cut + 2:-1].split("\n"):
        if not line.startswith("\u2014 "):
            raise ValueError("malformed signature line")
        name, _, b64 = line[2:].rpartition(" ")
        raw = _b64(b64)
        for kname, kid, key in vkeys:
            if kname == name and raw[:4] == kid:
                try:
                    key.verify(raw[4:], text.encode("utf-8"))
                except InvalidSignature:
                    raise ValueError("the signature by %s does not verify" % name)
                ok = True
    if not ok:
        raise ValueError("no signature by a trusted key")
    return text


def parse_checkpoint(text):
    lines = text[:-1].split("\n")
    if len(lines) < 3 or not lines[1].isdigit() or (lines[1] != "0" and lines[1].startswith("0")):
        raise ValueError("malformed checkpoint")
    root = _b64(lines[2])
    if len(root) != 32:
        raise ValueError("malformed checkpoint root")
    return lines[0], int(lines[1]), root


def log_vkeys_of(jwks):
    """The log's note keys (current and retired) in a JWKS: the ``vkey`` members."""
    out = []
    for k in jwks.get("keys", []):
        if isinstance(k.get("vkey"), str) and k.get("purpose", "log") == "log":
            try:
                out.append(parse_vkey(k["vkey"]))
            except ValueError:
                pass
    return out


def _fetch_json(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read().decode("utf-8"))


# --- the receipt --------------------------------------------------------------------------------

def verify_receipt(receipt, vkeys=None, jwks=None):
    """Checks a receipt offline against the log's keys: ``vkeys`` (vkey strings), else the log
    keys of ``jwks``, else the JWKS the receipt names (``receipt.jwks_uri``, fetched). Returns a
    dict with ``valid`` and each check; ``reason`` says what failed."""
    out = {"valid": False, "digest": False, "inclusion": False, "checkpoint": False, "index": None, "treeSize": None}
    reasons = []
    try:
        r = receipt.get("receipt") or {}
        log = r.get("log")
        if not isinstance(log, dict):
            raise ValueError("the receipt has no log entry (receipt.log)")
        if vkeys:
            keys = [parse_vkey(v) for v in vkeys]
        else:
            keys = log_vkeys_of(jwks if jwks is not None else _fetch_json(r["jwks_uri"]))
        out["index"], out["treeSize"] = log.get("index"), log.get("treeSize")
        digest = receipt_digest(receipt)
        out["digest"] = digest.hex() == r.get("digest")
        if not out["digest"]:
            reasons.append("the receipt's canonical body does not hash to receipt.digest")
        try:
            origin, size, root = parse_checkpoint(verify_note(log["checkpoint"], keys))
            out["checkpoint"] = size == log["treeSize"]
            if not out["checkpoint"]:
                reasons.append("the checkpoint's size is not receipt.log.treeSize")
            proof = [_b64(h) for h in log["inclusionProof"]]
            out["inclusion"] = isinstance(log["index"], int) and verify_inclusion(leaf_hash(digest), log["index"], size, proof, root)
            if not out["inclusion"]:
                reasons.append("the inclusion proof does not lead from the receipt's leaf to the checkpoint root")
        except (ValueError, KeyError, TypeError) as e:
            reasons.append("checkpoint: %s" % e)
    except (ValueError, KeyError, TypeError, OSError) as e:
        reasons.append(str(e))
    out["valid"] = out["digest"] and out["checkpoint"] and out["inclusion"]
    if reasons:
        out["reason"] = "; ".join(reasons)
    return out


def _pae(payload_type, payload):
    """DSSE v1 pre-authentication encoding."""
    t = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


def _ec_key(jwk):
    def num(s):
        return int.from_bytes(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4)), "big")
    if jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
        raise ValueError("the attestation key is not an ECDSA P-256 key")
    return ec.EllipticCurvePublicNumbers(num(jwk["x"]), num(jwk["y"]), ec.SECP256R1()).public_key()


def verify_attestation(bundle, jwks, receipt=None):
    """Checks a Sigstore bundle v0.3 (DSSE, in-toto Statement v1) offline with the JWKS key its
    ``verificationMaterial.publicKey.hint`` names (keyed verification, no transparency log or
    timestamp authority). With ``receipt``, the subject digest must be the receipt's digest.
    Returns the Statement; raises ValueError when a check fails."""
    if bundle.get("mediaType") != "application/vnd.dev.sigstore.bundle.v0.3+json":
        raise ValueError("not a Sigstore bundle v0.3")
    env = bundle["dsseEnvelope"]
    hint = bundle["verificationMaterial"]["publicKey"]["hint"]
    jwk = next((k for k in jwks.get("keys", []) if k.get("kid") == hint), None)
    if jwk is None:
        raise ValueError("no key %s in the JWKS" % hint)
    payload = base64.b64decode(env["payload"], validate=True)
    if env.get("payloadType") != DSSE_PAYLOAD_TYPE:
        raise ValueError("the DSSE payload is not an in-toto statement")
    key = _ec_key(jwk)
    pae = _pae(env["payloadType"], payload)
    if not env.get("signatures"):
        raise ValueError("the envelope carries no signature")
    for s in env["signatures"]:
        try:
            key.verify(base64.b64decode(s["sig"], validate=True), pae, ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise ValueError("the DSSE signature does not verify")
    st = json.loads(payload)
    if st.get("_type") != "https://in-toto.io/Statement/v1" or st.get("predicateType") != PREDICATE_TYPE:
        raise ValueError("not an in-toto Statement v1 of %s" % PREDICATE_TYPE)
    if receipt is not None:
        want = receipt_digest(receipt).hex()
        if not any(sub.get("digest", {}).get("sha256") == want for sub in st.get("subject", [])):
            raise ValueError("the statement's subject is not this receipt's digest")
    return st


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    opts, pos = {}, []
    while args:
        a = args.pop(0)
        if a in ("--vkey", "--jwks", "--bundle"):
            if not args:
                print("%s needs a value" % a, file=sys.stderr)
                return 2
            opts[a[2:]] = args.pop(0)
        elif a.startswith("--"):
            print("unknown option %s" % a, file=sys.stderr)
            return 2
        else:
            pos.append(a)
    if len(pos) != 1:
        print("usage: python3 -m svc_client.verify receipt.json [--vkey VKEY | --jwks jwks.json] [--bundle bundle.json]", file=sys.stderr)
        return 2
    try:
        with open(pos[0], encoding="utf-8") as f:
            receipt = json.load(f)
        jwks = None
        if "jwks" in opts:
            with open(opts["jwks"], encoding="utf-8") as f:
                jwks = json.load(f)
    except (OSError, ValueError) as e:
        print("cannot read input: %s" % e, file=sys.stderr)
        return 2
    vkeys = [opts["vkey"]] if "vkey" in opts else None
    out = verify_receipt(receipt, vkeys=vkeys, jwks=jwks)
    if "bundle" in opts:
        try:
            with open(opts["bundle"], encoding="utf-8") as f:
                bundle = json.load(f)
            verify_attestation(bundle, jwks if jwks is not None else _fetch_json(receipt["receipt"]["jwks_uri"]), receipt)
            out["attestation"] = True
        except (OSError, ValueError, KeyError, TypeError) as e:
            out["attestation"] = False
            out["valid"] = False
            out["reason"] = "; ".join(filter(None, [out.get("reason"), "attestation: %s" % e]))
    print(json.dumps(out))
    return 0 if out["valid"] else 1


if __name__ == "__main__":
    sys.exit(main())
