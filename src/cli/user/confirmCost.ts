import { CliError } from '../context';
import { canAsk, confirm } from './ask';
import { formatDollars } from '../../shared/money';
import { parseDollarArgument } from './dollarArgument';

export const DEFAULT_CONFIRM_OVER = '1.00';

export interface ConfirmOptions {
  json?: boolean;
  yes?: boolean;
  confirmOver?: string;
}

/**
 * Asks before submitting work estimated above the threshold (--confirm-over, GENMEDIA_CONFIRM_OVER, $1.00); without a
 * terminal, or with --json, refuses unless --yes, and nothing is charged.
 */
export async function confirmCost(what: 'job' | 'batch', costMicroCents: number, options: ConfirmOptions): Promise<void> {
  const threshold = parseDollarArgument(options.confirmOver ?? process.env.GENMEDIA_CONFIRM_OVER ?? DEFAULT_CONFIRM_OVER);
  if (options.yes || costMicroCents <= threshold) return;
  const price = formatDollars(costMicroCents);
  if (!canAsk() || options.json) {
    throw new CliError('CONFIRMATION_REQUIRED', `this ${what} costs ${price}, above ${formatDollars(threshold)}: add --yes to submit it`);
  }
  if (!(await confirm(`This ${what} costs ${price}. Submit it?`))) throw new CliError('NOT_CONFIRMED', 'not submitted');
}
