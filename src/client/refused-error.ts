import { FailureType } from '../contracts/failures';

/** A request the run said no to (not an approver, wrong gate, already finished): README's exit 3, "denied/refused". */
export class RefusedError extends Error {
  /** Read by the CLI's exit-code mapping like an application failure's type. */
  readonly type = FailureType.refused;
  constructor(message: string) {
    super(message);
    this.name = 'RefusedError';
  }
}
