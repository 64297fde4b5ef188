/** The namespace retention the project configures, and the one a running Temporal actually has (DescribeNamespace). */
import { createRequire } from 'node:module';
import { Connection } from '@temporalio/client';

const { namespaceRetention } = createRequire(__filename)('../../scripts/lib/temporalRetention.js') as {
  namespaceRetention(env?: NodeJS.ProcessEnv): { text: string; seconds: number };
};

/** TEMPORAL_NAMESPACE_RETENTION as the scripts read it (`npm test` sets it to what its Temporal was given). */
export function configuredRetention(env: NodeJS.ProcessEnv = process.env): { text: string; seconds: number } {
  return namespaceRetention(env);
}

/** The retention of closed workflows of `namespace` on the Temporal at `address`, in seconds. */
export async function describedRetentionSeconds(address: string, namespace: string): Promise<number> {
  const connection = await Connection.connect({ address });
  try {
    const described = await connection.workflowService.describeNamespace({ namespace });
    const ttl = described.config?.workflowExecutionRetentionTtl;
    return Number(ttl?.seconds ?? 0) + Math.round((ttl?.nanos ?? 0) / 1e9);
  } finally {
    await connection.close();
  }
}
