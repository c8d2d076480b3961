import { adHocRunId } from '@drover/core';
import { ManualClock, testStores } from '@drover/testing';
import { DroverClient } from './drover-client.service';

describe('DroverClient takes its time and its randomness from what it is given (real Redis)', () => {
  const stores = testStores('client-seams');
  afterAll(() => stores.close());

  it("an ad-hoc run's id is made of the backend clock's time and the injected random draws", async () => {
    await stores.registry.put([{ name: 'default' }]);
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    let draw = 0.5;
    const random = () => draw;
    const client = new DroverClient(
      { runs: stores.runs, routines: stores.routines, registry: stores.registry, clock },
      { defaultQueue: 'default', name: 'seams', contracts: new Map(), strictJobTypes: false },
      random,
    );
    const first = await client.enqueue('noop', {});
    expect(first).toBe(adHocRunId(clock.t, () => 0.5));
    clock.advance(1_000);
    draw = 0.25;
    const second = await client.enqueue('noop', {});
    expect(second).toBe(adHocRunId(Date.UTC(2026, 0, 1) + 1_000, () => 0.25));
    expect((await stores.runs.get(second))?.id).toBe(second);
  });
});
