"""Jobs through the client (svc_client.jobs) against the live node of conftest.py: submit, wait with
a progress line, result, cancel, list; another machine's job is not found."""
import io
import time

import pytest

from svc_client import Client, Job, SealedResult, SvcError
from svc_client.jobs import progress_line

# svc_action, Kepler orbit by Yoshida-8: ~0.3 s per 100,000 steps of one worker
SHORT = dict(system="kepler", order=8, steps=200_000, dt=0.001, compare=False)
LONG = dict(SHORT, steps=1_000_000)
# a job that outlasts any timing in these tests on a quiet machine too (it is cancelled at their end):
# lattice gauge Monte Carlo on 32 x 32 sites, 20,000 sweeps (tens of seconds of one worker)
VERY_LONG = dict(L=32, sweeps=20_000)


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_submit_wait_result_equals_the_synchronous_call(svc):
    job = svc.submit("action", SHORT, budget=60)
    assert isinstance(job, Job)
    assert job.id.startswith("job_") and job.tool == "svc_action"
    assert job.status in ("queued", "running", "succeeded")
    assert job.tokens["reserved"] == 60
    out = Terminal()
    job.wait(stream=out)
    assert job.status == "succeeded" and job.done
    lines = [l for l in out.getvalue().split("\r") if l.strip()]
    assert lines and lines[-1].rstrip().endswith("succeeded"), out.getvalue()
    assert "[" in lines[-1] and "100%" in lines[-1]
    r = job.result()
    assert isinstance(r, SealedResult)
    sync = svc.solve("action", SHORT)
    assert (r.value, r.unit, r.result, r.input) == (sync.value, sync.unit, sync.result, sync.input)
    assert r.receipt.id != sync.receipt.id
    assert svc.verify(r).valid
    # the machine's list has it; job(id) reads it again
    assert job.id in [j.id for j in svc.jobs(limit=20)]
    assert [j.id for j in svc.jobs(status="succeeded", limit=200)].count(job.id) == 1
    again = svc.job(job.id)
    assert again.status == "succeeded" and again.attempts == 1 and again.tokens["charged"] is not None


def test_wait_draws_nothing_off_a_terminal_and_honours_its_timeout(svc):
    job = svc.submit("gauge", **VERY_LONG)
    out = io.StringIO()
    t0 = time.monotonic()
    job.wait(timeout=1, stream=out)
    assert time.monotonic() - t0 < 10
    assert out.getvalue() == ""
    assert not job.done
    with pytest.raises(SvcError) as e:
        job.result(timeout=0.5)
    assert e.value.code == "TIMEOUT"
    job.cancel()


def test_cancel_stops_a_running_job(svc):
    job = svc.submit("gauge", **VERY_LONG)
    deadline = time.time() + 60
    while job.progress is None and time.time() < deadline:
        time.sleep(0.2)
        job.refresh()
    assert job.status == "running", job
    job.cancel()
    job.wait(timeout=10, progress=False)
    assert job.status == "cancelled"
    with pytest.raises(SvcError):
        job.result()
    job.refresh()
    assert job.tokens["charged"] is not None and job.tokens["charged"] < job.tokens["reserved"]
    # cancelling an ended job changes nothing
    assert job.cancel().status == "cancelled"


def test_refusals_are_the_synchronous_ones_and_another_machine_sees_nothing(svc, node_url):
    with pytest.raises(SvcError) as e:
        svc.submit("action", steps=1)
    assert e.value.code == "INVALID_INPUT" and e.value.status == 400
    with pytest.raises(SvcError) as e:
        svc.submit("pulse")
    assert e.value.code == "INVALID_INPUT"
    job = svc.submit("action", SHORT)
    other, _ = Client.new_machine(node_url, display_name="pytest other")
    with pytest.raises(SvcError) as e:
        other.job(job.id)
    assert e.value.code == "NOT_FOUND"
    with pytest.raises(SvcError) as e:
        Job(other, job.raw).cancel()
    assert e.value.code == "NOT_FOUND"
    assert job.id not in [j.id for j in other.jobs()]
    job.wait(progress=False)


def test_progress_line():
    view = {"id": "job_X", "tool": "svc_heat", "status": "running", "progress": {"fraction": 0.5, "message": "heat 50%"}}
    assert progress_line(view, width=10) == "job_X svc_heat [#####-----]  50% running: heat 50%"
    assert progress_line({"id": "job_X", "tool": "svc_heat", "status": "queued", "progress": None}, width=4) == "job_X svc_heat [----]   0% queued"
    assert progress_line({"id": "job_X", "tool": "svc_heat", "status": "succeeded", "progress": None}, width=4).endswith("[####] 100% succeeded")


CNF = "c tiny\np cnf 3 3\n1 -2 0\n2 3 0\n-1 -3 0\n"


def test_upload_streams_a_file_and_names_it_by_its_digest(svc, tmp_path):
    import gzip
    import hashlib

    path = tmp_path / "tiny.cnf"
    path.write_text(CNF)
    digest = svc.upload(path)
    assert digest == "sha256:" + hashlib.sha256(CNF.encode()).hexdigest()
    gz = tmp_path / "tiny.cnf.gz"
    gz.write_bytes(gzip.compress(CNF.encode()))
    assert svc.upload(gz, gzip=True) == digest, "the node names the decompressed bytes"
    # the blob is a solver input, inline-equivalent, and a job's input too
    via_blob = svc.solve("sat", cnf={"blob": digest})
    inline = svc.solve("sat", cnf=CNF)
    assert (via_blob.value, via_blob.result.get("satisfiable")) == (inline.value, inline.result.get("satisfiable"))
    job = svc.submit("sat", cnf={"blob": digest})
    assert job.result().value == inline.value
    with pytest.raises(SvcError) as e:
        Client(url=svc.url, api_key=None).upload(path)
    assert e.value.status == 401
