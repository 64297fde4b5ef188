/**
 * A real terminal for CLI tests: a command in a detached tmux session on a private server, read back with
 * `capture-pane` and driven with `send-keys`, as a person at a keyboard would see and type.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TerminalOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  width?: number;
  height?: number;
}

export class Terminal {
  private constructor(
    private readonly socket: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Starts `argv` in a new terminal; when it exits the pane shows `[exit <code>]` and stays for reading. */
  static async start(argv: string[], options: TerminalOptions): Promise<Terminal> {
    const socket = `genmedia-test-${randomUUID()}`;
    const env = { ...options.env, TERM: 'xterm-256color' };
    const terminal = new Terminal(socket, env);
    // The shell survives Ctrl-C (a trap, which the command does not inherit) to print the command's exit code.
    const script = `trap : INT; ${argv.map(shellQuote).join(' ')}; echo "[exit $?]"; sleep 3600`;
    await terminal.tmux(
      'new-session', '-d', '-s', 'cli', '-x', String(options.width ?? 140), '-y', String(options.height ?? 30), '-c', options.cwd, 'sh', '-c', script,
    );
    return terminal;
  }

  /** What the screen shows now. */
  async screen(): Promise<string> {
    return (await this.tmux('capture-pane', '-p', '-t', 'cli')).stdout;
  }

  /** Keys as tmux names them: 'C-c', 'Enter', or literal text. */
  async press(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', 'cli', ...keys);
  }

  /** Resolves with the screen once `pattern` shows on it; fails with the last screen after `timeoutMs`. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = await this.screen();
      if (pattern.test(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`terminal never showed ${pattern}; it shows:\n${last}`);
  }

  async close(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
  }

  private tmux(...args: string[]) {
    return run('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { env: this.env });
  }
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
