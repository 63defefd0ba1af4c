"""A strict JSON reader: the I-JSON profile (RFC 7493 section 2) of RFC 8259 JSON.

``json.loads`` keeps the last of two equal member names and reads lone surrogates (``"\\ud800"``)
into strings; I-JSON forbids both (sections 2.3 and 2.1), so a saved receipt is read with this:
an ``object_pairs_hook`` that refuses a name seen twice in one object (at any depth), a walk that
refuses a string (or member name) holding a surrogate code point, and ``NaN``/``Infinity``
refused (not JSON). A number written with a fraction or an exponent (``1804.0``, ``1e3``) is read
as a ``float``, so members that must be integers can be refused when they are not written as
integers. The same rules as the node's reader (src/core/ijson.ts) and the console's
(src/console/static/ijson.js); no code is shared.
"""
import json

__all__ = ["IJsonError", "loads"]


class IJsonError(ValueError):
    pass


def _pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise IJsonError("duplicate member name %s (RFC 7493 section 2.3)" % json.dumps(k))
        out[k] = v
    return out


def _constant(name):
    raise IJsonError("%s is not JSON" % name)


def _float(s):
    x = float(s)
    if x != x or x in (float("inf"), float("-inf")):
        raise IJsonError("a number beyond the range of a double (RFC 7493 section 2.2)")
    return x


def _no_surrogates(s):
    for c in s:
        if 0xD800 <= ord(c) <= 0xDFFF:
            raise IJsonError("a lone surrogate U+%04X in a string (RFC 7493 section 2.1)" % ord(c))


def _walk(v, depth=0):
    if depth > 256:
        raise IJsonError("nested deeper than 256")
    if isinstance(v, str):
        _no_surrogates(v)
    elif isinstance(v, dict):
        for k, x in v.items():
            _no_surrogates(k)
            _walk(x, depth + 1)
    elif isinstance(v, list):
        for x in v:
            _walk(x, depth + 1)


def loads(text):
    """Parses ``text`` (str, or UTF-8 bytes) as I-JSON; raises IJsonError naming the violation."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise IJsonError("not UTF-8: %s" % e)
    if text.startswith("\ufeff"):
        raise IJsonError("a byte order mark (RFC 8259 section 8.1)")
    try:
        v = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float)
    except IJsonError:
        raise
    except RecursionError:
        raise IJsonError("nested too deep")
    except ValueError as e:
        raise IJsonError(str(e))
    _walk(v)
    return v
