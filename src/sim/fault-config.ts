/** One field of a fault configuration that cannot be taken, in Coder's validation shape. */
export interface FaultFieldError {
  field: string;
  detail: string;
}

type Check = (value: unknown, field: string, errors: FaultFieldError[]) => void;

const rate: Check = (v, field, errors) => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) errors.push({ field, detail: `Must be a number from 0 to 1 (a share of requests or builds), got ${JSON.stringify(v)}.` });
};
const milliseconds: Check = (v, field, errors) => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 600_000) errors.push({ field, detail: `Must be a whole number of milliseconds from 0 to 600000, got ${JSON.stringify(v)}.` });
};
const seconds: Check = (v, field, errors) => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 3600) errors.push({ field, detail: `Must be a whole number of seconds from 0 to 3600, got ${JSON.stringify(v)}.` });
};
const flag: Check = (v, field, errors) => {
  if (typeof v !== 'boolean') errors.push({ field, detail: `Must be true or false, got ${JSON.stringify(v)}.` });
};
const text: Check = (v, field, errors) => {
  if (typeof v !== 'string' || v === '') errors.push({ field, detail: `Must be a non-empty string, got ${JSON.stringify(v)}.` });
};
const count: Check = (v, field, errors) => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) errors.push({ field, detail: `Must be a whole number of builds, at least 1 (leave it out for every matching build), got ${JSON.stringify(v)}.` });
};
const oneOf =
  (...allowed: string[]): Check =>
  (v, field, errors) => {
    if (typeof v !== 'string' || !allowed.includes(v)) errors.push({ field, detail: `Must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${JSON.stringify(v)}.` });
  };
const texts: Check = (v, field, errors) => {
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' && x !== '')) errors.push({ field, detail: `Must be a non-empty array of path fragments, got ${JSON.stringify(v)}.` });
};

/** What scopes a build fault: one workspace, one transition, a count of builds. */
const BUILD_SCOPE: Record<string, Check> = { workspaceId: text, transition: oneOf('start', 'stop'), times: count };

const object =
  (fields: Record<string, Check>, required: string[] = []): Check =>
  (v, field, errors) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      errors.push({ field, detail: `Must be an object with the fields ${Object.keys(fields).join(', ')}.` });
      return;
    }
    checkFields(v as Record<string, unknown>, fields, required, `${field}.`, errors);
  };

const FAULT_FIELDS: Record<string, Check> = {
  error500Rate: rate,
  rate429: rate,
  retryAfterSeconds: seconds,
  addedLatencyMs: milliseconds,
  latencySpikeRate: rate,
  latencySpikeMs: milliseconds,
  dropConnectionRate: rate,
  replyDelayMs: milliseconds,
  only: texts,
  includeBuildInfo: flag,
  failBuilds: object({ ...BUILD_SCOPE, templateVersionId: text, transition: oneOf('start', 'stop', 'delete'), rate, message: text }),
  lossyBuild: object({ ...BUILD_SCOPE, how: oneOf('forget', 'replace'), address: text }, ['how', 'address']),
  wrongStoredState: object({ ...BUILD_SCOPE, how: oneOf('previous', 'empty') }, ['how']),
};

function checkFields(body: Record<string, unknown>, fields: Record<string, Check>, required: string[], prefix: string, errors: FaultFieldError[]): void {
  for (const [key, value] of Object.entries(body)) {
    const check = fields[key];
    if (!check) errors.push({ field: `${prefix}${key}`, detail: `Unknown field; the fields are ${Object.keys(fields).join(', ')}.` });
    else if (value !== undefined && value !== null) check(value, `${prefix}${key}`, errors);
  }
  for (const key of required) if (body[key] === undefined || body[key] === null) errors.push({ field: `${prefix}${key}`, detail: 'Required.' });
}

/**
 * What is wrong with a fault configuration from JSON (PUT /api/v2/sim/faults), the same object
 * `startSimulator({ faults })` takes; none: it can be used as it is. Every field is checked and unknown
 * ones refused: a typo must not read as "no fault injected".
 */
export function faultConfigErrors(body: Record<string, unknown>): FaultFieldError[] {
  const errors: FaultFieldError[] = [];
  checkFields(body, FAULT_FIELDS, [], '', errors);
  return errors;
}
