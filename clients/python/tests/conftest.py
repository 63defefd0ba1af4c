"""Fixtures shared by the client's test files: a live node of this repository (``node src/main.ts``
on a free port, with its data in a temporary directory) and a machine on it.

Set SVC_TEST_NODE to the Node 24 binary to use (default: the project's pinned
node_modules/.bin/node, else ``node`` on PATH).
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from svc_client import Client

REPO = Path(__file__).resolve().parents[3]


def _node_binary():
    given = os.environ.get("SVC_TEST_NODE")
    if given:
        return given
    pinned = REPO / "node_modules" / ".bin" / "node"
    return str(pinned) if pinned.exists() else shutil.which("node")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def node_url():
    """A node of this repository, listening on a free port until the tests end."""
    node = _node_binary()
    if not node:
        pytest.fail("no Node.js binary: run npm install (the project pins Node 24) or set SVC_TEST_NODE")
    port = _free_port()
    data = tempfile.mkdtemp(prefix="svc-py-node-")
    url = "http://127.0.0.1:%d" % port
    env = dict(os.environ, PORT=str(port), HOST="127.0.0.1", SVC_DATA_DIR=data, SVC_BASE_URL=url, LOG_LEVEL="warn")
    # the literature sources stay unreachable: these tests never leave the machine
    for s in ("PREPRINT", "OPEN_CATALOGUE", "DOI_REGISTRY", "BIOMEDICAL_INDEX", "SEMANTIC_INDEX", "BIO_PREPRINT"):
        env["SVC_PAPERS_%s_URL" % s] = "http://127.0.0.1:9"
    env.pop("SVC_API_KEY", None)
    env.pop("SVC_URL", None)
    log = open(os.path.join(data, "node.log"), "w")
    proc = subprocess.Popen([node, str(REPO / "src" / "main.ts")], cwd=str(REPO), env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 180
        while True:
            try:
                with urllib.request.urlopen(url + "/api/svc/pulse", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                log.flush()
                pytest.fail("the node did not start:\n" + open(os.path.join(data, "node.log")).read()[-3000:])
            time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="session")
def machine(node_url):
    """A client with its own machine on the test node, and the machine's answer."""
    return Client.new_machine(node_url, display_name="pytest")


@pytest.fixture(scope="session")
def svc(machine):
    return machine[0]


