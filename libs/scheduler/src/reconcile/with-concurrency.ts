/** Runs `fn` over `items` with at most `limit` calls outstanding (a new one starts as soon as one ends). */
export async function withConcurrency<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * Runs `write` over `items` with at most `inFlight` outstanding, and `record` for each run of
 * `chunk` items once every write of it is done, while the lanes go on with the next chunks (waiting
 * for a chunk's slowest write would leave Redis idle). After a failed write or a refused record no
 * lane starts another write or record, and the failure is what this throws; every record started
 * is awaited first, and a refused record is what the caller hears.
 */
export async function writeInChunks<T>(
  items: T[],
  opts: { inFlight: number; chunk: number; write: (item: T) => Promise<void>; record: (chunk: T[]) => Promise<void> },
): Promise<void> {
  const { inFlight, chunk: size } = opts;
  const left: number[] = [];
  for (let i = 0; i < items.length; i += size) left.push(Math.min(size, items.length - i));
  const recorded: Promise<void>[] = [];
  let failed = false;
  const order = items.map((item, i) => ({ item, chunk: Math.floor(i / size) }));
  const lanes = withConcurrency(order, inFlight, async ({ item, chunk }) => {
    if (failed) return;
    await opts.write(item).catch((err: unknown) => {
      failed = true;
      throw err;
    });
    if (--left[chunk]! > 0 || failed) return;
    const record = opts.record(items.slice(chunk * size, (chunk + 1) * size));
    record.catch(() => (failed = true));
    recorded.push(record);
  });
  const failure = await lanes.then(
    () => undefined,
    (err: unknown) => ({ err }),
  );
  const refused = (await Promise.allSettled(recorded)).find((o) => o.status === 'rejected');
  if (refused) throw refused.reason;
  if (failure) throw failure.err;
}
