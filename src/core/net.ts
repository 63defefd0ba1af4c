// Client addresses as units of rate limiting (issue 33): one host of IPv4 owns nothing smaller than
// its /24 in practice, and one IPv6 subscriber is usually handed a whole /64, so limits per address
// count per network prefix, else every address of a loopback alias range or of an IPv6 /64 starts
// afresh. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) count as their IPv4 address.
import { isIPv4, isIPv6 } from 'node:net';

/** The prefix an address is limited by: `a.b.c.0/24` for IPv4, the first four hextets `/64` for
 * IPv6; anything else (a unix socket, an unknown peer) as given. */
export function addressPrefix(ip: string): string {
  let a = ip.trim().toLowerCase();
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) a = mapped[1];
  if (isIPv4(a)) return `${a.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIPv6(a)) return `${expandIPv6(a).slice(0, 4).join(':')}::/64`;
  return a;
}

/** The eight hextets of an IPv6 address, each without leading zeros. */
function expandIPv6(a: string): string[] {
  let text = a;
  // a trailing dotted quad (::1.2.3.4) is two hextets
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [b0, b1, b2, b3] = quad.slice(1).map(Number);
    text = text.slice(0, quad.index) + ((b0 << 8) | b1).toString(16) + ':' + ((b2 << 8) | b3).toString(16);
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const zeros = tail === null ? [] : Array(8 - h.length - t.length).fill('0');
  return [...h, ...zeros, ...t].map((x) => parseInt(x || '0', 16).toString(16));
}
