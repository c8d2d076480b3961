// Job contracts live in @drover/core so producers (@drover/client) share them without pulling in
// the worker runtime; re-exported here so handlers keep importing them from one place.
export {
  defineJob,
  type JobContract,
  type JobContractSchemas,
  type PayloadInputOf,
  type PayloadOf,
  type ResultOf,
} from '@drover/core';
