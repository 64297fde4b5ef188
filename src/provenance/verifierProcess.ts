/**
 * A verifier process: reads and validates the manifest of one file at a time for the API, so that the C2PA library's
 * native parsing of untrusted media runs outside the API process, where a time limit can end it (the library offers
 * no cancellation) and a crash takes no request but its own. Started by src/provenance/verifierPool.ts.
 */
import { readFile } from 'node:fs/promises';
import { readManifest } from './c2pa';
import type { VerifyRequest, VerifyResponse } from './verifierPool';

process.on('message', (message: VerifyRequest) => {
  void (async (): Promise<VerifyResponse> => {
    try {
      const sidecar = message.sidecarPath ? await readFile(message.sidecarPath) : undefined;
      const outcome = await readManifest(message.asset, { ...(sidecar ? { sidecar } : {}), ...(message.trustAnchorsPem ? { trustAnchorsPem: message.trustAnchorsPem } : {}) });
      return { id: message.id, outcome };
    } catch (err) {
      return { id: message.id, error: err instanceof Error ? err.message : String(err) };
    }
  })().then((response) => process.send?.(response));
});

// Loaded: the time limit of a read starts now, not while Node and the library load.
process.send?.('ready');

// The API went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
