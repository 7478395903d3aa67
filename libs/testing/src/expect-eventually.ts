/**
 * Polls an assertion until it passes or the timeout elapses; the last failure is
 * rethrown. Integration tests wait on observable state this way, never on sleeps.
 */
export async function expectEventually<T>(
  assertion: () => T | Promise<T>,
  { timeoutMs = 15_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
