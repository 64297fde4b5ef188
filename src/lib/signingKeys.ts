/**
 * Reading a PEM signing key and its certificate chain, and checking that they can sign together: ECDSA P-256 (ES256)
 * or Ed25519, the key belonging to the chain's first certificate.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';

export type SigningAlgorithm = 'es256' | 'ed25519';

export class SignerConfigError extends Error {}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle, in the order they appear. */
export function parseCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new SignerConfigError('the certificate chain holds no PEM certificate');
  return blocks.map((block) => new X509Certificate(block));
}

function algorithmOf(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'es256';
  const curve = key.asymmetricKeyDetails?.namedCurve;
  throw new SignerConfigError(`the signing key is ${key.asymmetricKeyType}${curve ? ` (${curve})` : ''}; it must be ECDSA P-256 (ES256) or Ed25519`);
}

export interface SigningKeySettings {
  certificateChainPem: string;
  privateKeyPem: string;
  timestampAuthorityUrl?: string;
}

export interface SigningKey {
  key: KeyObject;
  algorithm: SigningAlgorithm;
  chain: X509Certificate[];
}

/** The key and chain of `settings`; throws SignerConfigError for a key or chain that cannot sign. */
export function readSigningKey(settings: SigningKeySettings): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(settings.privateKeyPem);
  } catch (err) {
    throw new SignerConfigError(`the signing key is not a readable PEM private key: ${(err as Error).message}`);
  }
  const algorithm = algorithmOf(key);
  const chain = parseCertificates(settings.certificateChainPem);
  if (!chain[0].checkPrivateKey(key)) throw new SignerConfigError('the signing key does not belong to the first certificate of the chain');
  return { key, algorithm, chain };
}
