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
