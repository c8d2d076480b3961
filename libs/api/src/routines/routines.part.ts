import type { ApiPart } from '../api-part';

/** The routines routes of the API and the services behind them. */
export const ROUTINES_PART: ApiPart = { controllers: [], providers: [] };
