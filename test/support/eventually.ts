/**
 * Polls until `check` returns a value other than undefined, or fails after `timeoutMs`
 * (naming `what` was awaited, when given).
 */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  intervalMs = 100,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`${what} not met within ${timeoutMs} ms`);
}
