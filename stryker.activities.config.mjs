// Mutation testing of the activities against test/activities (`make mutate`): the shared settings are
// in stryker.config.mjs. WSMIGRATE_MUTATE_PART (a-c, d-p, q-z: first letters of the files) runs one
// part, as scripts/mutate.sh does; unset, every activity file in one run.
import { unitRunOf } from './stryker.config.mjs';

export const ACTIVITY_PARTS = ['a-c', 'd-p', 'q-z'];
const part = process.env.WSMIGRATE_MUTATE_PART;
if (part && !ACTIVITY_PARTS.includes(part)) throw new Error(`WSMIGRATE_MUTATE_PART=${part}: one of ${ACTIVITY_PARTS.join(', ')}`);

export default unitRunOf('activities', part || undefined);
