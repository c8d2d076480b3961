import type { ApiPart } from '../api-part';

/** The queues routes of the API and the services behind them. */
export const QUEUES_PART: ApiPart = { controllers: [], providers: [] };
