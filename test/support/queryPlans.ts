/**
 * What one query reads, from PostgreSQL's own account of it (EXPLAIN ANALYZE): the rows its scans touched
 * (returned, or read and thrown away by a filter), the indexes it used, and its execution time.
 */
import type { ClientBase } from 'pg';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Heap Fetches'?: number;
  Plans?: PlanNode[];
}

export interface QueryReading {
  rowsRead: number;
  indexes: string[];
  /** 'Seq Scan' when a scan read the table without an index. */
  scans: string[];
  /** Rows index-only scans still looked up in the table (those not known all-visible). */
  heapFetches: number;
  executionMs: number;
}

/** Scans that read table rows; a bitmap index scan only collects positions that its heap scan then reads. */
const ROW_SCANS = new Set(['Seq Scan', 'Index Scan', 'Index Only Scan', 'Bitmap Heap Scan']);

function walk(node: PlanNode, reading: QueryReading): void {
  if (ROW_SCANS.has(node['Node Type'])) {
    const perLoop = (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
    reading.rowsRead += perLoop * (node['Actual Loops'] ?? 1);
    reading.scans.push(node['Node Type']);
  }
  reading.heapFetches += node['Heap Fetches'] ?? 0;
  if (node['Index Name']) reading.indexes.push(node['Index Name']);
  for (const child of node.Plans ?? []) walk(child, reading);
}

export async function explainQuery(pg: ClientBase, query: { text: string; values: unknown[] }): Promise<QueryReading> {
  const { rows } = await pg.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>({
    text: `EXPLAIN (ANALYZE, FORMAT JSON) ${query.text}`,
    values: query.values,
  });
  const [{ Plan, 'Execution Time': executionMs }] = rows[0]!['QUERY PLAN'];
  const reading: QueryReading = { rowsRead: 0, indexes: [], scans: [], heapFetches: 0, executionMs };
  walk(Plan, reading);
  return reading;
}
