import type { Provider, Type } from '@nestjs/common';

/** One area of the API (routines, runs, queues, cluster): its controllers and their services. */
export interface ApiPart {
  controllers: Type[];
  providers: Provider[];
}
