"""Jobs: sealed computations that outlive a request (issue 27, docs/jobs.md).

A job runs a solver tool on the node's queue, on any node of a cluster; its result is sealed
exactly as the synchronous call's. ``Client.submit`` queues one and returns a ``Job``::

    job = svc.submit("action", system="kepler", order=8, steps=2_000_000, budget=120)
    job.wait()            # a progress line on a terminal (stderr), until it ends
    r = job.result()      # the SealedResult, or SvcError with the call's own error
    job.cancel()          # stops a running job within a second (charged for the time used)

REST underneath: ``POST /api/jobs`` (202 and the job), ``GET /api/jobs/{id}?wait=N`` (long poll),
``GET /api/jobs?status=&cursor=`` (the machine's jobs), ``DELETE /api/jobs/{id}`` (cancel). The
same job is an MCP task (docs/mcp.md). ``Client.upload(path)`` streams a file into the node's
blob store (``POST /api/blobs``) and returns its name ``sha256:<hex>``, which any file-like solver
input takes as ``{"blob": name}``. Standard library only.
"""
from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Mapping, Optional, TextIO, Union

__all__ = ["Job", "JobsMixin", "TERMINAL", "progress_line"]

#: the statuses a job never leaves
TERMINAL = ("succeeded", "failed", "cancelled")

#: the longest single wait the node grants (``GET /api/jobs/{id}?wait=``, seconds)
_MAX_WAIT = 30


def _tool_name(tool: str) -> str:
    return tool if tool.startswith("svc_") else "svc_" + tool


def progress_line(view: Mapping[str, Any], width: int = 30) -> str:
    """One line for a person: ``job_… svc_action [#######-----------]  38% running: action 38%``."""
    status = view.get("status", "?")
    p = view.get("progress") or {}
    f = float(p.get("fraction", 1.0 if status == "succeeded" else 0.0))
    f = min(1.0, max(0.0, f))
    done = int(round(f * width))
    msg = p.get("message") or ""
    return "%s %s [%s%s] %3d%% %s%s" % (view.get("id", ""), view.get("tool", ""), "#" * done, "-" * (width - done),
                                        int(f * 100), status, (": " + msg) if msg and status == "running" else "")


class Job:
    """One job of the node, as its owner sees it (``GET /api/jobs/{id}``).

    Attributes:
        id: ``job_`` and a ULID (also the MCP task id).
        tool: the tool it runs (``svc_action``).
        status: ``queued``, ``running``, ``succeeded``, ``failed`` or ``cancelled``.
        progress: the fraction done (0 to 1) from the solver's own progress, or None.
        message: the solver's progress message, if any.
        attempts: how many times a worker took it (more than 1 after a node died).
        tokens: ``{"reserved": …, "charged": …}``.
        raw: the job as the node last sent it.
    """

    def __init__(self, client: Any, view: Mapping[str, Any]):
        self._client = client
        self._set(view)

    def _set(self, view: Mapping[str, Any]) -> None:
        self.raw: Dict[str, Any] = dict(view)
        self.id: str = view["id"]
        self.tool: str = view.get("tool", "")
        self.status: str = view.get("status", "")
        p = view.get("progress") or None
        self.progress: Optional[float] = float(p["fraction"]) if p else None
        self.message: Optional[str] = p.get("message") if p else None
        self.attempts: int = int(view.get("attempts") or 0)
        self.tokens: Dict[str, Any] = dict(view.get("tokens") or {})

    def __repr__(self) -> str:
        pct = "" if self.progress is None else " %d%%" % int(self.progress * 100)
        return "Job(%s, %s, %s%s)" % (self.id, self.tool, self.status, pct)

    @property
    def done(self) -> bool:
        """True once the job has ended (succeeded, failed or cancelled)."""
        return self.status in TERMINAL

    def refresh(self, wait: int = 0) -> "Job":
        """Reads the job again; ``wait`` seconds (at most 30) lets the node answer when it ends."""
        query = {"wait": int(min(_MAX_WAIT, max(0, wait)))} if wait else None
        self._set(self._client.request("GET", "/api/jobs/" + urllib.parse.quote(self.id, safe=""), query=query))
        return self

    def wait(self, timeout: Optional[float] = None, progress: Optional[bool] = None, stream: Optional[TextIO] = None) -> "Job":
        """Waits until the job ends and returns it.

        Args:
            timeout: seconds to wait at most (None: until it ends); the job is returned as it then is.
            progress: draw a progress line (default: when ``stream`` is a terminal).
            stream: where the progress line goes (default ``sys.stderr``).
        """
        out = stream if stream is not None else sys.stderr
        show = progress if progress is not None else bool(getattr(out, "isatty", lambda: False)())
        deadline = None if timeout is None else time.monotonic() + timeout
        last = ""
        while True:
            if show:
                line = progress_line(self.raw)
                if line != last:
                    out.write("\r" + line.ljust(len(last)))
                    out.flush()
                    last = line
            if self.done:
                break
            left = _MAX_WAIT if deadline is None else deadline - time.monotonic()
            if left <= 0:
                break
            # long poll while nothing changes; short steps while a progress line is drawn
            self.refresh(wait=min(1 if show else _MAX_WAIT, max(1, int(left))))
        if show and last:
            out.write("\n")
            out.flush()
        return self

    def result(self, timeout: Optional[float] = None) -> Any:
        """Waits for the end and returns what the synchronous call returns: a ``SealedResult``.

        Raises:
            SvcError: the job failed (the synchronous call's own error: code, message, issues),
                was cancelled (code ``CANCELLED``), or is still running after ``timeout``
                (code ``TIMEOUT``).
        """
        from .client import SealedResult, SvcError

        self.wait(timeout=timeout, progress=False)
        if not self.done:
            raise SvcError(0, "TIMEOUT", "job %s is still %s after %s s" % (self.id, self.status, timeout))
        response = self.raw.get("response") or {}
        body = response.get("body") or {}
        status = int(response.get("status") or 0)
        if self.status == "succeeded" and status < 400:
            return SealedResult.from_json(body) if "receipt" in body and "value" in body else body
        if body.get("code"):
            raise SvcError(status, str(body["code"]), str(body.get("error", "")), body.get("issues"), body)
        if self.status == "cancelled":
            raise SvcError(0, "CANCELLED", "job %s was cancelled" % self.id)
        raise SvcError(status, "JOB_FAILED", "job %s %s without an answer" % (self.id, self.status))

    def cancel(self) -> "Job":
        """Cancels the job (a running one stops within a second and is charged for the time it
        used); cancelling an ended job changes nothing. Returns the job as it then is."""
        self._set(self._client.request("DELETE", "/api/jobs/" + urllib.parse.quote(self.id, safe="")))
        return self


class JobsMixin:
    """The jobs methods of ``Client`` (it provides ``request``)."""

    def submit(self, tool: str, arguments: Optional[Mapping[str, Any]] = None, /, budget: Optional[int] = None, **kw: Any) -> Job:
        """Queues a job running ``tool`` and returns it at once (``POST /api/jobs``).

        Args:
            tool: a sealed solver tool (``action``, ``svc_heat``, …; ``svc_`` may be left out).
            arguments: the tool's arguments as a dict; keyword arguments are merged over it.
            budget: seconds of worker time (default SVC_JOB_SECONDS, 600; at most
                SVC_JOB_MAX_SECONDS); their tokens are reserved until the job ends.

        Raises:
            SvcError: the synchronous call's refusals (``INVALID_INPUT`` naming the field), or
                ``QUOTA_EXCEEDED`` / ``RATE_LIMITED`` for the reservation and the queue.
        """
        args = dict(arguments or {})
        args.update(kw)
        body: Dict[str, Any] = {"tool": _tool_name(tool), "arguments": args}
        if budget is not None:
            body["budget"] = {"seconds": budget}
        return Job(self, self.request("POST", "/api/jobs", body))  # type: ignore[attr-defined]

    def job(self, job_id: str) -> Job:
        """One of this machine's jobs by id (another machine's is ``NOT_FOUND``)."""
        return Job(self, self.request("GET", "/api/jobs/" + urllib.parse.quote(job_id, safe="")))  # type: ignore[attr-defined]

    def iter_jobs(self, status: Optional[str] = None, page_size: int = 50) -> Iterator[Job]:
        """This machine's jobs, newest first, page after page (``GET /api/jobs``)."""
        cursor: Optional[str] = None
        while True:
            page = self.request("GET", "/api/jobs", query={"status": status, "cursor": cursor, "limit": page_size})  # type: ignore[attr-defined]
            for view in page.get("jobs", []):
                yield Job(self, view)
            cursor = page.get("nextCursor")
            if not cursor:
                return

    def jobs(self, status: Optional[str] = None, limit: int = 50) -> List[Job]:
        """This machine's jobs, newest first: at most ``limit`` of them."""
        out: List[Job] = []
        for j in self.iter_jobs(status=status, page_size=min(200, max(1, limit))):
            out.append(j)
            if len(out) >= limit:
                break
        return out

    def upload(self, path: Union[str, "os.PathLike[str]"], gzip: bool = False) -> str:
        """Streams a file into the node's blob store (``POST /api/blobs``; it is never read into
        memory whole) and returns its name ``sha256:<hex>``: give it as ``{"blob": name}`` to any
        file-like solver input (``cnf``, ``case``, ``xyz``, ``measurements``, …).

        Args:
            path: the file.
            gzip: the file is gzip-compressed (sent with ``Content-Encoding: gzip``; the node
                stores and names the decompressed bytes).

        Raises:
            SvcError: ``QUOTA_EXCEEDED`` (the machine's blob quota), 413 (over SVC_BLOB_MAX_BYTES), …
        """
        from .client import SvcError, http_error

        size = os.path.getsize(path)
        headers = {"accept": "application/json", "content-type": "application/octet-stream",
                   "content-length": str(size), "user-agent": "svc-client-python/0.1"}
        if gzip:
            headers["content-encoding"] = "gzip"
        key = getattr(self, "api_key", None)
        if key:
            headers["authorization"] = "Bearer " + key
        url = getattr(self, "url") + "/api/blobs"
        with open(path, "rb") as f:
            req = urllib.request.Request(url, data=f, method="POST", headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=getattr(self, "timeout", 120.0)) as res:
                    return str(json.loads(res.read().decode("utf-8"))["digest"])
            except urllib.error.HTTPError as e:
                raise http_error(e) from None
            except urllib.error.URLError as e:
                raise SvcError(0, "UNREACHABLE", "cannot reach the svc node at %s (%s)" % (getattr(self, "url"), getattr(e, "reason", e))) from None
