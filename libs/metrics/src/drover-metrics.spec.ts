import { DroverMetrics, MISNAMED_DEFAULT_GAUGES } from './drover-metrics';

describe('DroverMetrics', () => {
  it('exports no gauge named like a counter, keeping the labelled Node.js handle gauges', async () => {
    const metrics = new DroverMetrics();
    const families = await metrics.registry.getMetricsAsJSON();
    const misnamed = families.filter((f) => f.name.endsWith('_total') && String(f.type) !== 'counter');
    expect(misnamed.map((f) => f.name)).toEqual([]);
    const names = families.map((f) => f.name);
    for (const name of MISNAMED_DEFAULT_GAUGES) expect(names).toContain(name.replace(/_total$/, ''));
    expect(names).toEqual(expect.arrayContaining(['process_cpu_seconds_total', 'nodejs_eventloop_lag_p99_seconds']));
  });
});
