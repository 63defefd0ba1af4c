"""Offline verification of svc sealed receipts, outside JavaScript (docs/verify.md).

Standard library, plus the cryptography package (Debian's python3-cryptography) when installed:
without it, Ed25519 is checked in pure Python (_ed25519.py, RFC 8032) and attestations (ECDSA
P-256) cannot be checked. It checks, from the specifications alone:

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

    python3 -m svc_client.verify receipt.json [--vkey VKEY | --jwks jwks.json] [--url URL] [--key KEY]
                                 [--allow-unsigned] [--bundle bundle.json]

Exit status 0 when every check holds, 1 when one fails (named), 2 when one could not run (the URL
it could not reach is named) or on a usage error: docs/verify.md, "One table of facts".
"""

import base64
import hashlib
import json
import math
import os
import re
import struct
import sys
import urllib.error
import urllib.parse
import urllib.request

try:  # the cryptography package (Debian's python3-cryptography) when installed ...
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    HAVE_CRYPTOGRAPHY = True
except ImportError:  # ... else Ed25519 in pure Python (receipts verify anywhere; attestations need ECDSA)
    from ._ed25519 import InvalidSignature, verify as _ed25519_verify
    HAVE_CRYPTOGRAPHY = False

    class Ed25519PublicKey(object):
        def __init__(self, raw):
            self._raw = bytes(raw)

        @classmethod
        def from_public_bytes(cls, raw):
            if len(raw) != 32:
                raise ValueError("an Ed25519 public key is 32 bytes")
            return cls(raw)

        def verify(self, signature, data):
            _ed25519_verify(self._raw, signature, data)

from .. import ijson

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
    _split_note(note)  # well formed, as the node and the console read it
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
        if isinstance(k, dict) and isinstance(k.get("vkey"), str) and k.get("purpose", "log") == "log":
            try:
                out.append(parse_vkey(k["vkey"]))
            except ValueError:
                pass
    return out


def verify_consistency(m, n, proof, old_root, new_root):
    """RFC 9162 section 2.1.4.2, for trees of sizes m <= n."""
    if not (0 <= m <= n) or len(old_root) != 32 or len(new_root) != 32 or any(len(p) != 32 for p in proof):
        return False
    if m == n:
        return not proof and old_root == new_root
    if m == 0:
        return not proof
    if not proof:
        return False
    path = [old_root] + list(proof) if m & (m - 1) == 0 else list(proof)
    fn, sn = m - 1, n - 1
    while fn % 2 == 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            fr = _node(c, fr)
            sr = _node(c, sr)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = _node(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


_SIG_LINE = re.compile(r"^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$")


def _split_note(note):
    """The text of a signed note (before its last blank line), without checking a signature; the
    signature lines must be well formed (as the node's parseNote and the console's ask)."""
    if len(note) > 1 << 20 or re.search("[\x00-\x09\x0b-\x1f]", note):
        raise ValueError("malformed signed note")
    cut = note.rfind("\n\n")
    if cut < 0 or not note.endswith("\n"):
        raise ValueError("malformed signed note")
    lines = note[cut + 2:-1].split("\n")
    if not lines or len(lines) > 100:
        raise ValueError("malformed signed note")
    for line in lines:
        m = _SIG_LINE.match(line)
        if not m or "+" in m.group(1):
            raise ValueError("malformed signature line")
        try:
            if len(_b64(m.group(2))) < 5:
                raise ValueError("malformed signature line")
        except ValueError:
            raise ValueError("malformed signature line")
    return note[:cut + 1]


def _b64url(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def verify_response_signature(receipt, jwk):
    """The v3 response signature: Ed25519 over the RFC 8785 JSON of the response without
    ``signature``, by the JWKS key ``jwk`` (an OKP Ed25519 key)."""
    body = {k: v for k, v in receipt.items() if k != "signature"}
    key = Ed25519PublicKey.from_public_bytes(_b64url(jwk["x"]))
    try:
        key.verify(_b64url(receipt["signature"]["sig"]), canonical_json(body).encode("utf-8"))
        return True
    except (InvalidSignature, ValueError):
        return False


# --- one verification (docs/verify.md, "One table of facts"; the same as svc verify's) -----------

CHECKS = ("strict", "digest", "inclusion", "checkpoint", "key", "signature", "consistency", "hmac")
SIGNATURE_MEMBERS = ("v", "alg", "kid", "sig")
LOG_MEMBERS = ("index", "treeSize", "inclusionProof", "checkpoint")
INTEGER_PATHS = ("receipt.log.index", "receipt.log.treeSize", "receipt.version", "receipt.chain.seq", "svcState.svcond", "signature.v")
_UNSIGNED = "allowed by --allow-unsigned: the response signature was not checked (tokens are covered by nothing else)"


class Unreachable(Exception):
    def __init__(self, url, why):
        Exception.__init__(self, "%s could not be reached (%s)" % (url, why))
        self.url = url


def _get(x, path):
    for k in path.split("."):
        if not isinstance(x, dict) or k not in x:
            return None
        x = x[k]
    return x


def read_receipt_strict(text, allow_unsigned=False):
    """The strict reading of a saved sealed response (text, or an already parsed dict): returns
    the receipt; raises ValueError naming why it is refused."""
    if isinstance(text, (str, bytes, bytearray)):
        try:
            x = ijson.loads(text.strip() if isinstance(text, str) else bytes(text).strip())
        except ijson.IJsonError as e:
            raise ValueError("%s: %s" % ("not I-JSON" if "RFC 7493" in str(e) else "not JSON", e))
    else:
        x = text
    if not isinstance(x, dict):
        raise ValueError("not a sealed response: expected a JSON object")
    absent = [n for n, ok in (("svcProof", isinstance(x.get("svcProof"), str)), ("svcState", isinstance(x.get("svcState"), dict)),
                                  ("receipt", isinstance(x.get("receipt"), dict))) if not ok]
    if absent:
        raise ValueError("not a sealed response: missing %s" % ", ".join(absent))
    if "signature" not in x:
        if not allow_unsigned:
            raise ValueError("the response carries no signature (a sealed response is signed; a missing signature was removed): pass --allow-unsigned to check the rest")
    else:
        s = x["signature"]
        if not isinstance(s, dict):
            raise ValueError("signature is not an object")
        extra = [k for k in s if k not in SIGNATURE_MEMBERS]
        if extra:
            raise ValueError("unknown member %s in signature (it has %s)" % (json.dumps(extra[0]), ", ".join(SIGNATURE_MEMBERS)))
        missing = [k for k in SIGNATURE_MEMBERS if k not in s]
        if missing:
            raise ValueError("signature has no %s" % missing[0])
        if s["v"] != 3 or type(s["v"]) is not int or s["alg"] != "EdDSA" or not isinstance(s["kid"], str) or not isinstance(s["sig"], str):
            raise ValueError("signature is not a v3 EdDSA signature")
    log = x["receipt"].get("log")
    if not isinstance(log, dict):
        raise ValueError("the receipt has no log entry (receipt.log)")
    extra = [k for k in log if k not in LOG_MEMBERS]
    if extra:
        raise ValueError("unknown member %s in receipt.log (it has %s)" % (json.dumps(extra[0]), ", ".join(LOG_MEMBERS)))
    missing = [k for k in LOG_MEMBERS if k not in log]
    if missing:
        raise ValueError("receipt.log has no %s" % missing[0])
    for p in INTEGER_PATHS:
        v = _get(x, p)
        if v is None:
            continue
        if type(v) is not int or v < 0 or v > 2 ** 53 - 1:
            raise ValueError("%s is not written as a non-negative integer" % p)
    if not isinstance(log["inclusionProof"], list) or any(not isinstance(h, str) for h in log["inclusionProof"]):
        raise ValueError("receipt.log.inclusionProof is not an array of strings")
    if not isinstance(log["checkpoint"], str):
        raise ValueError("receipt.log.checkpoint is not a string")
    if not isinstance(x["receipt"].get("digest"), str):
        raise ValueError("receipt.digest is not a string")
    return x


def _get_json(url, data=None, headers=None):
    req = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read()
    except urllib.error.HTTPError as e:
        raise
    except (urllib.error.URLError, OSError) as e:
        raise Unreachable(url, getattr(e, "reason", e))
    try:
        return ijson.loads(body)
    except ValueError:
        raise Unreachable(url, "not JSON")


def _join(base, path):
    return urllib.parse.urljoin(base, path)


def verify_saved(text, jwks=None, vkeys=None, url=None, key=None, hmac_url=None, allow_unsigned=False):
    """Verifies a saved sealed response (its text, or a parsed dict) with the checks of
    docs/verify.md, in the order ``svc verify`` runs them. ``jwks``: a saved key set; ``vkeys``:
    the log's vkey strings (log checks only); ``url``: the node (its key set when none is given,
    and the consistency of its log); ``key``: a machine key (the node checks the HMAC proof).
    Returns a dict: ``valid``, ``exit`` (0 valid, 1 a check failed, 2 one could not run),
    ``checks`` (each True, False or None), ``failed``, ``couldNotRun``, ``unreachable``, ``reason``."""
    checks = dict((c, None) for c in CHECKS)
    reasons, could_not = [], []
    rep = {"receipt": None, "unreachable": None, "index": None, "treeSize": None, "origin": None, "keySource": None, "currentSize": None}

    def done():
        failed = [c for c in CHECKS if checks[c] is False]
        code = 1 if failed else 2 if could_not else 0
        out = {"valid": code == 0, "exit": code, "receipt": rep["receipt"], "checks": checks, "failed": failed,
               "couldNotRun": could_not, "unreachable": rep["unreachable"]}
        # the log checks by name, as before
        out.update({"digest": bool(checks["digest"]), "inclusion": bool(checks["inclusion"]), "checkpoint": bool(checks["checkpoint"]),
                    "index": rep["index"], "treeSize": rep["treeSize"], "origin": rep["origin"], "keySource": rep["keySource"]})
        if rep.get("unsigned"):
            out["unsigned"] = rep["unsigned"]
        if rep["currentSize"] is not None:
            out["currentSize"] = rep["currentSize"]
        if reasons:
            out["reason"] = "; ".join(reasons)
        return out

    def unreach(names, e):
        could_not.extend(names)
        if rep["unreachable"] is None:
            rep["unreachable"] = e.url
        reasons.append("%s: could not run: %s" % (", ".join(names), e))

    try:
        r = read_receipt_strict(text, allow_unsigned)
    except ValueError as e:
        checks["strict"] = False
        reasons.append("strict: %s" % e)
        return done()
    checks["strict"] = True
    log = r["receipt"]["log"]
    rep["receipt"] = r["receipt"].get("id") if isinstance(r["receipt"].get("id"), str) else None
    rep["index"], rep["treeSize"] = log["index"], log["treeSize"]
    signed = "signature" in r
    if not signed:
        rep["unsigned"] = _UNSIGNED

    # digest and inclusion: no key needed
    digest = receipt_digest(r)
    checks["digest"] = digest.hex() == r["receipt"]["digest"]
    if not checks["digest"]:
        reasons.append("digest: the receipt's canonical body does not hash to receipt.digest")
    stated = None
    try:
        stated = parse_checkpoint(_split_note(log["checkpoint"]))
        rep["origin"] = stated[0]
    except ValueError:
        pass
    try:
        proof = [base64.b64decode(h) for h in log["inclusionProof"]]
    except ValueError:
        proof = None
    checks["inclusion"] = bool(stated and proof is not None and stated[1] == log["treeSize"]
                               and verify_inclusion(leaf_hash(digest), log["index"], log["treeSize"], proof, stated[2]))
    if stated is None:
        reasons.append("inclusion: the checkpoint is malformed")
    elif stated[1] != log["treeSize"]:
        reasons.append("inclusion: the checkpoint's size %d is not receipt.log.treeSize %d" % (stated[1], log["treeSize"]))
    elif not checks["inclusion"]:
        reasons.append("inclusion: the inclusion proof does not lead from the receipt's leaf to the checkpoint root")

    # the keys: given, or the node's, or the issuer's
    keys = []
    if vkeys:
        keys = [parse_vkey(v) for v in vkeys]
        rep["keySource"] = "vkey"
    elif jwks is not None:
        rep["keySource"] = "jwks"
    else:
        src = _join(url, "/.well-known/jwks.json") if url else r["receipt"].get("jwks_uri") if isinstance(r["receipt"].get("jwks_uri"), str) else None
        rep["keySource"] = src
        if not src:
            could_not.extend(["checkpoint", "key", "signature"])
            reasons.append("no key given and the receipt names no jwks_uri: give --jwks, --vkey or --url")
        else:
            try:
                jwks = _get_json(src)
            except urllib.error.HTTPError as e:
                unreach(["checkpoint", "key", "signature"] if signed else ["checkpoint"], Unreachable(src, "HTTP %d" % e.code))
            except Unreachable as e:
                unreach(["checkpoint", "key", "signature"] if signed else ["checkpoint"], e)
    if jwks is not None and not vkeys:
        keys = log_vkeys_of(jwks)

    cp = None
    if keys or jwks is not None:
        try:
            cp = parse_checkpoint(verify_note(log["checkpoint"], keys))
            checks["checkpoint"] = True
        except ValueError as e:
            checks["checkpoint"] = False
            reasons.append("checkpoint: %s" % e)
    if jwks is not None and signed:
        kid = r["signature"]["kid"]
        jwk = next((k for k in jwks.get("keys", []) if isinstance(k, dict) and k.get("kid") == kid and k.get("kty") == "OKP" and k.get("crv") == "Ed25519"), None)
        checks["key"] = jwk is not None
        if jwk is None:
            reasons.append("key: the response is signed with key %s, which is not an Ed25519 key of the key set" % kid)
        else:
            try:
                checks["signature"] = verify_response_signature(r, jwk)
            except (ValueError, KeyError, TypeError):
                checks["signature"] = False
            if not checks["signature"]:
                reasons.append("signature: signature does not match the receipt")

    if url and cp is not None:
        try:
            cur_note = _get_text(_join(url, "/log/checkpoint"))
            try:
                cur = parse_checkpoint(verify_note(cur_note, keys))
            except ValueError as e:
                checks["consistency"] = False
                reasons.append("consistency: the node's checkpoint: %s" % e)
                cur = None
            if cur is not None:
                rep["currentSize"] = cur[1]
                if cur[0] != cp[0]:
                    checks["consistency"] = False
                    reasons.append("consistency: the node's log is %s, the receipt's %s" % (cur[0], cp[0]))
                elif cur[1] < cp[1]:
                    checks["consistency"] = False
                    reasons.append("consistency: split view: the node's tree (%d) is smaller than the receipt's (%d)" % (cur[1], cp[1]))
                elif cur[1] == cp[1]:
                    checks["consistency"] = cur[2] == cp[2]
                    if not checks["consistency"]:
                        reasons.append("consistency: split view: two checkpoints of one size with different roots")
                else:
                    body = _get_json(_join(url, "/log/consistency?old=%d&new=%d" % (cp[1], cur[1])))
                    proof = [base64.b64decode(h) for h in body.get("proof", [])]
                    checks["consistency"] = verify_consistency(cp[1], cur[1], proof, cp[2], cur[2])
                    if not checks["consistency"]:
                        reasons.append("consistency: split view: the node's checkpoint (%d) is not consistent with the receipt's (%d)" % (cur[1], cp[1]))
        except urllib.error.HTTPError as e:
            unreach(["consistency"], Unreachable(e.url, "HTTP %d" % e.code))
        except Unreachable as e:
            unreach(["consistency"], e)
    elif url and "checkpoint" in could_not:
        could_not.append("consistency")

    if key:
        at = _join(url or hmac_url or "http://127.0.0.1:8787", "/api/svc/verify")
        version = r["receipt"].get("version") or (2 if isinstance(r.get("value"), (int, float)) else 1)
        st = r["svcState"]
        args = {"proof": r["svcProof"], "operatorIds": st.get("operators"), "R_t": st.get("masterSum"),
                "svcond": st.get("svcond", st.get("zeqond")), "keyPrefix": r.get("keyPrefix")}
        if version >= 2:
            args["value"] = r.get("value")
            args["unit"] = r.get("unit") or ""
        try:
            body = _get_json(at, json.dumps(args).encode("utf-8"), {"content-type": "application/json", "authorization": "Bearer " + key})
            checks["hmac"] = body.get("valid") is True
            if not checks["hmac"]:
                reasons.append("hmac: the seal proof does not match the signed fields (svcProof)")
        except urllib.error.HTTPError as e:
            if e.code in (400, 422):
                checks["hmac"] = False
                reasons.append("hmac: the node refused the proof's fields (HTTP %d)" % e.code)
            else:
                could_not.append("hmac")
                reasons.append("hmac: could not run: %s answered HTTP %d" % (at, e.code))
        except Unreachable as e:
            unreach(["hmac"], e)
    return done()


def _get_text(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.read().decode("utf-8")
    except urllib.error.HTTPError:
        raise
    except (urllib.error.URLError, OSError) as e:
        raise Unreachable(url, getattr(e, "reason", e))


def _fetch_json(url):
    return _get_json(url)


# --- the receipt --------------------------------------------------------------------------------

def verify_receipt(receipt, vkeys=None, jwks=None, url=None, key=None, allow_unsigned=False):
    """Checks a receipt (a dict, or its saved text) against the log's keys: ``vkeys`` (vkey
    strings), else ``jwks``, else the node's (``url``) or the JWKS the receipt names
    (``receipt.jwks_uri``, fetched); with a JWKS, the response signature too. Returns the dict of
    ``verify_saved``: ``valid``, ``exit``, each check, ``reason`` says what failed."""
    return verify_saved(receipt, jwks=jwks, vkeys=vkeys, url=url, key=key, allow_unsigned=allow_unsigned)


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


class NeedsCryptography(ValueError):
    pass


def verify_attestation(bundle, jwks, receipt=None):
    """Checks a Sigstore bundle v0.3 (DSSE, in-toto Statement v1) offline with the JWKS key its
    ``verificationMaterial.publicKey.hint`` names (keyed verification, no transparency log or
    timestamp authority). With ``receipt``, the subject digest must be the receipt's digest.
    Returns the Statement; raises ValueError when a check fails."""
    if not HAVE_CRYPTOGRAPHY:
        raise NeedsCryptography("checking an attestation (ECDSA P-256) needs the cryptography package (Debian's python3-cryptography)")
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


USAGE = ("usage: python3 -m svc_client.verify receipt.json [--vkey VKEY | --jwks jwks.json] [--url URL] [--key KEY]"
         " [--allow-unsigned] [--bundle bundle.json]")


def main(argv=None):
    """The command line; returns the exit status: 0 valid, 1 a check failed, 2 a check could not
    run (the URL it could not reach is named) or a usage error."""
    args = list(sys.argv[1:] if argv is None else argv)
    opts, pos = {}, []
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(USAGE)
            return 0
        if a == "--allow-unsigned":
            opts["allow-unsigned"] = True
        elif a in ("--vkey", "--jwks", "--bundle", "--url", "--key"):
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
        print(USAGE, file=sys.stderr)
        return 2
    try:
        with open(pos[0], "rb") as f:
            text = f.read()
        jwks = None
        if "jwks" in opts:
            with open(opts["jwks"], "rb") as f:
                jwks = ijson.loads(f.read())
        vkeys = None
        if "vkey" in opts:
            v = opts["vkey"]
            if "+" not in v.split("\n")[0] or len(v.split("+")) < 3:
                with open(v, encoding="utf-8") as f:
                    v = f.read()
            vkeys = [line.strip() for line in v.splitlines() if line.strip()]
            for k in vkeys:
                parse_vkey(k)
    except (OSError, ValueError) as e:
        print("cannot read input: %s" % e, file=sys.stderr)
        return 2
    key = opts.get("key") or os.environ.get("SVC_API_KEY") or None
    # the node: --url, else (with a key, whose proof the node checks) $SVC_URL or the default
    if not opts.get("url") and key:
        opts["url"] = os.environ.get("SVC_URL") or "http://127.0.0.1:8787"
    out = verify_saved(text, jwks=jwks, vkeys=vkeys, url=opts.get("url"), key=key, allow_unsigned="allow-unsigned" in opts)
    if "bundle" in opts and out["checks"]["strict"]:
        try:
            with open(opts["bundle"], "rb") as f:
                bundle = ijson.loads(f.read())
            receipt = read_receipt_strict(text, True)
            keyset = jwks if jwks is not None else _get_json(_join(opts["url"], "/.well-known/jwks.json") if opts.get("url") else receipt["receipt"]["jwks_uri"])
            verify_attestation(bundle, keyset, receipt)
            out["attestation"] = True
        except NeedsCryptography as e:
            out["attestation"] = None
            out["couldNotRun"].append("attestation")
            if out["exit"] == 0:
                out["exit"], out["valid"] = 2, False
            out["reason"] = "; ".join(filter(None, [out.get("reason"), "attestation: could not run: %s" % e]))
        except Unreachable as e:
            out["attestation"] = None
            out["couldNotRun"].append("attestation")
            out["unreachable"] = out["unreachable"] or e.url
            if out["exit"] == 0:
                out["exit"], out["valid"] = 2, False
            out["reason"] = "; ".join(filter(None, [out.get("reason"), "attestation: could not run: %s" % e]))
        except (OSError, ValueError, KeyError, TypeError) as e:
            out["attestation"] = False
            out["failed"].append("attestation")
            out["exit"], out["valid"] = 1, False
            out["reason"] = "; ".join(filter(None, [out.get("reason"), "attestation: %s" % e]))
    print(json.dumps(out))
    if out["exit"] == 2 and out["unreachable"]:
        node = opts.get("url") if opts.get("url") and out["unreachable"].startswith(opts["url"].rstrip("/")) else None
        print("svc_client.verify: cannot reach %s: %s could not be checked" % ("the node at " + node if node else out["unreachable"], ", ".join(out["couldNotRun"])), file=sys.stderr)
    return out["exit"]
