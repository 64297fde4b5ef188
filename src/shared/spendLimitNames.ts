/** The spend limits an account and its keys may set: per UTC day and per UTC month, each for the account and the key. */
export const SPEND_LIMITS = ['account_daily', 'account_monthly', 'key_daily', 'key_monthly'] as const;
export type SpendLimitName = (typeof SPEND_LIMITS)[number];
