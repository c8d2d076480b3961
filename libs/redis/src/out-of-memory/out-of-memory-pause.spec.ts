import { EventEmitter } from 'node:events';
import { OutOfMemoryPause, retryWhileRedisFull } from './out-of-memory-pause';

const refusal = () =>
  new Error("OOM command not allowed when used memory > 'maxmemory'. script: 5ab4, on @user_script:1.");

/** What a BullMQ Worker shows the pause: its error events, pause and resume. */
class FakeConsumer extends EventEmitter {
  closing: Promise<void> | undefined = undefined;
  paused = 0;
  resumed = 0;
  private onResume?: () => void;
  async pause(): Promise<void> {
    this.paused++;
  }
  resume(): void {
    this.resumed++;
    this.onResume?.();
  }
  nextResume(): Promise<void> {
    return new Promise((resolve) => (this.onResume = resolve));
  }
}

describe('OutOfMemoryPause', () => {
  it('pauses fetching once per refusal spell, resumes after the pause, and warns once for many refusals', async () => {
    const consumer = new FakeConsumer();
    const warnings: number[] = [];
    const other: string[] = [];
    const pause = new OutOfMemoryPause(consumer, (f) => warnings.push(f.refusals), { pauseMs: 5 }).attach((err) =>
      other.push(err.message),
    );
    const resumed = consumer.nextResume();
    for (let i = 0; i < 100; i++) consumer.emit('error', refusal());
    consumer.emit('error', new Error('ERR something else'));
    expect({ paused: consumer.paused, holding: pause.holding, warnings, other }).toEqual({
      paused: 1,
      holding: true,
      warnings: [1],
      other: ['ERR something else'],
    });
    await resumed;
    await new Promise((resolve) => setImmediate(resolve));
    expect({ resumed: consumer.resumed, holding: pause.holding }).toEqual({ resumed: 1, holding: false });
    consumer.emit('error', refusal());
    expect({ paused: consumer.paused, warnings }).toEqual({ paused: 2, warnings: [1] });
  });

  it('does not pause or resume a consumer that is closing', async () => {
    const consumer = new FakeConsumer();
    consumer.closing = Promise.resolve();
    const pause = new OutOfMemoryPause(consumer, () => undefined, { pauseMs: 1 });
    expect(pause.handle(refusal())).toBe(true);
    expect(consumer.paused).toBe(0);
  });
});

describe('retryWhileRedisFull', () => {
  it('asks again while Redis refuses, and answers the first real answer', async () => {
    let calls = 0;
    const answer = await retryWhileRedisFull(
      async () => (++calls < 3 ? Promise.reject(refusal()) : 'start'),
      100,
      undefined,
      1,
    );
    expect({ answer, calls }).toEqual({ answer: 'start', calls: 3 });
  });

  it("answers 'redis-full' once its time is up, and lets other errors through", async () => {
    let calls = 0;
    const full = await retryWhileRedisFull(() => (calls++, Promise.reject(refusal())), 3, undefined, 1);
    expect({ full, calls }).toEqual({ full: 'redis-full', calls: 4 });
    await expect(retryWhileRedisFull(() => Promise.reject(new Error('ERR other')), 100)).rejects.toThrow('ERR other');
  });
});
