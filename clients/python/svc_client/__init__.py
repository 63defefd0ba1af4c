"""svc client: offline verification of sealed receipts (docs/verify.md)."""
from .verify import verify_receipt, verify_attestation

__all__ = ["verify_receipt", "verify_attestation"]
