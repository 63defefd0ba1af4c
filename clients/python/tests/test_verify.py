"""The Python verifier (svc_client.verify) on real receipts sealed by a node (fixtures/, made by
a node with SVC_BASE_URL=https://svc.example.org), against the specifications: RFC 8785 number
forms, RFC 6962 proofs, C2SP signed notes, DSSE. Edited receipts, proofs, checkpoints and
attestations are refused."""
import base64
import copy
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from svc_client import verify_attestation, verify_receipt  # noqa: E402
from svc_client.verify import canonical_json, leaf_hash, verify_inclusion, parse_vkey, verify_note  # noqa: E402


def load(name):
    with open(os.path.join(HERE, "fixtures", name), encoding="utf-8") as f:
        return json.load(f) if name.endswith(".json") else f.read()


RECEIPT, SMALL, BUNDLE, JWKS, VKEY = load("receipt.json"), load("receipt-small.json"), load("bundle.json"), load("jwks.json"), load("log.vkey").strip()


def test_numbers_as_ecmascript_writes_them():
    cases = {5e-05: "0.00005", 1e-7: "1e-7", 1.5e-7: "1.5e-7", 1e21: "1e+21", 1e20: "100000000000000000000", 123.456: "123.456",
             0.1 + 0.2: "0.30000000000000004", -0.0: "0", 5.0: "5", 2.5e-14: "2.5e-14", 1.2345678901234568e+20: "123456789012345680000",
             -1.5e300: "-1.5e+300", 0.000001: "0.000001", 123e-20: "1.23e-18"}
    for x, want in cases.items():
        assert canonical_json(x) == want, x
    assert canonical_json(2 ** 53 + 1) == "9007199254740992"
    assert canonical_json({"b": 1, "a": [True, None, "é\n\u2028"], "\u20ac": 0, "\U0001f600": 1}) == '{"a":[true,null,"é\\n\u2028"],"b":1,"\u20ac":0,"\U0001f600":1}'
    # keys by UTF-16 code units: U+1F600 (D83D DE00) sorts before U+FB33
    assert canonical_json({"\ufb33": 1, "\U0001f600": 2}) == '{"\U0001f600":2,"\ufb33":1}'


@pytest.mark.parametrize("receipt", [RECEIPT, SMALL])
def test_real_receipts_verify_with_the_vkey_and_with_the_jwks(receipt):
    for kwargs in ({"vkeys": [VKEY]}, {"jwks": JWKS}):
        out = verify_receipt(receipt, **kwargs)
        assert out["valid"], out
        assert out["index"] == receipt["receipt"]["log"]["index"]


def test_edits_are_refused():
    r = RECEIPT
    edits = []
    e = copy.deepcopy(r); e["value"] = e["value"] + 1; edits.append(e)
    e = copy.deepcopy(r); e["result"]["peakInfected"] = 1; edits.append(e)
    e = copy.deepcopy(r); e["receipt"]["folder"] = "x"; edits.append(e)
    e = copy.deepcopy(r); e["receipt"]["log"]["index"] += 1; edits.append(e)
    e = copy.deepcopy(r); e["receipt"]["digest"] = "0" * 64; edits.append(e)
    e = copy.deepcopy(r)
    h = bytearray(base64.b64decode(e["receipt"]["log"]["inclusionProof"][0])); h[0] ^= 1
    e["receipt"]["log"]["inclusionProof"][0] = base64.b64encode(bytes(h)).decode(); edits.append(e)
    e = copy.deepcopy(r); e["receipt"]["log"]["checkpoint"] = e["receipt"]["log"]["checkpoint"].replace("\n", "\n ", 1); edits.append(e)
    e = copy.deepcopy(r); del e["receipt"]["log"]; edits.append(e)
    for e in edits:
        assert not verify_receipt(e, vkeys=[VKEY])["valid"]
    # tokens are the caller's balance, outside the digest by definition
    e = copy.deepcopy(r); e["tokens"] = {"cost": 1, "remaining": 0}
    assert verify_receipt(e, vkeys=[VKEY])["valid"]


def test_another_log_key_is_not_trusted():
    other = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
    out = verify_receipt(RECEIPT, vkeys=[other])
    assert not out["valid"] and "no signature by a trusted key" in out["reason"]


def test_signed_note_vector_from_the_c2sp_spec():
    key = parse_vkey("example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k")
    note = "This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n"
    assert verify_note(note, [key]) == "This is an example message.\n"
    with pytest.raises(ValueError):
        verify_note(note.replace("example", "exemple", 1), [key])


def test_rfc6962_inclusion_vector():
    # transparency-dev/merkle testdata/inclusion/1/happy-path.json
    b = base64.b64decode
    proof = [b("lqKW0iTyhcZ77pPDD4owkVfw2qNdxbh+QQt4YwoJz8c="), b("Xwg/ChozygdqlSeYMlgNs+DvRYS9/x9UyKNg9Q3jAx4="), b("a0eq8p7jwq+a+Im8H7klTavTEXfxYjLdaqsDXKOb9uQ=")]
    root = b("XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=")
    leaf = b("bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=")
    assert leaf == leaf_hash(b"")
    assert verify_inclusion(leaf, 0, 8, proof, root)
    assert not verify_inclusion(leaf, 1, 8, proof, root)
    assert not verify_inclusion(leaf, 0, 8, proof[:2], root)


def test_attestation_verifies_and_edits_fail():
    st = verify_attestation(BUNDLE, JWKS, RECEIPT)
    assert st["subject"][0]["digest"]["sha256"] == RECEIPT["receipt"]["digest"]
    assert st["predicate"]["solver"] == "epi"
    edited = copy.deepcopy(BUNDLE)
    payload = json.loads(base64.b64decode(edited["dsseEnvelope"]["payload"]))
    payload["predicate"]["value"] = 0
    edited["dsseEnvelope"]["payload"] = base64.b64encode(json.dumps(payload).encode()).decode()
    with pytest.raises(ValueError):
        verify_attestation(edited, JWKS, RECEIPT)
    with pytest.raises(ValueError):
        verify_attestation(BUNDLE, JWKS, SMALL)  # another receipt's digest


def test_command_line_exit_codes(tmp_path):
    fx = os.path.join(HERE, "fixtures")
    run = lambda *a: subprocess.run([sys.executable, "-m", "svc_client.verify", *a], cwd=os.path.dirname(HERE), capture_output=True, text=True)
    ok = run(os.path.join(fx, "receipt.json"), "--jwks", os.path.join(fx, "jwks.json"), "--bundle", os.path.join(fx, "bundle.json"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout)["attestation"] is True
    bad = copy.deepcopy(RECEIPT); bad["value"] = 0
    p = tmp_path / "bad.json"; p.write_text(json.dumps(bad))
    assert run(str(p), "--vkey", VKEY).returncode == 1
    assert run().returncode == 2


# --- strict reading and exit codes (docs/verify.md, "One table of facts") -----------------------

def _run(tmp_path, text, *args):
    p = tmp_path / "r.json"
    p.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "svc_client.verify", str(p), *args], cwd=os.path.dirname(HERE),
                       capture_output=True, text=True, env={**os.environ, "SVC_API_KEY": "", "SVC_URL": ""})
    assert "Warning" not in r.stderr, r.stderr
    out = json.loads(r.stdout)
    assert out["exit"] == r.returncode
    return out


def test_strict_reading_refuses_what_is_not_i_json_or_not_a_whole_receipt(tmp_path):
    jw = os.path.join(HERE, "fixtures", "jwks.json")
    text = json.dumps(RECEIPT)
    idx = RECEIPT["receipt"]["log"]["index"]
    unsigned = {k: v for k, v in RECEIPT.items() if k != "signature"}
    extra_sig = copy.deepcopy(RECEIPT); extra_sig["signature"]["note"] = 1
    extra_log = copy.deepcopy(RECEIPT); extra_log["receipt"]["log"]["note"] = 1
    cases = {
        "duplicate": ('{"value": 999, ' + text[1:], "duplicate member name"),
        "nested duplicate": (text.replace('"log": {', '"log": {"index": 0, ', 1), "duplicate member name"),
        "surrogate": (text.replace('"unit": "%s"' % RECEIPT["unit"], '"unit": "\\ud800"', 1), "lone surrogate"),
        "1804.0": (text.replace('"index": %d,' % idx, '"index": %d.0,' % idx, 1), "receipt.log.index is not written as a non-negative integer"),
        "NaN": (text.replace('"value": %s' % json.dumps(RECEIPT["value"]), '"value": NaN', 1), "not JSON"),
        "unsigned": (json.dumps(unsigned), "no signature"),
        "extra in signature": (json.dumps(extra_sig), 'unknown member "note" in signature'),
        "extra in log": (json.dumps(extra_log), 'unknown member "note" in receipt.log'),
    }
    for name, (t, why) in cases.items():
        assert t != text, name
        out = _run(tmp_path, t, "--jwks", jw)
        assert (out["exit"], out["failed"]) == (1, ["strict"]), (name, out)
        assert why in out["reason"], (name, out["reason"])
    ok = _run(tmp_path, json.dumps(unsigned), "--jwks", jw, "--allow-unsigned")
    assert ok["exit"] == 0 and "allowed by --allow-unsigned" in ok["unsigned"], ok


def test_the_response_signature_covers_tokens_and_names_an_unknown_key(tmp_path):
    jw = os.path.join(HERE, "fixtures", "jwks.json")
    assert _run(tmp_path, json.dumps(RECEIPT), "--jwks", jw)["exit"] == 0
    t = copy.deepcopy(RECEIPT); t["tokens"]["remaining"] += 1000
    out = _run(tmp_path, json.dumps(t), "--jwks", jw)
    assert (out["exit"], out["failed"]) == (1, ["signature"]), out
    k = copy.deepcopy(RECEIPT); k["signature"]["kid"] = "Z" * 43
    out = _run(tmp_path, json.dumps(k), "--jwks", jw)
    assert (out["exit"], out["failed"]) == (1, ["key"]), out


def test_an_unreachable_node_is_exit_2_naming_it_and_a_failed_check_is_still_1(tmp_path):
    closed = "http://127.0.0.1:9"
    out = _run(tmp_path, json.dumps(RECEIPT), "--url", closed)
    assert (out["exit"], out["failed"]) == (2, []), out
    assert out["unreachable"].startswith(closed) and "checkpoint" in out["couldNotRun"], out
    v = copy.deepcopy(RECEIPT); v["value"] = 0
    out = _run(tmp_path, json.dumps(v), "--url", closed)
    assert (out["exit"], out["failed"]) == (1, ["digest", "inclusion"]), out


def test_pure_python_ed25519_agrees_with_the_rfc_8032_vectors_and_the_fixtures():
    from svc_client.verify import _ed25519, verify_response_signature  # noqa: F401
    # RFC 8032 section 7.1, TEST 1 and TEST 2
    for pk, sig, msg in (
        ("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b", ""),
        ("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00", "72"),
    ):
        _ed25519.verify(bytes.fromhex(pk), bytes.fromhex(sig), bytes.fromhex(msg))
        bad = bytearray(bytes.fromhex(sig)); bad[0] ^= 1
        with pytest.raises(_ed25519.InvalidSignature):
            _ed25519.verify(bytes.fromhex(pk), bytes(bad), bytes.fromhex(msg))
    # the fixture receipt's v3 signature, by the JWKS key
    jwk = next(k for k in JWKS["keys"] if k.get("kid") == RECEIPT["signature"]["kid"])
    x = base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))
    body = canonical_json({k: v for k, v in RECEIPT.items() if k != "signature"}).encode()
    sig = base64.urlsafe_b64decode(RECEIPT["signature"]["sig"] + "=" * (-len(RECEIPT["signature"]["sig"]) % 4))
    _ed25519.verify(x, sig, body)
    with pytest.raises(_ed25519.InvalidSignature):
        _ed25519.verify(x, sig, body + b" ")
