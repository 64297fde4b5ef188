/**
 * How a process reaches Temporal: the address and, for Temporal Cloud or a server behind TLS of its own, an API key or
 * a client certificate (mTLS) and the CA to check the server against. The API's client and the workers' connections
 * take the same options.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../config';

export interface TemporalConnectionOptions {
  address: string;
  apiKey?: string;
  tls?: true | { clientCertPair?: { crt: Buffer; key: Buffer }; serverRootCACertificate?: Buffer };
}

type Credentials = Partial<Config['temporal']['credentials']>;

export function temporalConnectionOptions(temporal: { address: string; credentials: Credentials }): TemporalConnectionOptions {
  const { apiKey, tlsCert, tlsKey, tlsCa } = temporal.credentials;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new Error('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together: set both for mTLS, or neither');
  }
  const tls = {
    ...(tlsCert && tlsKey ? { clientCertPair: { crt: readFileSync(tlsCert), key: readFileSync(tlsKey) } } : {}),
    ...(tlsCa ? { serverRootCACertificate: readFileSync(tlsCa) } : {}),
  };
  const secured = Object.keys(tls).length > 0 ? tls : apiKey ? true : undefined;
  return { address: temporal.address, ...(apiKey ? { apiKey } : {}), ...(secured ? { tls: secured } : {}) };
}
