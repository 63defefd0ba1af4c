"""The HTTP client of an svc node: run a solver and read its sealed result, call any tool,
verify a receipt.

Standard library only (``urllib``); when NumPy is installed, a result's series are NumPy arrays.
The node is at ``url`` (default ``$SVC_URL``, else ``http://127.0.0.1:8787``) and the key is
``api_key`` (default ``$SVC_API_KEY``): a machine key ``svc_ak_…`` (``Client.new_machine`` makes
one on a node that hands out demo keys).

How calls travel: ``solve`` posts to the solver's REST route ``POST /api/svc/<name>``; ``call``
finds the tool's REST route in the node's catalog (``GET /api/catalog``: every MCP tool is also
an HTTP route, with the same arguments and the same answer) and calls it, path parameters in the
path, the other arguments in the query string (GET, DELETE) or the JSON body (POST). It does not
speak MCP (``POST /api/mcp``): the REST route gives the same answer without a session.
"""
from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple, Union

try:  # NumPy is optional: series are lists without it
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the environment
    _np = None

from .jobs import JobsMixin

DEFAULT_URL = "http://127.0.0.1:8787"

__all__ = ["Client", "SealedResult", "Precision", "Receipt", "Verification", "SvcError", "DEFAULT_URL"]


class SvcError(Exception):
    """An error answer of the node, or no answer at all.

    Attributes:
        status: the HTTP status (0 when the node could not be reached).
        code: the node's stable error code (``INVALID_INPUT``, ``UNAUTHORIZED``,
            ``PRECISION_REFUSED``, ``QUOTA_EXCEEDED``, …), or ``UNREACHABLE``.
        message: what went wrong, in words.
        issues: one ``{"path", "message"}`` per invalid field, when the node names them.
        body: the whole error body (a dict), or None.
    """

    def __init__(self, status: int, code: str, message: str, issues: Optional[list] = None, body: Optional[dict] = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.issues = issues or []
        self.body = body

    def __str__(self) -> str:
        where = "; ".join("%s: %s" % (i.get("path"), i.get("message")) for i in self.issues if isinstance(i, dict))
        return "%s (%s): %s%s" % (self.code, self.status, self.message, " [%s]" % where if where else "")


@dataclass(frozen=True)
class Precision:
    """How far a sealed value is from an independent reference.

    Attributes:
        error_pct: the distance to the reference, in percent.
        bound_pct: the ceiling the method promises, in percent.
        reference: what the reference is, in words.
        within_bound: ``error_pct <= bound_pct`` (and any second check the solver makes).
        reference_value: the reference value itself, when it is a number.
        certificate: the certificate checked for a user-supplied problem, if any.
    """

    error_pct: float
    bound_pct: float
    reference: str
    within_bound: bool
    reference_value: Optional[float] = None
    certificate: Optional[str] = None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Precision":
        """Reads the ``precision`` block of a sealed answer."""
        return cls(
            error_pct=float(d["errorPct"]),
            bound_pct=float(d["boundPct"]),
            reference=str(d["reference"]),
            within_bound=bool(d["withinBound"]),
            reference_value=None if d.get("referenceValue") is None else float(d["referenceValue"]),
            certificate=d.get("certificate"),
        )


@dataclass(frozen=True)
class Receipt:
    """Where a sealed answer is filed and anchored.

    Attributes:
        id: ``rcpt_…``; ``GET /api/receipts/<id>`` reads the answer back.
        version: seal version (2 signs value and unit, 1 does not).
        issued_at: ISO 8601 instant of the seal.
        folder: the folder it is filed in.
        chain_seq: its position in the machine's hash chain.
        chain_hash: the chain entry's hash.
    """

    id: str
    version: int
    issued_at: str
    folder: str
    chain_seq: int
    chain_hash: str

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Receipt":
        """Reads the ``receipt`` block of a sealed answer."""
        chain = d.get("chain") or {}
        return cls(id=d["id"], version=int(d["version"]), issued_at=d["issuedAt"], folder=d["folder"],
                   chain_seq=int(chain.get("seq", 0)), chain_hash=str(chain.get("hash", "")))


@dataclass(frozen=True)
class SealedResult:
    """A solver's sealed result.

    Attributes:
        solver, domain, method: what computed it, and how.
        value: the headline value, in ``unit``.
        unit: its unit.
        precision: its distance to an independent reference (``Precision``).
        result: every figure the solver computed (a dict; each solver has its own fields).
        series: arrays of equal length, abscissa first (NumPy arrays when NumPy is installed),
            or None when the result has none.
        receipt: where it is filed and anchored (``Receipt``).
        seed: the random seed used.
        input: the solver's input as used (defaults filled in).
        raw: the whole answer as the node sent it (a dict): keep it to verify it later.
    """

    solver: str
    domain: str
    method: str
    value: float
    unit: str
    precision: Precision
    result: Dict[str, Any]
    series: Optional[Dict[str, Any]]
    receipt: Receipt
    seed: Optional[int]
    input: Dict[str, Any]
    raw: Dict[str, Any]

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "SealedResult":
        """Reads a sealed answer (the JSON of ``POST /api/svc/<solver>``)."""
        series = d.get("series")
        if series is not None and _np is not None:
            series = {k: _np.asarray(v, dtype=float) for k, v in series.items()}
        return cls(
            solver=d["solver"], domain=d.get("domain", ""), method=d.get("method", ""),
            value=float(d["value"]), unit=d.get("unit") or "",
            precision=Precision.from_json(d["precision"]),
            result=dict(d.get("result") or {}),
            series=series,
            receipt=Receipt.from_json(d["receipt"]),
            seed=d.get("seed"),
            input=dict(d.get("input") or {}),
            raw=dict(d),
        )

    def __str__(self) -> str:
        p = self.precision
        return "%s: %.6g %s (error %.3g %% against a %g %% bound; reference: %s%s) receipt %s" % (
            self.solver, self.value, self.unit, p.error_pct, p.bound_pct, p.reference,
            "" if p.within_bound else "; OUTSIDE ITS BOUND", self.receipt.id)


@dataclass(frozen=True)
class Verification:
    """The verdict on a receipt.

    Attributes:
        valid: every check that ran passed.
        proof_valid: the node found the seal proof (HMAC over the operator chain, R(t), time step,
            key prefix and, for v2, value and unit) valid.
        version: the proof version checked (1 or 2).
        offline: the result of ``svc_client.verify.verify_receipt`` (the transparency-log checks,
            made without trusting the node) when that module is installed and the receipt carries
            a log entry; else None.
        reason: what was checked, or what failed, in words.
    """

    valid: bool
    proof_valid: bool
    version: int
    offline: Optional[Dict[str, Any]]
    reason: str

    def __bool__(self) -> bool:
        return self.valid


def http_error(e: urllib.error.HTTPError) -> SvcError:
    """The node's error body (DESIGN §9: code, error, issues) of an HTTP error as an SvcError."""
    raw = e.read()
    try:
        err = json.loads(raw.decode("utf-8"))
    except ValueError:
        err = None
    if isinstance(err, dict) and "code" in err:
        return SvcError(e.code, str(err.get("code")), str(err.get("error", "")), err.get("issues"), err)
    return SvcError(e.code, "HTTP_%d" % e.code, raw.decode("utf-8", "replace")[:500])


def _as_receipt_json(receipt: Union["SealedResult", Mapping[str, Any], str, bytes, os.PathLike]) -> Dict[str, Any]:
    """A sealed answer as a dict, from a SealedResult, a dict, JSON text or a JSON file's path."""
    if isinstance(receipt, SealedResult):
        return dict(receipt.raw)
    if isinstance(receipt, Mapping):
        return dict(receipt)
    if isinstance(receipt, bytes):
        receipt = receipt.decode("utf-8")
    if isinstance(receipt, os.PathLike) or (isinstance(receipt, str) and not receipt.lstrip().startswith("{")):
        with open(receipt, "r", encoding="utf-8") as f:
            return json.load(f)
    return json.loads(receipt)


def _query_value(v: Any) -> str:
    """A query-string value as the node reads it (lists joined by commas, booleans in lower case)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(_query_value(x) for x in v)
    if isinstance(v, (dict,)):
        raise TypeError("a GET argument cannot be an object; this tool takes flat arguments")
    return str(v)


class Client(JobsMixin):
    """A client of one svc node.

    Args:
        url: the node's base URL (default ``$SVC_URL``, else ``http://127.0.0.1:8787``).
        api_key: a machine key ``svc_ak_…`` (default ``$SVC_API_KEY``); public operations need none.
        timeout: seconds to wait for one answer (solvers can take a while).

    Example::

        from svc_client import Client
        svc = Client()                         # SVC_URL, SVC_API_KEY
        r = svc.solve("heat", steps=200)
        print(r.value, r.unit, r.precision.error_pct)
        assert svc.verify(r).valid

        job = svc.submit("heat", steps=200)    # a Job (svc_client.jobs): long runs on the queue
        job.wait(); r = job.result()
    """

    def __init__(self, url: Optional[str] = None, api_key: Optional[str] = None, timeout: float = 120.0):
        self.url = (url or os.environ.get("SVC_URL") or DEFAULT_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else (os.environ.get("SVC_API_KEY") or None)
        self.timeout = timeout
        self._routes: Optional[Dict[str, Tuple[str, str]]] = None

    def __repr__(self) -> str:
        return "Client(url=%r, api_key=%s)" % (self.url, "set" if self.api_key else "None")

    # -- HTTP ---------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Optional[Mapping[str, Any]] = None,
                query: Optional[Mapping[str, Any]] = None, key: Optional[str] = None) -> Any:
        """Sends one request and returns the decoded answer (JSON as dicts and lists, else text).

        Args:
            method: GET, POST, DELETE, …
            path: the route, e.g. ``/api/svc/pulse``.
            body: a JSON body (POST).
            query: query-string arguments.
            key: the bearer to send instead of the client's key.

        Raises:
            SvcError: the node answered with an error (its code and message), or could not be
                reached (code ``UNREACHABLE``).
        """
        url = self.url + path
        if query:
            url += "?" + urllib.parse.urlencode({k: _query_value(v) for k, v in query.items() if v is not None})
        data = None
        headers = {"accept": "application/json", "user-agent": "svc-client-python/0.1"}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        bearer = key if key is not None else self.api_key
        if bearer:
            headers["authorization"] = "Bearer " + bearer
        req = urllib.request.Request(url, data=data, method=method.upper(), headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return self._decode(res.read(), res.headers.get("content-type", ""))
        except urllib.error.HTTPError as e:
            raise http_error(e) from None
        except urllib.error.URLError as e:
            raise SvcError(0, "UNREACHABLE", "cannot reach the svc node at %s (%s): start one with `npm start`, or set SVC_URL"
                           % (self.url, getattr(e, "reason", e))) from None
        except (ConnectionError, TimeoutError) as e:
            raise SvcError(0, "UNREACHABLE", "no answer from the svc node at %s (%s)" % (self.url, e)) from None

    @staticmethod
    def _decode(raw: bytes, content_type: str) -> Any:
        text = raw.decode("utf-8")
        if "json" in content_type:
            return json.loads(text) if text else None
        return text

    # -- machines -----------------------------------------------------------------------------

    @classmethod
    def new_machine(cls, url: Optional[str] = None, display_name: str = "python client", **kwargs: Any) -> Tuple["Client", Dict[str, Any]]:
        """Provisions a machine on the node with a free demo key and returns a client that uses
        its compute key, with the machine's answer (``zid``, ``apiKey``, ``recovery`` …).

        The key and the recovery equation are shown once: keep them (``machine["apiKey"]``,
        ``machine["recovery"]``). The recovery equation with its salt gets a new key if the key is
        lost (``POST /api/machines/recover``).
        """
        anon = cls(url=url, api_key="", **kwargs)
        demo = anon.request("POST", "/api/demo-key/mint")["apiKey"]
        machine = anon.request("POST", "/api/machines", {"displayName": display_name}, key=demo)
        return cls(url=anon.url, api_key=machine["apiKey"], **kwargs), machine

    # -- solvers and tools --------------------------------------------------------------------

    def solve(self, name: str, inputs: Optional[Mapping[str, Any]] = None, /, **kw: Any) -> SealedResult:
        """Runs solver ``name`` and returns its sealed result.

        Args:
            name: the solver (``heat``, ``quant``, ``lorenz``, …; ``svc_heat`` works too).
            inputs: the request body as a dict (for field names that are not Python names, such
                as ``lambda``); keyword arguments are merged over it.
            **kw: the solver's fields (``steps=200``) and the common ones (``sample``,
                ``folder``, ``query``, ``acceptOutOfBound``); /docs lists each solver's fields.

        Returns:
            SealedResult: value, unit, precision, result, series, receipt and the raw answer.

        Raises:
            SvcError: e.g. ``INVALID_INPUT`` naming the field, ``PRECISION_REFUSED`` (the result
                failed its own check; nothing was charged), ``QUOTA_EXCEEDED``.
        """
        solver = name[4:] if name.startswith("svc_") else name
        body = dict(inputs or {})
        body.update(kw)
        return SealedResult.from_json(self.request("POST", "/api/svc/" + urllib.parse.quote(solver, safe=""), body))

    def tools(self) -> Dict[str, Tuple[str, str]]:
        """Every tool of the node with its REST route: ``{tool: (method, path template)}``."""
        if self._routes is None:
            catalog = self.request("GET", "/api/catalog", query={"limit": 200})
            self._routes = {e["tool"]: (e["method"], e["path"]) for e in catalog["endpoints"] if e.get("tool")}
        return dict(self._routes)

    def call(self, tool: str, arguments: Optional[Mapping[str, Any]] = None, /, **kw: Any) -> Any:
        """Calls any tool of the node (``svc_pulse``, ``svc_list_operators``, ``svc_contract_get`` …)
        and returns its answer as decoded JSON.

        The tool's REST route comes from the node's catalog (every tool is also an HTTP route with
        the same arguments and answer): path parameters go into the path, the other arguments into
        the query string (GET, DELETE) or the JSON body (POST).

        Args:
            tool: the tool's name (``svc_`` may be left out).
            arguments: the arguments as a dict; keyword arguments are merged over it.
        """
        routes = self.tools()
        name = tool if tool in routes else "svc_" + tool
        if name not in routes:
            raise SvcError(404, "NOT_FOUND", "no tool named %r on %s; tools: %s" % (tool, self.url, ", ".join(sorted(routes))))
        method, template = routes[name]
        args = dict(arguments or {})
        args.update(kw)
        path = template
        for part in template.split("/"):
            if part.startswith("{") and part.endswith("}"):
                p = part[1:-1]
                if p not in args:
                    raise SvcError(400, "INVALID_INPUT", "%s needs %r (it is part of the path %s)" % (name, p, template))
                path = path.replace(part, urllib.parse.quote(str(args.pop(p)), safe=""))
        if method in ("GET", "DELETE"):
            return self.request(method, path, query=args)
        return self.request(method, path, body=args)

    # -- verification -------------------------------------------------------------------------

    def verify(self, receipt: Union[SealedResult, Mapping[str, Any], str, bytes, os.PathLike]) -> Verification:
        """Verifies a sealed answer: a SealedResult, its ``raw`` dict, JSON text or a file's path.

        The node checks the seal proof (``POST /api/svc/verify``; a machine key is needed): the
        value, unit, operator chain, R(t), time step and signer's key prefix are those that were
        sealed. When ``svc_client.verify`` is installed and the receipt carries a transparency-log
        entry, its ``verify_receipt`` also checks the receipt offline against the node's published
        keys (``/.well-known/jwks.json``).

        Returns:
            Verification: ``valid`` (also the object's truth value), each check, and the reason.
        """
        r = _as_receipt_json(receipt)
        missing = [k for k in ("svcProof", "svcState", "keyPrefix") if k not in r]
        if missing:
            return Verification(False, False, 0, None, "not a sealed response: missing " + ", ".join(missing))
        st = r["svcState"]
        declared = (r.get("receipt") or {}).get("version")
        version = declared if declared in (1, 2) else (2 if isinstance(r.get("value"), (int, float)) else 1)
        req: Dict[str, Any] = {
            "proof": r["svcProof"], "operatorIds": st["operators"], "R_t": st["masterSum"],
            "svcond": st.get("svcond", st.get("zeqond")), "keyPrefix": r["keyPrefix"],
        }
        if version == 2:
            req["value"] = r.get("value")
            req["unit"] = r.get("unit") or ""
        proof = bool(self.request("POST", "/api/svc/verify", req).get("valid"))
        notes = ["v%d proof %s" % (version, "valid" if proof else
                 "does not match: the value, unit, R_t, time step, operator ids or signer were changed, or another node sealed it")]
        offline = None
        log = (r.get("receipt") or {}).get("log")
        if isinstance(log, dict):
            try:
                from . import verify as _offline  # the offline verifier, when installed
            except ImportError:
                _offline = None
            if _offline is not None and hasattr(_offline, "verify_receipt"):
                offline = _offline.verify_receipt(r, jwks=self.request("GET", "/.well-known/jwks.json"))
                notes.append("offline checks %s" % ("valid" if offline.get("valid") else "failed: %s" % offline.get("reason")))
        valid = proof and (offline is None or bool(offline.get("valid")))
        return Verification(valid=valid, proof_valid=proof, version=version, offline=offline, reason="; ".join(notes))
