"""svc_client: the Python client of an svc sealed-computation node.

    from svc_client import Client
    svc = Client()                      # $SVC_URL and $SVC_API_KEY
    r = svc.solve("heat", steps=200)    # a SealedResult
    print(r)                            # value, unit, error against the reference, receipt id
    svc.verify(r)                       # the node checks the seal proof

``Client.solve`` runs a solver, ``Client.call`` any tool, ``Client.verify`` checks a receipt;
``Client.submit`` queues a long run as a job (``Job``: ``wait()``, ``result()``, ``cancel()``). The
offline verifier (``svc_client.verify``, docs/verify.md: receipts and attestations against the
node's published keys, without trusting the node; it needs python3-cryptography) is exported too
when it can be imported.
"""
from .client import DEFAULT_URL, Client, Precision, Receipt, SealedResult, SvcError, Verification
from .jobs import Job

__all__ = ["Client", "SealedResult", "Precision", "Receipt", "Verification", "SvcError", "Job", "DEFAULT_URL"]

try:  # the offline verifier (clients/python/svc_client/verify.py), when present
    from .verify import verify_attestation, verify_receipt  # noqa: F401

    __all__ += ["verify_receipt", "verify_attestation"]
except ImportError:  # pragma: no cover - depends on the installed modules
    pass

__version__ = "0.1.0"
