"""svc_client against a live node (started by conftest.py: ``node src/main.ts`` of the repository
this client lives in) driven through the client only."""
import json

import pytest

from svc_client import Client, Precision, Receipt, SealedResult, SvcError, Verification

try:
    import numpy
except ImportError:  # pragma: no cover
    numpy = None


def _offline_verifier():
    """svc_client.verify imports (it needs python3-cryptography)."""
    try:
        import svc_client.verify  # noqa: F401
        return True
    except ImportError:
        return False


@pytest.fixture(scope="session")
def heat(svc):
    return svc.solve("heat", steps=200, sample=20)


def test_new_machine_gives_a_key_and_a_recovery_equation(machine):
    client, m = machine
    assert client.api_key == m["apiKey"] and m["apiKey"].startswith("svc_ak_")
    assert m["zid"].startswith("Z")
    assert "x =" in m["recovery"]["equation"] and m["recovery"]["salt"]


def test_solve_returns_a_typed_sealed_result(heat):
    assert isinstance(heat, SealedResult)
    assert heat.solver == "heat" and heat.unit == "T"
    assert isinstance(heat.value, float) and 0 < heat.value < 1
    assert isinstance(heat.precision, Precision)
    assert heat.precision.within_bound and heat.precision.error_pct <= heat.precision.bound_pct
    assert "exp(" in heat.precision.reference
    assert heat.result["amplitude"] == heat.value
    assert heat.input["steps"] == 200
    assert isinstance(heat.receipt, Receipt) and heat.receipt.id.startswith("rcpt_")
    assert heat.receipt.version == 2 and heat.receipt.chain_seq >= 1
    assert heat.raw["svcProof"] and heat.raw["value"] == heat.value
    text = str(heat)
    assert heat.receipt.id in text and " T " in text


def test_series_are_numpy_arrays_when_numpy_is_installed(heat):
    assert set(heat.series) >= {"t", "amplitude", "reference"}
    if numpy is None:
        assert isinstance(heat.series["t"], list)
        pytest.skip("NumPy is not installed: series are lists")
    t, a, ref = heat.series["t"], heat.series["amplitude"], heat.series["reference"]
    assert isinstance(a, numpy.ndarray) and a.dtype == float and len(t) == len(a) == 20
    # the series follows its own analytic reference closely
    assert numpy.max(numpy.abs(a - ref) / ref) < 1e-2


def test_inputs_dict_and_keywords_merge(svc):
    r = svc.solve("svc_quant", {"paths": 4000, "type": "put"}, seed=7)
    assert r.solver == "quant" and r.unit == "$"
    assert r.input["paths"] == 4000 and r.input["type"] == "put" and r.seed == 7
    assert r.precision.reference_value is not None


def test_the_readme_example(svc):
    r = svc.solve("quant", S0=100, K=105, T=0.5)
    assert r.unit == "$" and r.precision.within_bound and "Black-Scholes" in r.precision.reference
    assert svc.verify(r).valid


def test_verify_accepts_the_result_and_refuses_an_edited_copy(svc, heat, tmp_path):
    v = svc.verify(heat)
    assert isinstance(v, Verification) and v.valid and v.proof_valid and v.version == 2, v.reason
    assert bool(v)
    if _offline_verifier() and heat.raw["receipt"].get("log"):
        # the transparency-log checks ran too, without trusting the node
        assert v.offline and v.offline["valid"], v.offline
        assert "offline checks valid" in v.reason
    # from the raw dict, from JSON text and from a file
    assert svc.verify(heat.raw).valid
    assert svc.verify(json.dumps(heat.raw)).valid
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(heat.raw))
    assert svc.verify(str(path)).valid
    assert svc.verify(path).valid
    edited = dict(heat.raw, value=heat.value * 1.001)
    bad = svc.verify(edited)
    assert not bad.valid and not bad.proof_valid and "does not match" in bad.reason
    if bad.offline is not None:
        assert not bad.offline["valid"]
    assert not svc.verify({"ok": True}).valid


def test_call_reaches_any_tool_through_its_rest_route(svc):
    pulse = svc.call("svc_pulse")
    assert pulse["ok"] and isinstance(pulse["svcond"], int)
    assert svc.call("pulse")["f"] == pulse["f"]
    ops = svc.call("svc_list_operators", domain="Thermodynamics")
    assert ops["count"] == len(ops["operators"]) > 0
    hits = svc.call("svc_find_operator", {"term": "kinetic energy", "limit": 3})
    assert hits["operators"][0]["id"]
    templates = svc.call("svc_contract_templates")
    deployed = svc.call("svc_contract_deploy", templateId=templates["templates"][0]["id"])
    got = svc.call("svc_contract_get", id=deployed["id"])  # a path parameter
    assert got["id"] == deployed["id"] and got["state"] == deployed["state"]
    routes = svc.tools()
    assert routes["svc_heat"] == ("POST", "/api/svc/heat")
    sealed = svc.call("svc_heat", steps=50)  # a solver through call: the raw answer
    assert sealed["solver"] == "heat" and sealed["receipt"]["id"].startswith("rcpt_")


def test_errors_name_the_code_and_the_field(svc, node_url):
    with pytest.raises(SvcError) as e:
        svc.solve("heat", nx=4096)
    assert e.value.status == 400 and e.value.code == "INVALID_INPUT"
    assert any(i["path"] == "nx" for i in e.value.issues)
    assert "nx" in str(e.value)
    with pytest.raises(SvcError) as e:
        svc.call("svc_no_such_tool")
    assert e.value.code == "NOT_FOUND"
    with pytest.raises(SvcError) as e:
        Client(node_url, api_key="svc_ak_not_a_key").solve("heat")
    assert e.value.status == 401
    with pytest.raises(SvcError) as e:
        Client("http://127.0.0.1:9", api_key="x", timeout=5).solve("heat")
    assert e.value.code == "UNREACHABLE" and e.value.status == 0 and "127.0.0.1:9" in str(e.value)


def test_url_and_key_default_to_the_environment(monkeypatch, node_url, svc):
    monkeypatch.setenv("SVC_URL", node_url + "/")
    monkeypatch.setenv("SVC_API_KEY", svc.api_key)
    c = Client()
    assert c.url == node_url and c.api_key == svc.api_key
    assert c.solve("epi", days=30, sample=5).solver == "epi"
    monkeypatch.delenv("SVC_URL")
    monkeypatch.delenv("SVC_API_KEY")
    d = Client()
    assert d.url == "http://127.0.0.1:8787" and d.api_key is None
