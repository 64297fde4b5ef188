import { createInterface } from 'node:readline/promises';

/** True when the user can be asked: both ends are a terminal. */
export function canAsk(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** Asks a yes/no question on the terminal; anything but y/yes (or Ctrl-C, end of input) is no. */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const interrupted = new Promise<string>((resolve) => rl.once('SIGINT', () => resolve('')));
  const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
  try {
    const answer = await Promise.race([rl.question(`${question} [y/N] `), interrupted, closed]);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
