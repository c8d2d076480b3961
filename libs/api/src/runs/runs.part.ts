import type { ApiPart } from '../api-part';

/** The runs routes of the API and the services behind them. */
export const RUNS_PART: ApiPart = { controllers: [], providers: [] };
