import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../config';
import { createPrisma, type PrismaClient } from '../db/prisma';

/** Thrown by commands for an expected failure (unknown id, bad value): printed without a stack trace. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface OutputOptions {
  json?: boolean;
}

/** Runs a command body with a PrismaClient and prints its result: one JSON object with --json, text otherwise. */
export async function runCommand<T extends object>(
  options: OutputOptions,
  body: (prisma: PrismaClient) => Promise<T>,
  human: (result: T) => string,
): Promise<void> {
  const prisma = createPrisma(loadConfig().database.url, { poolSize: 2 });
  try {
    const result = await body(prisma);
    process.stdout.write(options.json ? JSON.stringify(result) + '\n' : human(result) + '\n');
  } catch (err) {
    const code = err instanceof CliError ? err.code : 'ERROR';
    const message = err instanceof Error ? err.message : String(err);
    if (options.json) process.stdout.write(JSON.stringify({ error: { code, message } }) + '\n');
    else process.stderr.write(`error: ${message}\n`);
    process.exitCode = 1;
  } finally {
    await prisma.$disconnect();
  }
}

export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function parseNonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a non-negative integer');
  return Number(value);
}

export function parseMicroCents(value: string): bigint {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected an integer amount of micro-cents');
  return BigInt(value);
}

/** A signed amount of micro-cents (a grant may take credits back). */
export function parseSignedMicroCents(value: string): number {
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('expected an integer amount of micro-cents');
  return Number(value);
}

/** A spend limit in micro-cents, or `none` to remove it (commander cannot hold a null option value). */
export function parseLimit(value: string): number | 'none' {
  if (value === 'none') return 'none';
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('expected micro-cents, or none');
  return Number(value);
}

/** The spend limits given as options, as the API takes them: `none` removes a limit, an absent option keeps it. */
export function spendLimitOptions(opts: { dailyLimit?: number | 'none'; monthlyLimit?: number | 'none' }) {
  if (opts.dailyLimit === undefined && opts.monthlyLimit === undefined) return undefined;
  const limit = (value: number | 'none' | undefined) => (value === 'none' ? null : value);
  return { dailyMicroCents: limit(opts.dailyLimit), monthlyMicroCents: limit(opts.monthlyLimit) };
}

/** The first `count` items of a paged listing, reading no page more than needed. */
export async function firstItems<T>(items: AsyncIterable<T>, count: number): Promise<T[]> {
  const taken: T[] = [];
  if (count <= 0) return taken;
  for await (const item of items) {
    taken.push(item);
    if (taken.length >= count) break;
  }
  return taken;
}

/** The page size to ask for when `count` items are wanted (the API's pages hold 1-100). */
export function pageSizeFor(count: number): number {
  return Math.min(100, Math.max(1, count));
}
