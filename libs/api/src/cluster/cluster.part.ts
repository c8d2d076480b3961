import type { ApiPart } from '../api-part';
import { ApiPresence } from './api-presence.service';
import { AuditController } from './audit.controller';
import { ClusterController } from './cluster.controller';
import { ClusterView } from './cluster-view.service';
import { PlanController } from './plan.controller';

/** The cluster routes of the API (plan, cluster, events, audit) and the services behind them. */
export const CLUSTER_PART: ApiPart = {
  controllers: [AuditController, PlanController, ClusterController],
  providers: [ApiPresence, ClusterView],
};
