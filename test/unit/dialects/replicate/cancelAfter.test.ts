import { describe, expect, it } from 'vitest';
import { cancelAfterSeconds } from '../../../../src/dialects/replicate/cancelAfter';
import { DomainError } from '../../../../src/shared/errors';

describe('the Cancel-After header', () => {
  it('reads the durations Replicate takes, rounded up to whole seconds', () => {
    expect(cancelAfterSeconds(undefined)).toBeUndefined();
    expect(cancelAfterSeconds('1m')).toBe(60);
    expect(cancelAfterSeconds('30s')).toBe(30);
    expect(cancelAfterSeconds('1h30m')).toBe(5400);
    expect(cancelAfterSeconds('1.5s')).toBe(2);
    expect(cancelAfterSeconds('500ms')).toBe(1);
    expect(cancelAfterSeconds(' 45 ')).toBe(45);
  });

  it('refuses what is no duration, nothing, or more than a week, as a VALIDATION_ERROR naming the header', () => {
    for (const header of ['', 'soon', '5 minutes', '0s', '-1s', '1d', '169h']) {
      let thrown: unknown;
      try {
        cancelAfterSeconds(header);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, header).toBeInstanceOf(DomainError);
      expect(thrown, header).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'Cancel-After' }] });
    }
  });
});
