/**
 * The probe a destination passes before it is saved: a small object is written under the prefix, read back (delivery
 * verifies each copy the same way) and deleted. Each way it can fail has its own stable error code.
 */
import { randomBytes } from 'node:crypto';
import type * as Minio from 'minio';

export type ProbeProblem =
  | 'DESTINATION_UNREACHABLE'
  | 'DESTINATION_CREDENTIALS_REFUSED'
  | 'DESTINATION_ACCESS_DENIED'
  | 'DESTINATION_BUCKET_NOT_FOUND'
  | 'DESTINATION_PROBE_FAILED';

export type ProbeOperation = 'write' | 'read' | 'delete';

export type ProbeResult =
  | { ok: true }
  | { ok: false; problem: ProbeProblem; operation: ProbeOperation; reason: string; s3Code?: string };

const CREDENTIAL_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'InvalidSecurity']);
const BUCKET_CODES = new Set(['NoSuchBucket']);
const DENIED_CODES = new Set(['AccessDenied', 'AllAccessDisabled', 'Forbidden']);

/** The probe object's key: under the prefix, random so two probes never meet. */
export function probeKey(prefix: string): string {
  return `${prefix}.genmedia-probe-${randomBytes(8).toString('hex')}`;
}

export async function probeDestination(client: Minio.Client, bucket: string, prefix: string): Promise<ProbeResult> {
  const key = probeKey(prefix);
  const body = Buffer.from('genmedia destination probe\n');
  let operation: ProbeOperation = 'write';
  try {
    await client.putObject(bucket, key, body, body.length, { 'Content-Type': 'text/plain' });
    operation = 'read';
    const stat = await client.statObject(bucket, key);
    if (stat.size !== body.length) {
      return { ok: false, problem: 'DESTINATION_PROBE_FAILED', operation, reason: `the probe object reads back as ${stat.size} bytes, not ${body.length}` };
    }
    operation = 'delete';
    await client.removeObject(bucket, key);
    return { ok: true };
  } catch (err) {
    return classify(err, operation);
  }
}

function classify(err: unknown, operation: ProbeOperation): ProbeResult & { ok: false } {
  const s3Code = (err as { code?: unknown } | null)?.code;
  // Anything but an answer of the endpoint (refused or reset connections, DNS, TLS, the probe's deadline).
  if ((err as { name?: string } | null)?.name !== 'S3Error') {
    const cause = typeof s3Code === 'string' ? s3Code : (err as Error)?.message ?? String(err);
    return { ok: false, problem: 'DESTINATION_UNREACHABLE', operation, reason: `the endpoint could not be reached (${cause})` };
  }
  const code = String(s3Code);
  if (CREDENTIAL_CODES.has(code)) {
    return { ok: false, problem: 'DESTINATION_CREDENTIALS_REFUSED', operation, s3Code: code, reason: `the endpoint refused the access key id or secret (${code})` };
  }
  if (BUCKET_CODES.has(code)) {
    return { ok: false, problem: 'DESTINATION_BUCKET_NOT_FOUND', operation, s3Code: code, reason: `the bucket does not exist (${code})` };
  }
  if (DENIED_CODES.has(code)) {
    return { ok: false, problem: 'DESTINATION_ACCESS_DENIED', operation, s3Code: code, reason: `the bucket's policy does not allow the probe to ${operation} (${code})` };
  }
  return { ok: false, problem: 'DESTINATION_PROBE_FAILED', operation, s3Code: code, reason: `the endpoint answered the probe's ${operation} with ${code}` };
}
