/**
 * The Idempotency-Key of a submit: the same for the same request from the same form, so a double click or a retry
 * after a lost answer charges once; a new form (a new visit to the model page) starts a new series.
 */
export function idempotencyKeyFor(formNonce: string, request: unknown): string {
  return `console-${formNonce}-${hash53(JSON.stringify(request)).toString(36)}`;
}

/** cyrb53: a fast 53-bit string hash; collisions only matter within one form's requests. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
