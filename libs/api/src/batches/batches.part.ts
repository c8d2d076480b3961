import type { ApiPart } from '../api-part';
import { BatchStreams } from './batch-stream.service';
import { BatchesController } from './batches.controller';

/** The batches routes: enqueue a batch, list them, one batch's progress and its live stream. */
export const BATCHES_PART: ApiPart = {
  controllers: [BatchesController],
  providers: [BatchStreams],
};
