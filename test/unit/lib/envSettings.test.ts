import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listSettings, readSettings, setting } from '../../../src/lib/envSettings';

const TREE = {
  name: setting('APP_NAME', z.string().default('app'), 'the name'),
  http: {
    port: setting('APP_PORT', z.coerce.number().int().min(0).max(65535).default(3000), 'the port'),
    origins: setting(
      'APP_ORIGINS',
      z
        .string()
        .default('')
        .transform((raw) => raw.split(',').filter(Boolean)),
      'the origins',
      { default: 'empty' },
    ),
    limits: { bodyBytes: setting('APP_BODY_BYTES', z.coerce.number().int().positive().optional(), 'the body limit') },
  },
};

describe('readSettings', () => {
  it('fills the fields of the tree from their variables, with the declared defaults', () => {
    const { values, problems } = readSettings(TREE, { APP_PORT: '8080', APP_ORIGINS: 'a,b', UNRELATED: 'x' });
    expect(problems).toEqual([]);
    expect(values).toEqual({ name: 'app', http: { port: 8080, origins: ['a', 'b'], limits: { bodyBytes: undefined } } });
    const typed: { name: string; http: { port: number; origins: string[]; limits: { bodyBytes: number | undefined } } } = values;
    expect(typed.http.limits).toHaveProperty('bodyBytes');
  });

  it('names every variable that holds a wrong value, with what is wrong', () => {
    const { problems } = readSettings(TREE, { APP_PORT: '70000', APP_BODY_BYTES: 'lots' });
    expect(problems.map((p) => p.variable)).toEqual(['APP_PORT', 'APP_BODY_BYTES']);
    expect(problems[0].message).toMatch(/<=65535/);
    expect(problems[1].message).toMatch(/expected number/);
  });
});

describe('listSettings', () => {
  it('lists each setting with the field it fills, in declaration order', () => {
    expect(listSettings(TREE).map(({ field, setting: s }) => [field, s.variable])).toEqual([
      ['name', 'APP_NAME'],
      ['http.port', 'APP_PORT'],
      ['http.origins', 'APP_ORIGINS'],
      ['http.limits.bodyBytes', 'APP_BODY_BYTES'],
    ]);
  });
});
