export default async function globalTeardown(): Promise<void> {
  await globalThis.__DROVER_TEST_REDIS__?.stop();
  globalThis.__DROVER_TEST_REDIS__ = undefined;
}
