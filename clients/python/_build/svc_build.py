"""An in-tree PEP 517 build backend for svc_client: the standard library only.

pip builds the client from ``pyproject.toml`` (``backend-path = ["_build"]``) without setuptools,
without the ``wheel`` package and without a download, on any CPython >= 3.9: the wheel is a zip of
``svc_client/`` and a ``.dist-info`` (METADATA, WHEEL, top_level.txt, RECORD) as the binary
distribution format asks (PEP 427, packaging.python.org "Binary distribution format"; RECORD:
``path,sha256=<urlsafe base64 without padding>,size``); the sdist a ``.tar.gz`` of the sources
with PKG-INFO (PEP 517 "build_sdist", the core metadata specification for METADATA).
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "svc_client"


def _project():
    """name, version, summary, requires-python and the optional extras from pyproject.toml."""
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]

    def field(name):
        m = re.search(r'^%s\s*=\s*"([^"]*)"' % re.escape(name), project, re.M)
        if not m:
            raise ValueError("pyproject.toml: [project] has no %s" % name)
        return m.group(1)

    extras = {}
    block = text.split("[project.optional-dependencies]", 1)
    if len(block) == 2:
        for line in block[1].split("\n[", 1)[0].splitlines():
            m = re.match(r'^(\w[\w-]*)\s*=\s*\[(.*)\]', line.strip())
            if m:
                extras[m.group(1)] = re.findall(r'"([^"]+)"', m.group(2))
    return {"name": field("name"), "version": field("version"), "summary": field("description"),
            "requires_python": field("requires-python"), "extras": extras}


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: %s" % p["name"], "Version: %s" % p["version"],
             "Summary: %s" % p["summary"], "Requires-Python: %s" % p["requires_python"]]
    for extra, reqs in sorted(p["extras"].items()):
        lines.append("Provides-Extra: %s" % extra)
        lines.extend('Requires-Dist: %s; extra == "%s"' % (r, extra) for r in reqs)
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return "\n".join(lines) + "\n\n" + readme


def _dist_name():
    p = _project()
    return re.sub(r"[-_.]+", "_", p["name"]).lower(), p["version"]


def _sources():
    """The package's files, relative to the project, sorted (no caches)."""
    out = []
    for root, dirs, files in os.walk(os.path.join(HERE, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            out.append(os.path.relpath(os.path.join(root, name), HERE).replace(os.sep, "/"))
    return out


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def _zipinfo(path):
    zi = zipfile.ZipInfo(path, date_time=(2020, 2, 2, 0, 0, 0))  # reproducible
    zi.external_attr = 0o644 << 16
    zi.compress_type = zipfile.ZIP_DEFLATED
    return zi


def _dist_info_files():
    name, version = _dist_name()
    info = "%s-%s.dist-info" % (name, version)
    wheel = "Wheel-Version: 1.0\nGenerator: svc_build (clients/python/_build)\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    return info, [(info + "/METADATA", _metadata().encode("utf-8")), (info + "/WHEEL", wheel.encode()),
                  (info + "/top_level.txt", (PACKAGE + "\n").encode())]


# --- the PEP 517 hooks --------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info, files = _dist_info_files()
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    for path, data in files:
        with open(os.path.join(metadata_directory, path), "wb") as f:
            f.write(data)
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name, version = _dist_name()
    filename = "%s-%s-py3-none-any.whl" % (name, version)
    info, meta = _dist_info_files()
    entries = []
    for rel in _sources():
        with open(os.path.join(HERE, rel), "rb") as f:
            entries.append((rel, f.read()))
    entries.extend(meta)
    record = [_record_line(p, d) for p, d in entries] + [info + "/RECORD,,"]
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w") as z:
        for path, data in entries:
            z.writestr(_zipinfo(path), data)
        z.writestr(_zipinfo(info + "/RECORD"), ("\n".join(record) + "\n").encode())
    return filename


def build_sdist(sdist_directory, config_settings=None):
    name, version = _dist_name()
    base = "%s-%s" % (name, version)
    filename = base + ".tar.gz"
    files = ["pyproject.toml", "README.md", "_build/svc_build.py"] + _sources()
    for root, dirs, names in os.walk(os.path.join(HERE, "tests")):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", ".pytest_cache"))
        files += sorted(os.path.relpath(os.path.join(root, n), HERE).replace(os.sep, "/") for n in names if not n.endswith(".pyc"))
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add(path, data):
            ti = tarfile.TarInfo(base + "/" + path)
            ti.size, ti.mtime, ti.mode = len(data), int(time.time()), 0o644
            tar.addfile(ti, io.BytesIO(data))
        for rel in files:
            with open(os.path.join(HERE, rel), "rb") as f:
                add(rel, f.read())
        add("PKG-INFO", _metadata().encode("utf-8"))
    return filename
