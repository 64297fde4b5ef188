/**
 * The callbacks of a signing upstream (fal, Replicate): refused unread without all of the signature headers, then
 * checked by the upstream's adapter exactly as the upstream documents it.
 */
import { CallbackRejected, type CallbackVerifier } from '../types';
import { createUpstreamAdapter } from './adapters';
import type { UpstreamAdapterOptions, UpstreamId } from './types';

/** The verifier of `upstream`'s callbacks; null when its adapter cannot be built here (no credential) or checks none. */
export function signedCallbackVerifier(upstream: UpstreamId, signatureHeaders: readonly string[], options: UpstreamAdapterOptions): CallbackVerifier | null {
  let adapter;
  try {
    adapter = createUpstreamAdapter(upstream, options);
  } catch {
    return null;
  }
  const verify = adapter.verifyCallback?.bind(adapter);
  if (!verify) return null;
  return {
    async admit(head) {
      const missing = signatureHeaders.filter((name) => !head.headers[name]);
      if (missing.length > 0) throw new CallbackRejected(`missing ${missing.join(', ')}`);
      return { verify };
    },
  };
}
