// The text of a file input: inline it is a string; given as a blob (src/ops/files.ts) it arrives as
// its bytes, decoded here at the reader's entry as UTF-8 (WHATWG Encoding; malformed sequences
// become U+FFFD, which every reader then refuses as an unexpected character). A byte-order mark is
// kept, as it would be in the same text sent inline.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

export function textOf(x: string | Uint8Array): string {
  return typeof x === 'string' ? x : utf8.decode(x);
}
