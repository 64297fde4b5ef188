/**
 * What signs Content Credentials. `ContentSigner` is the one seam for keys kept elsewhere (a remote signing service,
 * an HSM, a cloud KMS): implement it and hand it to the output marker; nothing else in the service sees a key.
 * `createFileSigner` is the implementation that ships: a PEM private key and certificate chain from files or
 * variables (src/config.ts, docs/provenance.md).
 */
import { sign as cryptoSign } from 'node:crypto';
import { readSigningKey, type SigningAlgorithm, type SigningKeySettings } from '../lib/signingKeys';

export interface ContentSigner {
  readonly algorithm: SigningAlgorithm;
  /** PEM certificates: the signing certificate first, then the certificates that issued it, in order. */
  readonly certificateChainPem: string;
  /** An RFC 3161 time-stamp authority every signature is countersigned by, when set. */
  readonly timestampAuthorityUrl?: string;
  /**
   * The raw signature of `data` (the COSE to-be-signed bytes the C2PA library hands over): r‖s, 64 bytes, for
   * es256 (ECDSA P-256 with SHA-256); 64 bytes for ed25519.
   */
  sign(data: Buffer): Promise<Buffer>;
}

/**
 * Set by the file signer only: its key in this process, so the C2PA library signs with it itself instead of calling
 * back into JavaScript for every signature (several times faster). Other signers never hand a key over.
 */
export const IN_PROCESS_KEY = Symbol('genmedia.provenance.inProcessKey');

export interface InProcessKey {
  privateKeyPem: string;
}

export function inProcessKeyOf(signer: ContentSigner): InProcessKey | undefined {
  return (signer as ContentSigner & { [IN_PROCESS_KEY]?: InProcessKey })[IN_PROCESS_KEY];
}

/** The signer of a PEM key and chain; the algorithm follows the key. Throws SignerConfigError for a key or chain that cannot sign. */
export function createFileSigner(settings: SigningKeySettings): ContentSigner {
  const { key, algorithm, chain } = readSigningKey(settings);
  const signWith = algorithm === 'es256' ? { key, dsaEncoding: 'ieee-p1363' as const } : key;
  const signer: ContentSigner & { [IN_PROCESS_KEY]: InProcessKey } = {
    algorithm,
    certificateChainPem: chain.map((cert) => cert.toString()).join(''),
    ...(settings.timestampAuthorityUrl ? { timestampAuthorityUrl: settings.timestampAuthorityUrl } : {}),
    sign: async (data) => cryptoSign(algorithm === 'es256' ? 'sha256' : null, data, signWith),
    [IN_PROCESS_KEY]: { privateKeyPem: settings.privateKeyPem },
  };
  return signer;
}
