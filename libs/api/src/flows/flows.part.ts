import type { ApiPart } from '../api-part';
import { FlowsController } from './flows.controller';

/** The flows route: enqueue a run with the runs it waits for. */
export const FLOWS_PART: ApiPart = {
  controllers: [FlowsController],
  providers: [],
};
