/**
 * What `fleet status` says of require_active_version after a run that ran no code at its end
 * (terminated, timed out): whether the setting it held is still on with nobody watching the active
 * version, and who gives it back. The reads (the run's last word, Coder, the blob store) are the
 * client's; this only words them.
 */
export interface LeftLockReading {
  organization: string;
  template: string;
  how: 'terminated' | 'timed-out';
  /** The run held the setting when it ended (its last progress said so); undefined when no worker answered. */
  heldAtEnd?: boolean;
  /** Coder's reading now, or why it could not be read. */
  setting: { on: boolean } | { unreadable: string };
  /** wsmigrate's mark is in the blob store; undefined when the store could not be asked. */
  marked?: boolean;
  /** A fleet or organization run of the template that runs now (and so holds and watches the setting). */
  heldNowBy?: string;
  /** Seconds between the lock keeper's sweeps as configured here (0: off). */
  keeperSeconds: number;
}

const ENDING = { terminated: 'termination', 'timed-out': 'timeout' } as const;

export function leftLockLine(r: LeftLockReading): string | undefined {
  const byHand = `coder templates edit ${r.template} --require-active-version=false`;
  const keeper =
    r.keeperSeconds > 0
      ? `the worker's lock keeper gives it back within ~${r.keeperSeconds} s (or: ${byHand})`
      : `the worker's lock keeper is off (WSMIGRATE_LOCK_KEEPER_INTERVAL=off): switch it off with \`${byHand}\``;
  if ('unreadable' in r.setting) {
    if (r.heldAtEnd === false) return undefined;
    return `require active version: this run ${r.heldAtEnd ? 'held it when it ended' : 'may have held it'} (${ENDING[r.how]}), and Coder's setting cannot be read here (${r.setting.unreadable}); ${keeper}`;
  }
  if (!r.setting.on) return r.heldAtEnd ? `require active version: given back (off) since this run's ${ENDING[r.how]}` : undefined;
  if (r.heldNowBy && r.marked !== false) return `require active version: on, held now by ${r.heldNowBy}, which runs, watches the active version and gives it back as it ends`;
  if (r.marked) {
    const whose = r.heldAtEnd ? `left by this run's ${ENDING[r.how]}` : "wsmigrate's, left by a run that ended without giving it back";
    return `require active version: still ON, ${whose}, and no run watches the active version: do not promote an old version; ${keeper}`;
  }
  if (r.marked === undefined && r.heldAtEnd) return `require active version: still ON after this run's ${ENDING[r.how]} (wsmigrate's mark could not be read here); ${keeper}`;
  if (r.heldAtEnd) {
    return `require active version: still ON after this run's ${ENDING[r.how]}, but wsmigrate's mark is gone (another blob store?), so the lock keeper takes it for the operator's own setting and leaves it: switch it off with \`${byHand}\` unless it is yours`;
  }
  return "require active version: on (the template's own setting)";
}
