"""Ed25519 signature verification in pure Python (RFC 8032 section 5.1.7), for the offline
verifier where the ``cryptography`` package is not installed (a fresh venv, any CPython >= 3.9).

Edwards25519 in extended coordinates (RFC 8032 section 5.1.4: the unified addition formula, used
for doubling too); point decoding by section 5.1.3; the check is the cofactorless one that
OpenSSL and ``cryptography`` make, [S]B - [k]A encoded equals R, with S < L required. Slow (a few
milliseconds a signature) and not constant-time, which verification of public data does not need.
"""
import hashlib

P = 2 ** 255 - 19
L = 2 ** 252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)

__all__ = ["verify", "InvalidSignature"]


class InvalidSignature(Exception):
    pass


def _add(p, q):
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = t1 * 2 * D * t2 % P
    d = z1 * 2 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(s, p):
    q = (0, 1, 1, 0)  # the neutral element
    while s > 0:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _decode(b):
    """RFC 8032 section 5.1.3; None when ``b`` is not the encoding of a curve point."""
    if len(b) != 32:
        return None
    y = int.from_bytes(b, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= P:
        return None
    u = (y * y - 1) % P
    v = (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    vx2 = v * x * x % P
    if vx2 == u:
        pass
    elif vx2 == (-u) % P:
        x = x * SQRT_M1 % P
    else:
        return None
    if x == 0 and sign == 1:
        return None
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


def _encode(p):
    x, y, z, _ = p
    zi = pow(z, P - 2, P)
    x, y = x * zi % P, y * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


_B = _decode((4 * pow(5, P - 2, P) % P).to_bytes(32, "little"))


def verify(public_key, signature, message):
    """Raises InvalidSignature unless ``signature`` (64 bytes) is an Ed25519 signature of
    ``message`` by ``public_key`` (32 bytes)."""
    if len(public_key) != 32 or len(signature) != 64:
        raise InvalidSignature("malformed key or signature")
    a = _decode(bytes(public_key))
    r = bytes(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or s >= L or _decode(r) is None:
        raise InvalidSignature("malformed key or signature")
    k = int.from_bytes(hashlib.sha512(r + bytes(public_key) + bytes(message)).digest(), "little") % L
    neg_a = ((P - a[0]) % P, a[1], a[2], (P - a[3]) % P)
    if _encode(_add(_mul(s, _B), _mul(k, neg_a))) != r:
        raise InvalidSignature("the signature does not verify")
