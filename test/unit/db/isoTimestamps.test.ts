import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ISO_TIMESTAMPS, timestamptzAsIso } from '../../../src/db/isoTimestamps';

/** What the listing answered before: node-postgres's Date, written by toISOString. */
const throughDate = (text: string) => (pg.types.getTypeParser(1184, 'text') as (text: string) => Date)(text).toISOString();

describe('timestamptzAsIso', () => {
  it('writes a UTC timestamptz as toISOString writes the same instant, whatever its fraction', () => {
    for (const text of [
      '2026-01-01 00:00:00+00',
      '2026-01-01 12:34:56.5+00',
      '2026-01-01 12:34:56.05+00',
      '2026-01-01 12:34:56.12+00',
      '2026-01-01 12:34:56.123+00',
      '2026-01-01 12:34:56.001+00',
      '1999-12-31 23:59:59.999+00',
      '0001-01-01 00:00:00+00',
      '9999-12-31 23:59:59.9+00',
    ]) {
      expect(timestamptzAsIso(text), text).toBe(throughDate(text));
    }
    expect(timestamptzAsIso('2026-01-01 12:34:56.5+00')).toBe('2026-01-01T12:34:56.500Z');
    expect(timestamptzAsIso('2026-01-01 00:00:00+00')).toBe('2026-01-01T00:00:00.000Z');
  });

  it('reads every other form through the Date, so the answer is the same', () => {
    for (const text of [
      '2026-01-01 13:34:56.5+01',
      '2026-01-01 18:04:56.123+05:30',
      '2026-01-01 07:34:56-05',
      '2026-01-01 12:34:56.123456+00',
      '2026-01-01 12:34:56.1234+00',
      '0044-03-15 12:00:00+00 BC',
      '12026-01-01 00:00:00+00',
    ]) {
      expect(timestamptzAsIso(text), text).toBe(throughDate(text));
    }
    expect(() => timestamptzAsIso('infinity')).toThrow();
  });

  it('is the timestamptz parser of ISO_TIMESTAMPS, every other type keeps its own', () => {
    expect(ISO_TIMESTAMPS.getTypeParser(1184, 'text')).toBe(timestamptzAsIso);
    expect(ISO_TIMESTAMPS.getTypeParser(20, 'text')).toBe(pg.types.getTypeParser(20, 'text'));
    expect(ISO_TIMESTAMPS.getTypeParser(1114, 'text')).toBe(pg.types.getTypeParser(1114, 'text'));
  });
});
