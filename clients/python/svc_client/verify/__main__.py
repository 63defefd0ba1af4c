"""``python3 -m svc_client.verify receipt.json [...]``: the command line of the offline verifier.

A module of its own, so that ``-m`` runs it without importing ``svc_client.verify`` twice (which
is what made runpy warn when the command line lived in the package's module itself).
"""
import sys

from . import main

sys.exit(main())
