import { describe, expect, it } from 'vitest';
const { humanLogLine } = require('../../../scripts/lib/logLine') as { humanLogLine: (line: string) => string };

describe('dev terminal log lines', () => {
  it('renders a pino line as time, level, message and fields', () => {
    const line = JSON.stringify({ level: 40, time: '2026-11-22T03:37:43.137Z', pid: 1, component: 'api', requestId: 'req_1', status: 503, msg: 'request' });
    expect(humanLogLine(line)).toBe('03:37:43.137 warn  request requestId=req_1 status=503');
  });

  it('keeps the first line of a multi-line message and shortens long fields', () => {
    const line = JSON.stringify({ level: 30, time: '2026-11-22T00:00:00.000Z', msg: 'bundle\nwebpack details', detail: 'x'.repeat(500) });
    const out = humanLogLine(line);
    expect(out.startsWith('00:00:00.000 info  bundle detail=')).toBe(true);
    expect(out).not.toContain('webpack');
    expect(out.length).toBeLessThan(220);
  });

  it('passes anything else through unchanged', () => {
    expect(humanLogLine('[genmedia] ok postgres ready')).toBe('[genmedia] ok postgres ready');
    expect(humanLogLine('{"level": broken')).toBe('{"level": broken');
  });
});
