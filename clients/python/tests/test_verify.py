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
