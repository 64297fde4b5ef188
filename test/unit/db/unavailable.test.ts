import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../../src/db/unavailable';

describe('isDatabaseUnavailable', () => {
  it('recognises PostgreSQL restarting or unreachable, also wrapped by the driver adapter', () => {
    expect(isDatabaseUnavailable(new Error('terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '57P03' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('DriverAdapterError'), { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('the database system is starting up'))).toBe(true);
  });

  it('recognises the connection closed under Prisma during a restart (seen in the chaos run)', () => {
    const prismaError = Object.assign(new Error('Invalid `prisma.$executeRaw()` invocation:\n\nRaw query failed. Code: `N/A`. Message: `Server has closed the connection.`'), {
      code: 'P1017',
    });
    expect(isDatabaseUnavailable(prismaError)).toBe(true);
    expect(isDatabaseUnavailable(new Error('Raw query failed. Message: `Server has closed the connection.`'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: 'P1001' }))).toBe(true);
  });

  it('leaves other errors alone', () => {
    expect(isDatabaseUnavailable(new Error('duplicate key value violates unique constraint'))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
