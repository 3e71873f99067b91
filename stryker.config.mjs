// Mutation testing of the pure domain against test/domain (`make mutate`): the shared settings and
// the parts (WSMIGRATE_MUTATE_PART, as scripts/mutate.sh runs them) are in stryker.shared.mjs.
import { unitRunOf } from './stryker.shared.mjs';

export default unitRunOf('domain', process.env.WSMIGRATE_MUTATE_PART || undefined);
