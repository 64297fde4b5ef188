/**
 * Histories are stored as protobuf.js plain objects (int64 and bytes as strings, enums by name):
 * readable, diffable, and loaded without the proto-JSON converter.
 */
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

const OBJECT_OPTIONS = { longs: String, enums: String, bytes: String } as const;

export function historyToObject(history: History): Record<string, unknown> {
  return temporal.api.history.v1.History.toObject(temporal.api.history.v1.History.fromObject(history), OBJECT_OPTIONS);
}

export function historyFromObject(object: unknown): temporal.api.history.v1.History {
  return temporal.api.history.v1.History.fromObject(object as Record<string, unknown>);
}
