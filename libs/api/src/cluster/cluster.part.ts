import type { ApiPart } from '../api-part';
import { AuditController } from './audit.controller';

/** The cluster routes of the API (plan, cluster, events, audit) and the services behind them. */
export const CLUSTER_PART: ApiPart = { controllers: [AuditController], providers: [] };
