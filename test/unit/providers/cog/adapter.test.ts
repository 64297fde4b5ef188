/**
 * The Cog adapter's decisions, with a scripted transport and an in-memory store: which server gets a prediction,
 * and what a status check concludes when the completed webhook has not come (the real server is in test/system/cog).
 */
import { describe, expect, it } from 'vitest';
import { createCogAdapter } from '../../../../src/providers/cog';
import type { CogLease, CogPredictionRecord, CogPredictionStore, CogServer } from '../../../../src/providers/cog/store';
import type { CogHealth, CogTransport } from '../../../../src/providers/cog/transport';
import type { CogPrediction } from '../../../../src/providers/cog/predictions';
import type { TenantUrlRules } from '../../../../src/providers/cog/inputFiles';
import type { InputFile } from '../../../../src/providers/types';
import type { Resolver } from '../../../../src/net/addressGuard';

function memoryStore(servers: CogServer[]) {
  const rows = new Map<string, CogPredictionRecord & { expiresAt: Date }>();
  const store: CogPredictionStore = {
    async servers() {
      return servers;
    },
    async lease(lease: CogLease) {
      const held = [...rows.values()].filter((r) => r.serverUrl === lease.serverUrl && !r.released && r.id !== lease.id).length;
      if (held >= lease.slots) return false;
      rows.set(lease.id, { id: lease.id, providerId: lease.providerId, serverUrl: lease.serverUrl, secretHash: lease.secretHash, terminal: false, released: false, expiresAt: lease.expiresAt, ...(lease.serverStartedAt ? { serverStartedAt: lease.serverStartedAt } : {}) });
      return true;
    },
    async find(id) {
      const row = rows.get(id);
      return row ? { ...row } : null;
    },
    async recordWebhook(id, snapshot, terminal) {
      const row = rows.get(id);
      if (!row || row.terminal) return false;
      Object.assign(row, { snapshot, terminal, released: row.released || terminal });
      return true;
    },
    async markMissing(id, at) {
      const row = rows.get(id)!;
      row.missingSince ??= at;
      return row.missingSince;
    },
    async release(id) {
      const row = rows.get(id);
      if (row) row.released = true;
    },
  };
  return { store, rows };
}

interface Script {
  health: Record<string, CogHealth | undefined>;
  probe?: CogPrediction | 'absent';
  creates: string[];
  cancels: string[];
  /** The body of each create, in order. */
  sent?: Record<string, unknown>[];
}

function scriptedTransport(script: Script): CogTransport {
  return {
    async health(server) {
      return script.health[server];
    },
    async create(server, id, body) {
      script.creates.push(server);
      script.sent?.push(body);
      return { id, status: 'starting' };
    },
    async probe() {
      return script.probe ?? 'absent';
    },
    async cancel(server) {
      script.cancels.push(server);
    },
    async openapi() {
      return undefined;
    },
  };
}

const A = 'http://a.test:5000';
const B = 'http://b.test:5000';
const submission = (jobId: string) => ({
  jobId,
  providerId: 'gpus',
  modelSlug: 'gpus/painter/text-to-image',
  capability: 'text-to-image',
  versionId: 'v1',
  input: { prompt: 'x' },
  callbackUrl: 'http://api.test/v1/upstreams/cog/callback',
  deadline: new Date(Date.now() + 60_000),
});
const never = new AbortController().signal;

function setUp(options: { servers?: CogServer[]; health?: Script['health']; graceMs?: number; tenantUrls?: TenantUrlRules } = {}) {
  let clock = 1_000_000;
  const script: Script = { health: options.health ?? { [A]: { status: 'READY', startedAt: 's1' }, [B]: { status: 'READY', startedAt: 's1' } }, creates: [], cancels: [], sent: [] };
  const { store, rows } = memoryStore(options.servers ?? [{ url: A, slots: 1 }, { url: B, slots: 1 }]);
  const adapter = createCogAdapter({
    providerId: 'gpus',
    store,
    transport: scriptedTransport(script),
    slotWaitMs: 1_000,
    missingGraceMs: options.graceMs ?? 5_000,
    ...(options.tenantUrls ? { tenantUrls: options.tenantUrls } : {}),
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
    },
  });
  return { adapter, script, rows, advance: (ms: number) => (clock += ms) };
}

describe('choosing a server', () => {
  it('fills each server up to its slots, skips servers that are not READY, and gives up when none has a slot', async () => {
    const { adapter, script } = setUp({ health: { [A]: { status: 'READY' }, [B]: { status: 'SETUP_FAILED' } } });
    expect((await adapter.submit(submission('job_1'), never)).state).toBe('queued');
    await expect(adapter.submit(submission('job_2'), never)).rejects.toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true });
    expect(script.creates).toEqual([A]);
  });

  it('sends the second job to the second server', async () => {
    const { adapter, script } = setUp();
    await adapter.submit(submission('job_1'), never);
    await adapter.submit(submission('job_2.2'), never);
    expect(script.creates).toEqual([A, B]);
  });
});

describe('a status check without the completed webhook', () => {
  it('follows the live prediction while its server runs it', async () => {
    const { adapter, script } = setUp();
    await adapter.submit(submission('job_1'), never);
    script.probe = { id: 'job_1', status: 'processing', logs: 'step 3/4\n' };
    expect(await adapter.status({ id: 'job_1' }, never)).toMatchObject({ state: 'running', progress: 75, stage: 'step 3/4' });
  });

  it('takes the kept webhook as the outcome, whatever the server says', async () => {
    const { adapter, rows } = setUp();
    await adapter.submit(submission('job_1'), never);
    rows.get('job_1')!.snapshot = { id: 'job_1', status: 'succeeded', output: 'data:image/png;base64,AA==' };
    rows.get('job_1')!.terminal = true;
    expect(await adapter.status({ id: 'job_1' }, never)).toMatchObject({ state: 'succeeded', result: 'data:image/png;base64,AA==' });
  });

  it('fails a prediction at once when its server restarted or broke, and frees the slot', async () => {
    for (const health of [{ status: 'READY', startedAt: 's2' }, { status: 'UNHEALTHY', startedAt: 's1' }]) {
      const { adapter, script, rows } = setUp();
      await adapter.submit(submission('job_1'), never);
      script.health[A] = health;
      expect(await adapter.status({ id: 'job_1' }, never)).toMatchObject({ state: 'failed', error: { code: 'PROVIDER_UNAVAILABLE' } });
      expect(rows.get('job_1')!.released).toBe(true);
    }
  });

  it('waits the grace period for a late webhook, then fails a prediction its server no longer runs', async () => {
    const { adapter, rows, advance } = setUp({ graceMs: 5_000 });
    await adapter.submit(submission('job_1'), never);
    expect((await adapter.status({ id: 'job_1' }, never)).state).toBe('running');
    advance(4_000);
    expect((await adapter.status({ id: 'job_1' }, never)).state).toBe('running');
    advance(1_000);
    expect(await adapter.status({ id: 'job_1' }, never)).toMatchObject({ state: 'failed', error: { code: 'PROVIDER_UNAVAILABLE' } });
    expect(rows.get('job_1')!.released).toBe(true);
  });

  it('treats an unreachable server the same way, and sends no cancel for a prediction given up', async () => {
    const { adapter, script, rows, advance } = setUp({ graceMs: 1_000 });
    await adapter.submit(submission('job_1'), never);
    script.health[A] = undefined;
    expect((await adapter.status({ id: 'job_1' }, never)).state).toBe('running');
    advance(1_000);
    expect(await adapter.status({ id: 'job_1' }, never)).toMatchObject({ state: 'failed', error: { code: 'PROVIDER_UNAVAILABLE' } });
    await adapter.cancel({ id: 'job_1' }, never);
    expect(script.cancels).toEqual([]);
    expect(rows.get('job_1')!.released).toBe(true);
  });
});

describe("a tenant's files and URLs", () => {
  const file = (url: string, contentType: string, data: Buffer, own = false): InputFile => ({ url, own, read: async () => ({ data, contentType, filename: 'f' }) });
  const dns: Resolver = async (hostname) => {
    const table: Record<string, string> = { 'images.example.com': '93.184.216.34', 'rebind.example': '10.0.0.7', 'meta.example': '169.254.169.254' };
    if (!table[hostname]) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return [{ address: table[hostname], family: 4 }];
  };

  it('hands each file over as a data: URI of its bytes: an upload of ours or a URL fetched through the guard alike', async () => {
    const { adapter } = setUp();
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    expect(await adapter.prepareFile!(file('http://api.test/v1/files/file_1', 'image/png', png, true), never)).toBe(`data:image/png;base64,${png.toString('base64')}`);
    expect(await adapter.prepareFile!(file('https://images.example.com/v.mp4', 'video/mp4', Buffer.from('mp4')), never)).toBe('data:video/mp4;base64,bXA0');
  });

  it.each([
    ['not media', 'text/html', 10],
    ['a type that would break the URI', 'image/png,x', 10],
    ['an image over the 10 MB image limit', 'image/png', 10_000_001],
  ])('refuses a file that is %s, saying only that it could not be fetched', async (_what, contentType, size) => {
    const { adapter } = setUp();
    const url = 'https://images.example.com/a';
    await expect(adapter.prepareFile!(file(url, contentType, Buffer.alloc(size)), never)).rejects.toMatchObject({
      code: 'INPUT_FETCH_FAILED',
      retryable: false,
      message: `input file ${url} could not be fetched`,
    });
  });

  it.each(['http://127.0.0.1:8080/x.png', 'https://169.254.169.254/latest/meta-data/', 'https://rebind.example/a.png', 'https://meta.example/', 'http://[::1]/'])(
    'sends no server a URL left in a field not known as a file when the guard refuses it: %s',
    async (url) => {
      const { adapter, script } = setUp({ tenantUrls: { allowPrivate: false, resolve: dns } });
      await expect(adapter.submit({ ...submission('job_1'), input: { prompt: 'x', image: url } }, never)).rejects.toMatchObject({
        code: 'INPUT_FETCH_FAILED',
        retryable: false,
        message: `input file ${url} could not be fetched`,
      });
      expect(script.creates).toEqual([]);
    },
  );

  it('passes on a URL the guard would fetch, and a data: URI', async () => {
    const { adapter, script } = setUp({ tenantUrls: { allowPrivate: false, resolve: dns } });
    const input = { prompt: 'see https://x', image: 'https://images.example.com/a.png', mask: 'data:image/png;base64,AA==' };
    await adapter.submit({ ...submission('job_1'), input }, never);
    expect(script.sent?.[0]).toMatchObject({ input });
  });
});

describe('servers the guard refuses', () => {
  it('fails a job at once, without a request, when every server of the provider is on a network that is not allowed', async () => {
    const { adapter, script } = setUp({ health: { [A]: { status: 'REFUSED' }, [B]: { status: 'REFUSED' } } });
    await expect(adapter.submit(submission('job_1'), never)).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: false, message: /COG_ALLOWED_NETWORKS/ });
    expect(script.creates).toEqual([]);
  });

  it('uses the servers that are allowed', async () => {
    const { adapter, script } = setUp({ health: { [A]: { status: 'REFUSED' }, [B]: { status: 'READY' } } });
    await adapter.submit(submission('job_1'), never);
    expect(script.creates).toEqual([B]);
  });

  it('gives up a prediction whose server has left the allowed networks', async () => {
    const { adapter, script, rows } = setUp();
    await adapter.submit(submission('job_1'), never);
    script.health[A] = { status: 'REFUSED' };
    expect(await adapter.status({ id: 'job_1' }, never)).toMatchObject({ state: 'failed', error: { code: 'PROVIDER_UNAVAILABLE' } });
    expect(rows.get('job_1')!.released).toBe(true);
  });
});
