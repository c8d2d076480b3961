import type { ApiPart } from './api-part';
import { BATCHES_PART } from './batches/batches.part';
import { CLUSTER_PART } from './cluster/cluster.part';
import { FLOWS_PART } from './flows/flows.part';
import { QUEUES_PART } from './queues/queues.part';
import { ROUTINES_PART } from './routines/routines.part';
import { RUNS_PART } from './runs/runs.part';
import { SESSION_PART } from './session/session.part';

const PARTS: ApiPart[] = [ROUTINES_PART, RUNS_PART, BATCHES_PART, FLOWS_PART, QUEUES_PART, CLUSTER_PART, SESSION_PART];

export const API_CONTROLLERS = PARTS.flatMap((p) => p.controllers);
export const API_PROVIDERS = PARTS.flatMap((p) => p.providers);
