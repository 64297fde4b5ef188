/**
 * How many verifications run at once: a file's manifest is parsed by native code whose cost depends on the file, so
 * one API process runs at most `perProcess` of them and one account at most `perAccount`, each within `timeLimitMs`.
 */
export interface VerificationLimits {
  perProcess: number;
  perAccount: number;
  timeLimitMs: number;
}

export const VERIFICATION_LIMITS: VerificationLimits = { perProcess: 4, perAccount: 2, timeLimitMs: 30_000 };

/** A verification refused before it started: the account's share or the process's is taken. */
export class VerificationsBusy extends Error {
  constructor(
    readonly scope: 'account' | 'process',
    readonly max: number,
  ) {
    super(scope === 'account' ? `this account already has ${max} verifications running` : `this API process already runs ${max} verifications`);
    this.name = 'VerificationsBusy';
  }
}

export interface VerificationGate {
  /** A slot for one verification of `accountId`, released by the function answered; throws VerificationsBusy. */
  admit(accountId: string): () => void;
}

export function createVerificationGate(limits: Pick<VerificationLimits, 'perProcess' | 'perAccount'>): VerificationGate {
  let running = 0;
  const byAccount = new Map<string, number>();
  return {
    admit(accountId) {
      const ofAccount = byAccount.get(accountId) ?? 0;
      if (ofAccount >= limits.perAccount) throw new VerificationsBusy('account', limits.perAccount);
      if (running >= limits.perProcess) throw new VerificationsBusy('process', limits.perProcess);
      running += 1;
      byAccount.set(accountId, ofAccount + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        running -= 1;
        const left = (byAccount.get(accountId) ?? 1) - 1;
        if (left > 0) byAccount.set(accountId, left);
        else byAccount.delete(accountId);
      };
    },
  };
}
