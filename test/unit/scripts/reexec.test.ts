import path from 'node:path';
import { describe, expect, it } from 'vitest';

// scripts/ is plain CommonJS so that it runs before node_modules exist.
const reexec = require('../../../scripts/lib/reexec') as {
  HANDOVER: string;
  decide(version: string, env: NodeJS.ProcessEnv): 'run' | 'reexec';
  takeHandover(env: NodeJS.ProcessEnv): { machineNode: string; installed: boolean } | null;
  envWithNodeFirst(binDir: string, env: NodeJS.ProcessEnv, marker: string): NodeJS.ProcessEnv;
};
const nodeRuntime = require('../../../scripts/lib/nodeRuntime') as { MAJOR: number; VERSION: string; BIN_DIR: string };

describe('the Node that runs scripts/run.js', () => {
  it('runs the command on Node 24 or later', () => {
    expect(reexec.decide('24.0.0', {})).toBe('run');
    expect(reexec.decide(nodeRuntime.VERSION, {})).toBe('run');
    expect(reexec.decide('26.1.0', {})).toBe('run');
    expect(nodeRuntime.VERSION.startsWith(`${nodeRuntime.MAJOR}.`)).toBe(true);
  });

  it('hands an older Node over to the provided one', () => {
    expect(reexec.decide('20.20.2', {})).toBe('reexec');
    expect(reexec.decide('22.22.0', {})).toBe('reexec');
  });

  it('refuses to hand over again from a process that was itself handed over (no loop)', () => {
    expect(() => reexec.decide('20.20.2', { [reexec.HANDOVER]: 'v20.20.2' })).toThrow(/still running on v20\.20\.2/);
  });

  it("puts the provided Node's directory first on PATH, so `node`, npm and shebang scripts run on it", () => {
    const env = reexec.envWithNodeFirst(nodeRuntime.BIN_DIR, { PATH: '/usr/local/bin:/usr/bin', HOME: '/root' }, 'v20.20.2');
    expect(env.PATH!.split(path.delimiter)).toEqual([nodeRuntime.BIN_DIR, '/usr/local/bin', '/usr/bin']);
    expect(env.HOME).toBe('/root');
    expect(env[reexec.HANDOVER]).toBe('v20.20.2');
  });

  it('reads the hand-over once and keeps it from the processes started after it', () => {
    const env: NodeJS.ProcessEnv = { [reexec.HANDOVER]: 'v20.20.2,installed' };
    expect(reexec.takeHandover(env)).toEqual({ machineNode: 'v20.20.2', installed: true });
    expect(env[reexec.HANDOVER]).toBeUndefined();
    expect(reexec.takeHandover(env)).toEqual({ machineNode: 'v20.20.2', installed: true });
  });
});
