import type { QueueInput } from '@drover/core';
import type { NewRun } from '@drover/store';
import type { AppProcess } from '@drover/testing';
import { TestCluster } from '../../support/test-cluster';

export { TestCluster } from '../../support/test-cluster';

/** A cluster whose queue policies live in Redis (no policy file), for worker tests. */
export function testCluster(label: string, queues: QueueInput[]): Promise<TestCluster> {
  return TestCluster.withQueues(label, queues);
}

/** An `http.request` run calling the oracle. */
export function httpRun(id: string, queue: string, url: string, over: Partial<NewRun> = {}): NewRun {
  return {
    id,
    routine: null,
    jobType: 'http.request',
    queue,
    source: 'api',
    scheduledFor: null,
    payload: { url, method: 'POST', body: { id } },
    ...over,
  };
}

/** One sample of a Prometheus text exposition, e.g. `drover_runs_total{queue="q",job_type="x",status="parked"}`. */
export async function scrape(app: AppProcess, sample: RegExp): Promise<number> {
  const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
  const values = text
    .split('\n')
    .filter((line) => sample.test(line))
    .map((line) => Number(line.split(' ').pop()));
  return values.reduce((a, b) => a + b, 0);
}
