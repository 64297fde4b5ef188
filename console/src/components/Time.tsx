import { formatTime } from '../format';

/** An instant as people read it, with the exact one for machines. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return <time dateTime={iso}>{formatTime(iso)}</time>;
}
