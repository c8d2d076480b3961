import pino from 'pino';
import { NestPinoLogger } from './nest-logger';

function capture(level: pino.Level) {
  const lines: { level: number; msg: string; context?: string }[] = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { nest: new NestPinoLogger(logger), lines };
}

describe('NestPinoLogger', () => {
  it("keeps NestJS's boot chatter (module wiring, one line per route) out of a debug log", () => {
    const { nest, lines } = capture('debug');
    nest.log('Starting Nest application...', 'NestFactory');
    nest.log('ApiModule dependencies initialized', 'InstanceLoader');
    nest.log('RunsController {/api/v1/runs}:', 'RoutesResolver');
    nest.log('Mapped {/healthz, GET} route', 'RouterExplorer');
    nest.log('Nest application successfully started', 'NestApplication');
    expect(lines).toEqual([]);
  });

  it('shows that chatter at trace, for whoever debugs the wiring', () => {
    const { nest, lines } = capture('trace');
    nest.log('Mapped {/healthz, GET} route', 'RouterExplorer');
    expect(lines).toMatchObject([{ level: 10, msg: 'Mapped {/healthz, GET} route', context: 'RouterExplorer' }]);
  });

  it("logs Drover's own Nest loggers at debug, and anyone's warnings and errors at their level", () => {
    const { nest, lines } = capture('debug');
    nest.log('token file reloaded', 'Api');
    nest.warn('slow route table', 'RouterExplorer');
    nest.error('listen EADDRINUSE: address already in use 0.0.0.0:3000', undefined, 'NestApplication');
    expect(lines.map((l) => [l.level, l.context])).toEqual([
      [20, 'Api'],
      [40, 'RouterExplorer'],
      [50, 'NestApplication'],
    ]);
  });
});
