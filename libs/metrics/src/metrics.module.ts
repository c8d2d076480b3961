import { Controller, Get, Global, Header, Module, Res } from '@nestjs/common';
import { DroverMetrics } from './drover-metrics';

/** What the scrape needs of Express's response; no `express` types, so a package user needs no @types/express. */
interface ScrapeResponse {
  setHeader(name: string, value: string): unknown;
  send(body: string): unknown;
}

@Controller()
export class MetricsController {
  constructor(private readonly metrics: DroverMetrics) {}

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async scrape(@Res() res: ScrapeResponse): Promise<void> {
    const { contentType, body } = await this.metrics.expose();
    res.setHeader('Content-Type', contentType);
    res.send(body);
  }
}

/** One registry per process, shared by every module of the app that imports it. */
@Global()
@Module({
  providers: [{ provide: DroverMetrics, useFactory: () => new DroverMetrics() }],
  controllers: [MetricsController],
  exports: [DroverMetrics],
})
export class MetricsModule {}
